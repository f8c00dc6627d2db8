import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { fixture, itemsPackage, manifest, zipOf } from '../../../../test/helpers/qti.js';
import { AppError } from '../../../platform/errors.js';
import { importQtiPackage } from './qti-package.js';
import { parseXml } from './xml.js';
import { readZip } from './zip.js';

/** The error an import refuses with: 400 invalid_request, its message naming the problem. */
async function refused(zip: Uint8Array, opts: Parameters<typeof importQtiPackage>[1] = {}): Promise<AppError> {
  const err = await importQtiPackage(zip, opts).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe('invalid_request');
  return err as AppError;
}

/** Renames an entry inside a zip (local header and central directory), keeping its length. */
function renameEntry(zip: Uint8Array, from: string, to: string): Uint8Array {
  if (from.length !== to.length) throw new Error('same length only');
  const out = Buffer.from(zip);
  const a = Buffer.from(from);
  for (let i = out.indexOf(a); i >= 0; i = out.indexOf(a, i + 1)) Buffer.from(to).copy(out, i);
  return out;
}

const ITEM = fixture('choice-single.xml');
const XXE = `<?xml version="1.0"?>
<!DOCTYPE item [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<qti-assessment-item xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="x" title="x"><qti-item-body><p>&secret;</p></qti-item-body></qti-assessment-item>`;

