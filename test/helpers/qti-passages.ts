import { FIXTURES, fixture, zipOf } from './qti.js';

/** Packages built from test/fixtures/qti/passages: shared stimuli as QTI 3.0 and QTI 2.1 packages write them. */
export { FIXTURES };
const p = (name: string) => fixture(`passages/${name}`);

/** QTI 3.0: one stimulus (stimuli/river.xml) referenced by two items; `manifestName` picks the manifest (e.g. the mislabelled one). */
export function riverPackage(manifestName = 'manifest-qti3.xml', extra: Record<string, string | Uint8Array> = {}): Uint8Array {
  return zipOf({
    'imsmanifest.xml': p(manifestName),
    'stimuli/river.xml': p('stimulus-river.xml'),
    'items/river-1.xml': p('item-river-1.xml'),
    'items/river-2.xml': p('item-river-2.xml'),
    ...extra,
  });
}

/** QTI 2.1: two items whose bodies hold an <object> naming one shared XHTML page. */
export function poemPackage(extra: Record<string, string | Uint8Array> = {}): Uint8Array {
  return zipOf({
    'imsmanifest.xml': p('manifest-v21.xml'),
    'shared/poem.html': p('v21-poem.html'),
    'items/poem-1.xml': p('v21-item-poem.xml'),
    'items/poem-2.xml': p('v21-item-poem-2.xml'),
    ...extra,
  });
}

export const fixtureText = p;
