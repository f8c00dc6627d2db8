import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, posix, relative, resolve, sep } from 'node:path';
import { unzipSync } from 'fflate';
import { AppError } from '../src/platform/errors.js';
import { importQtiPackage, MANIFEST } from '../src/modules/catalog/interchange/qti-package.js';
import { checkImportedTest } from '../src/modules/catalog/interchange/test-input.js';
import { descendants, first, parseXml, type XElement } from '../src/modules/catalog/interchange/xml.js';
import { writeZip } from '../src/modules/catalog/interchange/zip.js';

/**
 * How much of a corpus of real QTI packages the import keeps: every package
 * (a folder holding imsmanifest.xml, or a .zip) and every loose item file
 * under the folders given is run through the import itself as a dry run
 * (importQtiPackage, then the whole-test check), and the items are counted
 * by interaction and by skip reason. An item met several times (a package's
 * folder and its zip, or the same file in two packages) counts once, with
 * its best outcome. No database is needed.
 *
 *   npx tsx scripts/qti-corpus.ts /path/to/corpus [more folders…] [--list]
 *
 * `--list` prints every item with its outcome as well.
 */
type Outcome = { kind: 'imported'; type: string } | { kind: 'skipped'; reason: string };
interface ItemResult {
  source: string;
  interaction: string;
  outcome: Outcome;
}

const ITEM_ROOTS = new Set(['qti-assessment-item']);
const results = new Map<string, ItemResult>();
const refusedPackages: Array<{ source: string; message: string }> = [];
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The interaction label the import uses (`choice-interaction`, `text-entry-interaction+inline-choice-interaction`). */
function interactionOf(item: XElement): string {
  const body = first(item, 'qti-item-body');
  if (!body) return 'none';
  const kinds = [...new Set(descendants(body).filter((e) => e.name.endsWith('-interaction')).map((e) => e.name.replace(/^qti-/, '')))];
  return kinds.join('+') || 'none';
}

function parseItem(bytes: Uint8Array, file: string): XElement | null {
  try {
    const x = parseXml(bytes, file);
    return ITEM_ROOTS.has(x.name) ? x : null;
  } catch {
    return null;
  }
}

/** Outcomes rank: an import beats a skip for the item's own reasons, which beats a skip for the package's. */
const rank = (o: Outcome) => (o.kind === 'imported' ? 3 : /not used by the assessment test|used twice|outside the package|missing from the package/.test(o.reason) ? 1 : 2);

function record(hash: string, r: ItemResult) {
  const had = results.get(hash);
  if (!had || rank(r.outcome) > rank(had.outcome)) results.set(hash, r);
}

/** Imports one package (its files by path) as a dry run and records each item file's outcome. */
async function runPackage(source: string, files: Map<string, Uint8Array>) {
  const zip = writeZip([...files].map(([path, data]) => ({ path, data })));
  let imported;
  try {
    imported = await importQtiPackage(zip, { dryRun: true });
  } catch (err) {
    const message = err instanceof AppError ? err.message : String(err);
    refusedPackages.push({ source, message });
    // Every item file of a refused package is lost with it.
    for (const [path, bytes] of files) {
      if (!path.endsWith('.xml')) continue;
      const item = parseItem(bytes, path);
      if (item) record(sha(bytes), { source: `${source}:${path}`, interaction: interactionOf(item), outcome: { kind: 'skipped', reason: `package refused: ${message.replace(/^[^:]*: /, '')}` } });
    }
    return;
  }
  const { input, report } = imported;
  let wholeTest: string | null = null;
  if (input) {
    try {
      checkImportedTest(input);
    } catch (err) {
      wholeTest = err instanceof AppError ? `the whole-test check refused the test: ${err.message}` : String(err);
    }
  }
  for (const it of report.items) {
    const bytes = files.get(it.file);
    if (!bytes) continue;
    const item = parseItem(bytes, it.file);
    record(sha(bytes), {
      source: `${source}:${it.file}`,
      interaction: item ? interactionOf(item) : '-',
      outcome: wholeTest ? { kind: 'skipped', reason: wholeTest } : { kind: 'imported', type: it.type },
    });
  }
  for (const s of report.skipped) {
    const bytes = files.get(s.file);
    if (!bytes) continue;
    const item = parseItem(bytes, s.file);
    if (!item) continue;
    record(sha(bytes), { source: `${source}:${s.file}`, interaction: interactionOf(item), outcome: { kind: 'skipped', reason: s.reason } });
  }
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) walk(p, out);
    else if (st.isFile()) out.push(p);
  }
  return out;
}

const toPosix = (p: string) => p.split(sep).join('/');

