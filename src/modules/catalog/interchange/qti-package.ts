import { posix } from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { AppError } from '../../../platform/errors.js';
import { canonicalTag } from '../../../platform/i18n/locales.js';
import { LANGUAGE_MAX_CHARS } from '../translations/translation-schema.js';
import type { QuestionInput, SectionInput, TestInput } from '../schemas.js';
import { checkImage, imageType, type AssetSink } from './asset-sink.js';
import { mapItem, type ImageRef } from './qti-items.js';
import { isPartId } from './qti-item-context.js';
import { createPassageReader, takeStimulusLinks } from './qti-stimulus.js';
import { emptyReport, type ImportReport } from './report.js';
import { questionProblem, settingsFor } from './test-input.js';
import { hasFormatting, mayHaveFormatting, toMarkdown } from './xhtml-markdown.js';
import { descendants, elements, first, parseXml, textOf, xmlFileText, type XElement } from './xml.js';
import { readZip, type ZipLimits } from './zip.js';

/**
 * A QTI content package (3.0, or 2.1/2.2) to a test: the manifest's
 * resources, the assessment test's sections (or every item, in manifest
 * order, when there is none), each item mapped by qti-items.ts. Broken
 * packages are refused (400 naming the file); items that cannot be
 * imported whole are skipped and named in the report.
 */
export interface PackageImport {
  input: TestInput | null;
  report: ImportReport;
}

const ITEM_TYPES = /^imsqti_item_xmlv(3p0|2p1|2p2|2p0)$/;
const TEST_TYPES = /^imsqti_test_xmlv(3p0|2p1|2p2)$/;
export const MANIFEST = 'imsmanifest.xml';

const badFile = (file: string, message: string) => new AppError('invalid_request', `${file}: ${message}`, [{ field: file, message }]);

/** A path inside the package, relative to `from`'s folder; null when it would leave the package. */
function resolve(from: string, href: string): string | null {
  const clean = decodeURIComponent(href.split('#')[0]!.split('?')[0]!);
  if (clean === '' || /^[a-z][a-z0-9+.-]*:/i.test(clean) || clean.startsWith('/')) return null;
  const joined = posix.normalize(posix.join(posix.dirname(from), clean));
  return joined.startsWith('../') || joined === '..' ? null : joined;
}

interface Resource {
  identifier: string;
  type: string;
  href: string;
}

