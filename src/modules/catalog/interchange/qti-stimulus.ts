import type { Passage } from '../schemas.js';
import { PASSAGE_MAX_CHARS } from '../schemas.js';
import type { ImageRef } from './qti-items.js';
import { isPartId } from './qti-item-context.js';
import { toMarkdown } from './xhtml-markdown.js';
import { descendants, elements, first, parseXml, textOf, type XElement } from './xml.js';

/**
 * Shared stimuli of a QTI package to passages (docs/import-export.md
 * "Passages"). An item names its stimulus in one of two ways:
 * - QTI 3.0 (and 2.2's assessmentStimulusRef, read under the same name):
 *   `<qti-assessment-stimulus-ref identifier href>` on the item, the file a
 *   `qti-assessment-stimulus` whose `qti-stimulus-body` is the text and whose
 *   `title` names it;
 * - QTI 2.x: an `<object data="…html">` in the item body naming an HTML or
 *   XHTML file of the package (its `<title>` names it, its `<body>` is the text).
 * Each file becomes one passage however many items name it. Its images go
 * the way item images go (the caller's `place`); in a Markdown test its
 * XHTML is read as Markdown, as the items' is. What cannot be read skips
 * the items that name it, with the reason.
 */
export interface StimulusLink {
  /** The stimulus file, resolved inside the package; null when the reference leaves it. */
  file: string | null;
  href: string;
  identifier: string;
}

const SHARED_OBJECT = /\.x?html?$/i;
const isSharedObject = (e: XElement) =>
  e.name === 'object' && (/^(text\/html|application\/xhtml\+xml)$/i.test(e.attrs['type'] ?? '') || SHARED_OBJECT.test((e.attrs['data'] ?? '').split(/[?#]/)[0]!));

/**
 * The stimuli an item names. A QTI 2.x shared object is taken out of the
 * item's body here, so its fallback content does not become part of the prompt.
 */
export function takeStimulusLinks(item: XElement, itemFile: string, resolve: (from: string, href: string) => string | null): StimulusLink[] {
  const links: StimulusLink[] = elements(item, 'qti-assessment-stimulus-ref').map((r) => {
    const href = r.attrs['href'] ?? '';
    return { file: resolve(itemFile, href), href, identifier: r.attrs['identifier'] ?? '' };
  });
  const body = first(item, 'qti-item-body');
  if (!body) return links;
  const strip = (el: XElement) => {
    el.children = el.children.filter((c) => {
      if (typeof c === 'string' || !isSharedObject(c)) return true;
      const href = c.attrs['data'] ?? '';
      links.push({ file: resolve(itemFile, href), href, identifier: '' });
      return false;
    });
    for (const c of el.children) if (typeof c !== 'string') strip(c);
  };
  strip(body);
  return links;
}

/** A stimulus file read: its passage text and title (images still to place), or why it cannot be a passage. */
interface ReadStimulus {
  identifier: string;
  title: string;
  body: XElement;
  images: ImageRef[];
}

function readStimulus(file: string, bytes: Uint8Array): ReadStimulus | string {
  let root: XElement;
  try {
    // An HTML page's `<!DOCTYPE html>` declares no entities; any other document type declaration is still refused by parseXml.
    const text = new TextDecoder().decode(bytes).replace(/^(\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?)<!DOCTYPE html\s*>/i, '$1');
    root = parseXml(text, file);
  } catch (err) {
    return `its stimulus "${file}" cannot be read: ${(err as Error).message}`;
  }
  let body: XElement | undefined;
  let title = '';
  if (root.name === 'qti-assessment-stimulus') {
    body = first(root, 'qti-stimulus-body');
    title = root.attrs['title']?.trim() ?? '';
  } else if (root.name === 'html') {
    body = first(root, 'body');
    const head = first(root, 'head');
    title = head && first(head, 'title') ? textOf(first(head, 'title')!) : '';
  } else return `its stimulus "${file}" holds <${root.name}>, not a qti-assessment-stimulus or an HTML page`;
  if (!body) return `its stimulus "${file}" has no body`;
  const images = descendants(body)
    .filter((e) => e.name === 'img' || (e.name === 'object' && (e.attrs['type'] ?? '').startsWith('image/')))
    .map((e) => ({ href: e.attrs['src'] ?? e.attrs['data'] ?? '', alt: e.attrs['alt'] ?? '' }));
  return { identifier: root.attrs['identifier'] ?? '', title, body, images };
}

/** Stores a stimulus's images (as item images are stored): the text for each, or why the items are skipped. */
export type PlaceImages = (file: string, images: ImageRef[]) => Promise<Map<string, string> | string>;

/**
 * The passages of one package, each made once: `passageFor` gives an item's
 * passage id (or null when it names none), or why the item is skipped.
 */
export function createPassageReader(files: ReadonlyMap<string, Uint8Array>, markdown: boolean, place: PlaceImages) {
  const byFile = new Map<string, Passage | string>();
  const usedIds = new Set<string>();
  const passages: Passage[] = [];

  async function make(file: string, link: StimulusLink): Promise<Passage | string> {
    const bytes = files.get(file);
    if (!bytes) return `its stimulus "${link.href}" is missing from the package`;
    const read = readStimulus(file, bytes);
    if (typeof read === 'string') return read;
    let placed = new Map<string, string>();
    if (read.images.length > 0) {
      const p = await place(file, read.images);
      if (typeof p === 'string') return `its stimulus "${link.href}": ${p}`;
      placed = p;
    }
    const inline = (e: XElement) => (e.name === 'img' || e.name === 'object' ? (placed.get(e.attrs['src'] ?? e.attrs['data'] ?? '') ?? e.attrs['alt'] ?? '') : undefined);
    // A Markdown test reads its stimuli as Markdown too (formatting and MathML kept), as it reads its items.
    const text = markdown ? toMarkdown(read.body, { inline }) : textOf(read.body, { inline });
    if (!text) return `its stimulus "${link.href}" has no text`;
    if (text.length > PASSAGE_MAX_CHARS) return `its stimulus "${link.href}" holds ${text.length} characters; a passage holds at most ${PASSAGE_MAX_CHARS}`;
    const wanted = [read.identifier, link.identifier].find((id) => isPartId(id) && !usedIds.has(id));
    let id = wanted ?? `passage${passages.length + 1}`;
    while (usedIds.has(id)) id = `${id}_`;
    usedIds.add(id);
    const passage: Passage = { id, ...(read.title ? { title: read.title.slice(0, 200) } : {}), text };
    passages.push(passage);
    return passage;
  }

  return {
    async passageFor(links: StimulusLink[]): Promise<{ passageId: string | null } | string> {
      if (links.length === 0) return { passageId: null };
      if (links.length > 1) return `the item shows ${links.length} stimuli; an Assay question shows one passage`;
      const link = links[0]!;
      if (!link.file) return `its stimulus "${link.href}" points outside the package`;
      let passage = byFile.get(link.file);
      if (passage === undefined) {
        passage = await make(link.file, link);
        byFile.set(link.file, passage);
      }
      return typeof passage === 'string' ? passage : { passageId: passage.id };
    },
    /** The passages that the given questions name, in the order first made. */
    passagesUsed(questions: ReadonlyArray<{ passageId?: string }>): Passage[] {
      const named = new Set(questions.map((q) => q.passageId));
      return passages.filter((p) => named.has(p.id));
    },
  };
}