/** A loose item as a package of its own: a manifest naming it, and the files its body refers to. */
function loosePackage(root: string, file: string, bytes: Uint8Array): Map<string, Uint8Array> {
  const rel = toPosix(relative(root, file));
  const files = new Map<string, Uint8Array>([[rel, bytes]]);
  const text = new TextDecoder().decode(bytes);
  for (const m of text.matchAll(/\b(?:src|data|href)="([^"#?:]+)"/g)) {
    const target = resolve(dirname(file), decodeURIComponent(m[1]!));
    const inside = toPosix(relative(root, target));
    if (inside.startsWith('../') || files.has(inside)) continue;
    try {
      if (statSync(target).isFile()) files.set(inside, readFileSync(target));
    } catch {
      // A missing file: the import reports it.
    }
  }
  const manifest = `<?xml version="1.0" encoding="UTF-8"?>
<manifest xmlns="http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1" identifier="corpus">
  <resources><resource identifier="item" type="imsqti_item_xmlv3p0" href="${rel.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"/></resources>
</manifest>`;
  files.set(MANIFEST, new TextEncoder().encode(manifest));
  return files;
}

async function main() {
  const args = process.argv.slice(2);
  const list = args.includes('--list');
  const roots = args.filter((a) => a !== '--list').map((a) => resolve(a));
  if (roots.length === 0) {
    console.error('usage: npx tsx scripts/qti-corpus.ts <folder>… [--list]');
    process.exit(2);
  }
  let packages = 0;
  const looseCandidates: Array<{ root: string; file: string }> = [];
  for (const root of roots) {
    const all = walk(root);
    const packageDirs = all.filter((f) => f.endsWith(`${sep}${MANIFEST}`)).map((f) => dirname(f));
    for (const dir of packageDirs) {
      const files = new Map<string, Uint8Array>();
      for (const f of walk(dir)) if (!f.endsWith('.zip')) files.set(toPosix(relative(dir, f)), readFileSync(f));
      packages++;
      await runPackage(toPosix(join(basename(root), relative(root, dir))), files);
    }
    for (const f of all.filter((p) => p.endsWith('.zip'))) {
      let files: Map<string, Uint8Array>;
      try {
        files = new Map(Object.entries(unzipSync(readFileSync(f))).filter(([p]) => !p.endsWith('/') && !p.startsWith('__MACOSX/')));
      } catch {
        continue;
      }
      const source = toPosix(join(basename(root), relative(root, f)));
      // A zip that wraps its package in a folder: the folder holding the manifest is the package.
      const manifestPath = [...files.keys()].filter((p) => p === MANIFEST || p.endsWith(`/${MANIFEST}`)).sort((a, b) => a.length - b.length)[0];
      if (manifestPath) {
        const base = manifestPath.slice(0, -MANIFEST.length);
        const inner = new Map([...files].filter(([p]) => p.startsWith(base)).map(([p, b]) => [p.slice(base.length), b] as const));
        packages++;
        await runPackage(source, inner);
      } else {
        for (const [p, b] of files) if (p.endsWith('.xml') && parseItem(b, p)) looseCandidates.push({ root: '', file: `${f}!${p}` });
      }
    }
    for (const f of all.filter((p) => p.endsWith('.xml'))) looseCandidates.push({ root, file: f });
  }
  // Items not met in any package, one package each.
  for (const c of looseCandidates) {
    let bytes: Uint8Array;
    let root = c.root;
    let file = c.file;
    if (c.file.includes('.zip!')) {
      const [zipFile, inner] = c.file.split('!') as [string, string];
      bytes = unzipSync(readFileSync(zipFile))[inner]!;
      root = dirname(zipFile);
      file = join(root, posix.basename(inner));
    } else bytes = readFileSync(c.file);
    if (results.has(sha(bytes)) || !parseItem(bytes, c.file)) continue;
    await runPackage(toPosix(join(basename(root), relative(root, file))), loosePackage(root, file, bytes));
  }

  const rows = [...results.values()];
  const imported = rows.filter((r) => r.outcome.kind === 'imported').length;
  const byInteraction = new Map<string, { found: number; imported: number }>();
  const byReason = new Map<string, number>();
  for (const r of rows) {
    const e = byInteraction.get(r.interaction) ?? { found: 0, imported: 0 };
    e.found++;
    if (r.outcome.kind === 'imported') e.imported++;
    else {
      const reason = r.outcome.reason.replace(/"[^"]*"/g, '"…"').replace(/\b\d+(\.\d+)?\b/g, 'N');
      byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
    }
    byInteraction.set(r.interaction, e);
  }
  const pct = (a: number, b: number) => (b === 0 ? '-' : `${Math.round((100 * a) / b)} %`);
  console.log(`Packages read: ${packages} (refused whole: ${refusedPackages.length}); distinct items found: ${rows.length}\n`);
  console.log('| Interaction | Found | Imported | Skipped | Imported % |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [k, v] of [...byInteraction].sort((a, b) => b[1].found - a[1].found || a[0].localeCompare(b[0]))) {
    console.log(`| ${k} | ${v.found} | ${v.imported} | ${v.found - v.imported} | ${pct(v.imported, v.found)} |`);
  }
  console.log(`| **Total** | **${rows.length}** | **${imported}** | **${rows.length - imported}** | **${pct(imported, rows.length)}** |\n`);
  console.log('| Skip reason | Items |');
  console.log('|---|---:|');
  for (const [k, v] of [...byReason].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) console.log(`| ${k.replace(/\|/g, '\\|')} | ${v} |`);
  if (refusedPackages.length > 0) {
    console.log('\nPackages refused whole:');
    for (const p of refusedPackages) console.log(`- ${p.source}: ${p.message}`);
  }
  if (list) {
    console.log('\nItems:');
    for (const r of rows.sort((a, b) => a.source.localeCompare(b.source))) {
      console.log(`- ${r.source} [${r.interaction}] ${r.outcome.kind === 'imported' ? `imported as ${r.outcome.type}` : `skipped: ${r.outcome.reason}`}`);
    }
  }
}

await main();