export async function importQtiPackage(
  zipBytes: Uint8Array,
  opts: { assets?: AssetSink; limits?: ZipLimits; dryRun?: boolean; /** Yield to the event loop after this long parsing (ms; default 3). */ yieldEveryMs?: number } = {},
): Promise<PackageImport> {
  const files = await readZip(zipBytes, opts.limits);
  const manifestBytes = files.get(MANIFEST);
  if (!manifestBytes) throw badFile(MANIFEST, 'is missing: a QTI content package has imsmanifest.xml at its root');
  // Each large document is parsed in a turn of its own: the loop serves other requests between them.
  await yieldToLoop();
  const manifest = parseXml(manifestBytes, MANIFEST);
  await yieldToLoop();
  if (manifest.name !== 'manifest') throw badFile(MANIFEST, `has root <${manifest.name}>, not <manifest>`);
  const resources: Resource[] = descendants(manifest)
    .filter((e) => e.name === 'resource')
    .map((r) => ({ identifier: r.attrs['identifier'] ?? '', type: r.attrs['type'] ?? '', href: r.attrs['href'] ?? '' }));
  const report = emptyReport();
  const note = (n: string) => {
    if (!report.notes.includes(n)) report.notes.push(n);
  };
  if (resources.some((r) => /^imsqti_xmlv1p/.test(r.type))) note('QTI 1.x resources are not supported and were left out');

  const itemResources = resources.filter((r) => ITEM_TYPES.test(r.type));
  // A resource labelled a test whose file holds something else (a shared stimulus, an item) is skipped, not fatal: the rest imports.
  let testRoot: { file: string; root: XElement } | null = null;
  for (const r of resources.filter((res) => TEST_TYPES.test(res.type))) {
    const testFile = resolve(MANIFEST, r.href);
    const bytes = testFile && files.get(testFile);
    if (!testFile || !bytes) throw badFile(r.href || MANIFEST, 'the assessment test named in the manifest is missing from the package');
    const root = parseXml(bytes, testFile);
    await yieldToLoop();
    if (root.name !== 'qti-assessment-test') {
      report.skipped.push({ file: testFile, identifier: r.identifier, interaction: '-', reason: `the manifest labels it a test (${r.type}), but the file holds <${root.name}>; it is not imported as the test` });
      continue;
    }
    testRoot = { file: testFile, root };
    break;
  }
  interface Ref { file: string | null; href: string; identifier: string }
  /** A section as read, its candidate rubric blocks not yet text: they are read once the package's format is known. */
  interface Group { section: (Omit<SectionInput, 'questions'> & { rubric?: XElement[] }) | null; refs: Ref[] }
  let groups: Group[];
  let title = 'Imported test';
  let maxTimeSeconds: number | null = null;
  // The test's xml:lang is its language; without one, the language its imported items agree on.
  let language: string | null = null;
  const itemLanguages = new Set<string>();

  if (testRoot) {
    const { file: testFile, root: test } = testRoot;
    title = test.attrs['title']?.trim() || title;
    language = declaredLanguage(test);
    const limits = [...elements(test, 'qti-time-limits'), ...descendants(test).filter((e) => e.name === 'qti-test-part').flatMap((p) => elements(p, 'qti-time-limits'))][0];
    maxTimeSeconds = limits ? Number(limits.attrs['max-time']) || null : null;
    if (descendants(test).some((e) => e.name === 'qti-assessment-section-ref')) note('section references (qti-assessment-section-ref) are not followed: their items are not imported');
    groups = [];
    for (const part of descendants(test).filter((e) => e.name === 'qti-test-part')) {
      for (const sec of elements(part, 'qti-assessment-section')) {
        const nested = descendants(sec).filter((e) => e.name === 'qti-assessment-section');
        if (nested.length > 0) note(`section "${sec.attrs['identifier']}": nested sections are read as part of their top-level section (their own selection and ordering are not kept)`);
        const refs = [sec, ...nested].flatMap((s) => elements(s, 'qti-assessment-item-ref'));
        // Document order, nested sections' items in place.
        const ordered = descendants(sec).filter((e) => refs.includes(e));
        const selection = first(sec, 'qti-selection');
        const ordering = first(sec, 'qti-ordering');
        const rubric = elements(sec, 'qti-rubric-block');
        if (selection?.attrs['with-replacement'] === 'true') note(`section "${sec.attrs['identifier']}": selection with replacement is drawn without replacement`);
        const draw = selection ? Number(selection.attrs['select']) : NaN;
        const id = sec.attrs['identifier'] ?? '';
        groups.push({
          section: {
            ...(isPartId(id) ? { id } : {}),
            title: (sec.attrs['title']?.trim() || `Section ${groups.length + 1}`).slice(0, 200),
            ...(rubric.length > 0 ? { rubric } : {}),
            shuffleQuestions: ordering?.attrs['shuffle'] === 'true',
            ...(Number.isInteger(draw) && draw > 0 ? { draw } : {}),
            // A section the exporter wrote for a flat test: hidden, nothing drawn or shuffled.
            ...(sec.attrs['visible'] === 'false' ? { title: '' } : {}),
          },
          refs: ordered.map((r) => ({ file: resolve(testFile, r.attrs['href'] ?? ''), href: r.attrs['href'] ?? '', identifier: r.attrs['identifier'] ?? '' })),
        });
      }
    }
    const referenced = new Set(groups.flatMap((g) => g.refs.map((r) => r.file)));
    for (const r of itemResources) {
      const f = resolve(MANIFEST, r.href);
      if (!referenced.has(f)) report.skipped.push({ file: f ?? r.href, identifier: r.identifier, interaction: '-', reason: 'not used by the assessment test' });
    }
  } else {
    groups = [{ section: null, refs: itemResources.map((r) => ({ file: resolve(MANIFEST, r.href), href: r.href, identifier: r.identifier })) }];
  }

  // A Markdown test when any item shows formatting, MathML or images, or carries the exporter's mark (docs/import-export.md,
  // "Formatting"): the other items are then read as Markdown too. Found before mapping, so every item is read one way.
  // Only an item whose text can show one is parsed here, and no parsed item is kept: the mapping parses each item as it
  // comes to it, so the package's items are never all in memory at once, and a plain package is parsed once.
  let markdown = false;
  let lastYieldScan = performance.now();
  for (const ref of groups.flatMap((g) => g.refs)) {
    const bytes = ref.file ? files.get(ref.file) : undefined;
    if (!bytes) continue;
    if (performance.now() - lastYieldScan > (opts.yieldEveryMs ?? 3)) {
      await yieldToLoop();
      lastYieldScan = performance.now();
    }
    const text = xmlFileText(bytes, ref.file!);
    if (mayHaveFormatting(text) && hasFormatting(parseXml(text, ref.file!))) {
      markdown = true;
      break;
    }
  }
  for (const g of groups) {
    if (!g.section?.rubric) continue;
    const text = g.section.rubric.map((b) => (markdown ? toMarkdown(b) : textOf(b))).filter(Boolean).join('\n\n');
    delete g.section.rubric;
    if (text) g.section.instructions = text.slice(0, 10_000);
  }

  const reader = createPassageReader(files, markdown, (file, images) => placeImages(file, images, files, opts.assets, opts.dryRun ?? false));
  const outSections: Array<SectionInput & { questions: QuestionInput[] }> = [];
  const usedIds = new Set<string>();
  const seenFiles = new Set<string>();
  let count = 0;
  let lastYield = performance.now();
  for (const g of groups) {
    const questions: QuestionInput[] = [];
    const skippedHere: string[] = [];
    const itemsStart = report.items.length;
    for (const ref of g.refs) {
      // Parsing is synchronous: give the event loop a turn every few milliseconds so a large package never holds it.
      if (performance.now() - lastYield > (opts.yieldEveryMs ?? 3)) {
        await yieldToLoop();
        lastYield = performance.now();
      }
      const skip = (interaction: string, reason: string, identifier = ref.identifier) => {
        report.skipped.push({ file: ref.file ?? ref.href, identifier, interaction, reason });
        skippedHere.push(identifier);
      };
      const bytes = ref.file ? files.get(ref.file) : undefined;
      if (!ref.file || !bytes) {
        skip('-', ref.file ? 'the file is missing from the package' : 'the reference points outside the package');
        continue;
      }
      if (seenFiles.has(ref.file)) {
        skip('-', 'the item is used twice; it is imported once');
        continue;
      }
      seenFiles.add(ref.file);
      const item = parseXml(bytes, ref.file);
      const identifier = item.attrs['identifier'] ?? ref.identifier;
      if (item.name !== 'qti-assessment-item') {
        skip('-', item.name === 'qti-assessment-stimulus' ? 'the file is a shared stimulus, not an assessment item (items that reference it show it as their passage)' : `the file holds <${item.name}>, not an assessment item`, identifier);
        continue;
      }
      const stimuli = takeStimulusLinks(item, ref.file, resolve);
      let mapped = mapItem(item, { markdown });
      if (mapped.ok && mapped.images.length > 0) {
        const placed = await placeImages(ref.file, mapped.images, files, opts.assets, opts.dryRun ?? false);
        if (typeof placed === 'string') {
          skip(mapped.interaction, placed, identifier);
          continue;
        }
        mapped = mapItem(item, { markdown, imageText: (img) => placed.get(img.href) ?? img.alt });
      }
      if (!mapped.ok) {
        skip(mapped.interaction, mapped.reason, identifier);
        continue;
      }
      if (count >= 500) {
        skip(mapped.interaction, 'a test holds at most 500 questions', identifier);
        continue;
      }
      const problem = questionProblem(mapped.question);
      if (problem) {
        skip(mapped.interaction, `does not fit Assay's limits: ${problem}`, identifier);
        continue;
      }
      const passage = await reader.passageFor(stimuli);
      if (typeof passage === 'string') {
        skip(mapped.interaction, passage, identifier);
        continue;
      }
      const q = mapped.question;
      if (passage.passageId) q.passageId = passage.passageId;
      if (isPartId(identifier) && !usedIds.has(identifier)) {
        q.id = identifier;
        usedIds.add(identifier);
      }
      for (const n of mapped.notes) note(`${ref.file}: ${n}`);
      const itemLanguage = declaredLanguage(item);
      if (itemLanguage) itemLanguages.add(itemLanguage);
      questions.push(q);
      count++;
      report.items.push({ file: ref.file, identifier, title: item.attrs['title'] ?? '', questionId: q.id ?? null, type: q.type });
    }
    if (!g.section) {
      outSections.push({ title: '', questions });
      continue;
    }
    const sec: SectionInput = { ...g.section, questions };
    if (questions.length === 0) {
      if (g.refs.length > 0) note(`section "${sec.title}" has no importable item and was left out`);
      continue;
    }
    if (sec.draw !== undefined) {
      const points = new Set(questions.map((q) => q.points));
      if (points.size > 1) {
        // Assay's pools draw questions of equal points; importing it otherwise would change what candidates can score.
        for (const gone of report.items.splice(itemsStart, questions.length)) {
          report.skipped.push({ file: gone.file, identifier: gone.identifier, interaction: gone.type, reason: `section "${sec.title}" draws from items of unequal points, which Assay's pools cannot hold` });
        }
        count -= questions.length;
        continue;
      }
      if (sec.draw > questions.length) {
        note(`section "${sec.title}": draws ${questions.length} (every importable item) instead of ${sec.draw}`);
        sec.draw = questions.length;
      }
      if (skippedHere.length > 0) note(`section "${sec.title}": the pool draws from the imported items only`);
    }
    outSections.push(sec as SectionInput & { questions: QuestionInput[] });
  }
  report.imported = count;
  if (count === 0) return { input: null, report };

  const flat = outSections.length === 1 && outSections[0]!.title === '' && !outSections[0]!.draw && !outSections[0]!.shuffleQuestions;
  const all = outSections.flatMap((s) => s.questions);
  const sections = outSections.map((s, i) => ({ ...s, title: s.title || `Section ${i + 1}` }));
  const passages = reader.passagesUsed(all);
  if (!language && itemLanguages.size === 1) language = [...itemLanguages][0]!;
  else if (!language && itemLanguages.size > 1) note(`the items are written in several languages (${[...itemLanguages].sort().join(', ')}), so the test declares none`);
  const input: TestInput = {
    title: title.slice(0, 200),
    description: '',
    durationMinutes: maxTimeSeconds ? Math.min(1440, Math.max(1, Math.ceil(maxTimeSeconds / 60))) : 60,
    proctoring: 'none',
    ...settingsFor(all),
    ...(flat ? { questions: all } : { sections }),
    ...(passages.length > 0 ? { passages } : {}),
    ...(language ? { language } : {}),
    // Images are shown as Markdown (`![alt](asset:…)`): a test with any is a Markdown test, so they render (docs/content.md).
    ...(markdown || JSON.stringify([all, passages]).includes('](asset:') ? { contentFormat: 'markdown' as const } : {}),
  };
  return { input, report };
}