describe('hostile packages are refused with 400 naming the problem, nothing read from outside', () => {
  it('XXE: an item with a DOCTYPE and an external entity is refused, naming the file; the entity is never resolved', async () => {
    const err = await refused(zipOf({ 'imsmanifest.xml': manifest([{ path: 'items/x.xml', xml: '' }], '3.0'), 'items/x.xml': XXE }));
    expect(err.message).toMatch(/^items\/x\.xml declares a DTD/);
    expect(err.details).toEqual([{ field: 'items/x.xml', message: 'declares a DTD, which is refused' }]);
    expect(JSON.stringify(err)).not.toContain('root:');
  });

  it('a billion-laughs manifest (internal entities) is refused before any expansion', async () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE m [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><manifest>&b;</manifest>`;
    const err = await refused(zipOf({ 'imsmanifest.xml': bomb }));
    expect(err.details![0]!.field).toBe('imsmanifest.xml');
  });

  it('zip slip: an entry named ../ or absolute is refused', async () => {
    const slip = renameEntry(zipOf({ 'imsmanifest.xml': manifest([], '3.0'), 'aa/evil.xml': ITEM }), 'aa/evil.xml', '../evil.xml');
    expect((await refused(slip)).message).toMatch(/unsafe path: "\.\.\/evil\.xml"/);
    const abs = renameEntry(zipOf({ 'imsmanifest.xml': manifest([], '3.0'), 'xetc/passwd': 'x' }), 'xetc/passwd', '/etc/passwd');
    expect((await refused(abs)).message).toMatch(/unsafe path: "\/etc\/passwd"/);
  });

  it('zip bomb: inflating stops at the expanded-size limit (counted while inflating)', async () => {
    const big = new Uint8Array(101 * 1024 * 1024); // zeros: compresses to ~100 KB
    const zip = zipSync({ 'imsmanifest.xml': new TextEncoder().encode(manifest([], '3.0')), 'items/big.xml': big }, { level: 9 });
    expect(zip.length).toBeLessThan(1024 * 1024);
    expect((await refused(zip)).message).toMatch(/expands to more than 100 MB/);
  });

  it('a zip whose headers understate the size is stopped while inflating, not trusted', async () => {
    const zip = Buffer.from(zipSync({ 'imsmanifest.xml': new Uint8Array(4096) }, { level: 9 }));
    // Declare 16 bytes uncompressed in the local header (offset 22) and the central directory (offset 24).
    zip.writeUInt32LE(16, 22);
    const cd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    zip.writeUInt32LE(16, cd + 24);
    const err = await refused(zip);
    expect(err.message).toMatch(/imsmanifest\.xml|broken/);
  });

  it('10,000 entries are refused before any is read', async () => {
    const files: Record<string, Uint8Array> = { 'imsmanifest.xml': new TextEncoder().encode(manifest([], '3.0')) };
    for (let i = 0; i < 10_000; i++) files[`f/${i}.txt`] = new Uint8Array(0);
    const err = await refused(zipSync(files, { level: 0 }));
    expect(err.message).toBe('The package holds 10001 entries; at most 5000 are allowed.');
  });

  it('a body that is not a zip, a package without a manifest, a malformed manifest or item: 400 naming the file', async () => {
    expect((await refused(new TextEncoder().encode('not a zip at all'))).message).toMatch(/not a readable zip/);
    expect((await refused(zipOf({ 'items/a.xml': ITEM }))).message).toBe('imsmanifest.xml: is missing: a QTI content package has imsmanifest.xml at its root');
    const badManifest = await refused(zipOf({ 'imsmanifest.xml': '<manifest><resources></manifest>' }));
    expect(badManifest.message).toMatch(/^imsmanifest\.xml is not well-formed XML \(line 1: /);
    const badItem = await refused(zipOf({ 'imsmanifest.xml': manifest([{ path: 'items/bad.xml', xml: '' }], '3.0'), 'items/bad.xml': '<qti-assessment-item><p>unclosed</qti-assessment-item>' }));
    expect(badItem.details).toEqual([{ field: 'items/bad.xml', message: expect.stringMatching(/^is not well-formed XML: line 1/) }]);
  });

  it('an SVG with script is stored sanitised: script, its code and the event handler gone, the drawing kept', async () => {
    const stored: Array<{ path: string; contentType: string; bytes: Uint8Array }> = [];
    const sink = { store: async (img: (typeof stored)[number]) => (stored.push(img), { assetId: 'ast_shape' }) };
    const { input, report } = await importQtiPackage(itemsPackage(['skip-svg-script.xml'], '3.0', { 'items/images/shape.svg': fixture('shape-with-script.svg') }), { assets: sink });
    expect(report.skipped).toEqual([]);
    expect(stored.map((s) => `${s.path} ${s.contentType}`)).toEqual(['items/images/shape.svg image/svg+xml']);
    const svg = new TextDecoder().decode(stored[0]!.bytes);
    expect(svg).not.toMatch(/script|alert|onload/i);
    expect(svg).toMatch(/<rect[^>]*width="10"/);
    expect(input!.questions![0]!.prompt).toBe('Is this a square? ![A shape](asset:ast_shape)');
  });

  it('an image whose bytes are not its type, or an SVG with a DOCTYPE, skips its item and stores nothing', async () => {
    const stored: string[] = [];
    const sink = { store: async (img: { path: string }) => (stored.push(img.path), { assetId: 'ast_x' }) };
    const fake = await importQtiPackage(itemsPackage(['skip-image.xml'], '3.0', { 'items/images/cat.png': '<svg/>' }), { assets: sink });
    expect(fake.report.skipped[0]!.reason).toBe('image "images/cat.png" is refused: the file is not a PNG image.');
    const dtd = '<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>';
    const withDtd = await importQtiPackage(itemsPackage(['skip-svg-script.xml'], '3.0', { 'items/images/shape.svg': dtd }), { assets: sink });
    expect(withDtd.report.skipped[0]!.reason).toMatch(/^image "images\/shape.svg" is refused: the SVG has a DOCTYPE/);
    expect(stored).toEqual([]);
  });

  it('with an asset sink, a clean image is stored and referenced from the prompt as asset:…; a dry run stores nothing', async () => {
    const stored: string[] = [];
    const sink = { store: async (img: { path: string; contentType: string }) => (stored.push(`${img.path} ${img.contentType}`), { assetId: 'ast_cat' }) };
    const png = { 'items/images/cat.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]) };
    const dry = await importQtiPackage(itemsPackage(['skip-image.xml'], '3.0', png), { assets: sink, dryRun: true });
    expect(dry.report.imported).toBe(1);
    expect(stored).toEqual([]);
    const { input } = await importQtiPackage(itemsPackage(['skip-image.xml'], '3.0', png), { assets: sink });
    expect(stored).toEqual(['items/images/cat.png image/png']);
    expect(input!.questions![0]!.prompt).toBe('Is this a cat? ![A cat](asset:ast_cat)');
  });

  it('XML in ISO-8859-1 or UTF-16 is read by its declaration or byte-order mark; an unknown encoding is a 400 naming the file', () => {
    const latin1 = Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><a>caf\u00e9</a>', 'latin1');
    expect(parseXml(latin1, 'l.xml').children).toEqual(['café']);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<a>naïve</a>', 'utf16le')]);
    expect(parseXml(utf16, 'u.xml').children).toEqual(['naïve']);
    expect(() => parseXml(Buffer.from('<?xml version="1.0" encoding="x-klingon"?><a/>'), 'k.xml')).toThrow('k.xml declares the encoding "x-klingon"');
  });

  it('an element or attribute named __proto__ is refused (400), and nothing is polluted', () => {
    expect(() => parseXml('<r><__proto__ polluted="yes"/></r>', 'p.xml')).toThrow(/^p\.xml is not well-formed XML/);
    expect(() => parseXml('<r __proto__="x"/>', 'p.xml')).toThrow(/^p\.xml is not well-formed XML/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('readZip reads a plain package; parseXml decodes character references once, never twice', async () => {
    const files = await readZip(zipOf({ 'a/b.txt': 'hi' }));
    expect([...files.keys()]).toEqual(['a/b.txt']);
    expect(parseXml('<a>&lt;&amp;&#65;&#x42;</a>', 'x.xml').children).toEqual(['<&AB']);
    expect(parseXml('<a>&amp;#65;</a>', 'x.xml').children).toEqual(['&#65;']);
  });
});
