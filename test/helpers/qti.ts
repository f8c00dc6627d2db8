import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';

/** QTI fixtures (test/fixtures/qti) and packages built from them, in QTI 3.0 or 2.2 form. */
export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/qti');
export const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

export type QtiVersion = '3.0' | '2.2';

const camel = (s: string) => s.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * The QTI 2.2 form of a QTI 3.0 item or test: element names without the
 * `qti-` prefix in camelCase (`qti-choice-interaction` → `choiceInteraction`),
 * attributes in camelCase, the 2.2 namespace and template URIs. XHTML and
 * `data-` attributes stay as they are.
 */
export function toQti22(xml: string): string {
  return xml
    .replace(/<(\/?)qti-([a-z-]+)/g, (_m, slash: string, name: string) => `<${slash}${camel(name)}`)
    .replace(/ ([a-z]+(?:-[a-z]+)+)="/g, (m, attr: string) => (attr.startsWith('data-') ? m : ` ${camel(attr)}="`))
    .replace('http://www.imsglobal.org/xsd/imsqtiasi_v3p0', 'http://www.imsglobal.org/xsd/imsqti_v2p2')
    .replace(/https:\/\/purl\.imsglobal\.org\/spec\/qti\/v3p0\/rptemplates\/([a-z_]+)\.xml/g, 'http://www.imsglobal.org/question/qti_v2p2/rptemplates/$1');
}

export interface PackageFile {
  path: string;
  xml: string;
  /** Manifest resource type: item (default), test, or none (a plain file such as an image). */
  kind?: 'item' | 'test' | 'none';
}

/** imsmanifest.xml listing the items and test of a package. */
export function manifest(files: PackageFile[], version: QtiVersion): string {
  const v = version === '3.0' ? 'v3p0' : 'v2p2';
  const ns = version === '3.0' ? 'http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1' : 'http://www.imsglobal.org/xsd/imscp_v1p1';
  const res = files
    .filter((f) => f.kind !== 'none')
    .map((f, i) => `<resource identifier="R${i}" type="imsqti_${f.kind === 'test' ? 'test' : 'item'}_xml${v}" href="${f.path}"><file href="${f.path}"/></resource>`)
    .join('\n    ');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<manifest xmlns="${ns}" identifier="M1">\n  <metadata><schema>QTI Package</schema></metadata>\n  <organizations/>\n  <resources>\n    ${res}\n  </resources>\n</manifest>\n`;
}

export function zipOf(files: Record<string, string | Uint8Array>): Uint8Array {
  const enc = new TextEncoder();
  return zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, typeof v === 'string' ? enc.encode(v) : v])));
}

/** A package of the given files with its manifest; 2.2 converts each XML file from the 3.0 fixture form. */
export function packageOf(files: PackageFile[], version: QtiVersion = '3.0', extra: Record<string, string | Uint8Array> = {}): Uint8Array {
  const conv = (x: string) => (version === '2.2' ? toQti22(x) : x);
  return zipOf({
    'imsmanifest.xml': manifest(files, version),
    ...Object.fromEntries(files.map((f) => [f.path, f.kind === 'none' ? f.xml : conv(f.xml)])),
    ...extra,
  });
}

/** A package of fixture items, each under items/<name>. */
export const itemsPackage = (names: string[], version: QtiVersion = '3.0', extra: Record<string, string | Uint8Array> = {}) =>
  packageOf(names.map((n) => ({ path: `items/${n}`, xml: fixture(n) })), version, extra);