/**
 * Checks and stores an item's images; the text that stands for each in the
 * prompt, or why the item is skipped. Every image is checked before any is
 * stored (so a skipped item leaves no asset behind): present in the package,
 * a supported type whose bytes agree, alt text. An SVG is sanitised with the
 * content-assets code (scripts, event handlers, foreign content and external
 * links removed) and stored as sanitised. A dry run stores nothing.
 */
async function placeImages(
  itemFile: string,
  images: ImageRef[],
  files: Map<string, Uint8Array>,
  sink: AssetSink | undefined,
  dryRun: boolean,
): Promise<Map<string, string> | string> {
  const found: Array<{ img: ImageRef; path: string; type: string; bytes: Uint8Array }> = [];
  for (const img of images) {
    const path = resolve(itemFile, img.href);
    const bytes = path ? files.get(path) : undefined;
    if (!path || !bytes) return `image "${img.href}" is missing from the package`;
    const type = imageType(path);
    if (!type) return `"${img.href}" is not a supported image type (PNG, JPEG, GIF, WebP, SVG)`;
    if (!img.alt.trim()) return `image "${img.href}" has no alt text, which Assay requires`;
    const checked = checkImage(type, bytes);
    if (typeof checked === 'string') return `image "${img.href}" ${checked}`;
    found.push({ img, path, type, bytes: checked });
  }
  if (!sink && !dryRun) return 'images cannot be stored by this import';
  const out = new Map<string, string>();
  for (const f of found) {
    // A dry run's stand-in is a well-formed asset id, so a field that holds an image (a hotspot's `image`) checks as it will once stored.
    const assetId = dryRun || !sink ? 'ast_dryrun' : (await sink.store({ path: f.path, contentType: f.type, bytes: f.bytes })).assetId;
    out.set(f.img.href, `![${f.img.alt.replace(/[[\]\n]/g, ' ').replace(/\s+/g, ' ').trim()}](asset:${assetId})`);
  }
  return out;
}

/** An element's `xml:lang` as a canonical BCP 47 tag (`en-us` → `en-US`); null when absent or not well-formed. */
function declaredLanguage(el: XElement): string | null {
  // The parser drops namespace prefixes: `xml:lang` reads as `lang`.
  const raw = el.attrs['lang'] ?? el.attrs['xml:lang'];
  const tag = raw ? canonicalTag(raw) : null;
  return tag && tag.length <= LANGUAGE_MAX_CHARS ? tag : null;
}
