import fs from 'node:fs';
import path from 'node:path';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { contentFields } from '../../src/modules/catalog/content/content-checks.js';

/**
 * Random tests and random edits of them, for comparing the kept checks with
 * checks made afresh (src/modules/catalog/content/text-checks.test.ts, test/catalog/incremental-save.test.ts). Seeded:
 * a failure names its seed and step, and the same seed makes the same walk.
 *
 * The questions come from the documented examples (docs/examples/tests: every
 * type), their texts are replaced by texts with what the content checks look
 * at (formulas good and bad, formulas over a bound, images of assets that
 * exist, do not exist yet or are uploaded later, links, MathML, raw HTML), and
 * the edits are what an editor does: change a text, add, remove, move and
 * duplicate questions, sections and passages, name passages, set pools,
 * change the marking or the content format, translate, upload an asset.
 */
export type Rng = () => number;

/** mulberry32: small, fast, and the same sequence everywhere for a seed. */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
export const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: Rng, n: number) => Math.floor(r() * n);

type Q = Record<string, unknown> & { id: string; type: string };
export type Draft = TestInput & Record<string, unknown>;

const EXAMPLES = path.resolve(import.meta.dirname, '../../docs/examples/tests');
/** Every question of the documented examples (all types), as templates. */
export const TEMPLATES: readonly Q[] = fs
  .readdirSync(EXAMPLES)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .flatMap((f) => {
    const t = JSON.parse(fs.readFileSync(path.join(EXAMPLES, f), 'utf8')) as { questions?: Q[]; sections?: Array<{ questions: Q[] }> };
    return t.questions ?? (t.sections ?? []).flatMap((s) => s.questions);
  });

/** Assets that exist from the start, and assets a walk uploads on its way (named by texts before they exist). */
export const ASSETS_AT_START = ['ast_heartdiagram', 'ast_chart1'];
export const ASSETS_LATER = ['ast_later1', 'ast_later2'];
const ALL_ASSETS = [...ASSETS_AT_START, ...ASSETS_LATER, 'ast_never'];

/** One formula text near the per-field bound on MathML: seven such formulas take 7,000 of the test's 100,000 characters. */
export const heavyText = (k: number): string =>
  Array.from({ length: 7 }, (_, j) => {
    const term = `x_{${k}}+y^{${j}}+`;
    return `$${term.repeat(Math.floor(979 / term.length))}z$`;
  }).join('\n\n');

/** A text for any content field: what the content checks tell apart. */
export function randomText(r: Rng, n: number): string {
  switch (int(r, 16)) {
    case 0:
      return `Plain words, number ${n}.`;
    case 1:
      return `Solve $x^${int(r, 9)} = ${n}$ for **x**.`;
    case 2:
      return `Simplify\n\n$$\\frac{${n}}{${int(r, 50) + 1}} + \\sqrt{${int(r, 99)}}$$`;
    case 3:
      return `Why is $\\frac{1$ not a formula? (${n})`;
    case 4:
      return `A macro: $\\def\\x{${n}}\\x$`;
    case 5:
      return `Too wide: $\\kern{${20 + int(r, 5)}em}x$`;
    case 6:
      return `![A chart of case ${n}](asset:${pick(r, ALL_ASSETS)})`;
    case 7:
      return `No alt text: ![](asset:${pick(r, ALL_ASSETS)})`;
    case 8:
      return `![A picture](https://example.com/${n}.png) from elsewhere`;
    case 9:
      return `[Read this](http://example.com/${n}) and [that](https://example.com/${n})`;
    case 10:
      return `<b>raw</b> HTML and <math><mi>x</mi><mo>+</mo><mn>${n}</mn></math>`;
    case 11:
      return `| a | b |\n|---|---|\n| $${n}$ | ![Table picture](asset:${pick(r, ALL_ASSETS)}) |`;
    case 12:
      return `Two of the same: $y = ${n % 3}$`;
    case 13:
      return `- first $a_${n % 4}$\n- second`;
    case 14:
      return `Code \`$not math$\` and $$\n${n}\n$$`;
    default:
      return `Text ${n} with a formula $\\alpha_{${n % 7}}$ and an image ![Diagram ${n % 5}](asset:${pick(r, ALL_ASSETS)})`;
  }
}

const clone = <T>(v: T): T => structuredClone(v);

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  let at: unknown = target;
  for (const k of keys.slice(0, -1)) at = (at as Record<string, unknown>)[k];
  (at as Record<string, unknown>)[keys.at(-1)!] = value;
}

/** The questions of a draft, each with the list that holds it. */
function allQuestions(d: Draft): Array<{ list: Q[]; i: number; q: Q }> {
  const lists = (d.sections ? d.sections.map((s) => s.questions) : [d.questions ?? []]) as Q[][];
  return lists.flatMap((list) => list.map((q, i) => ({ list, i, q })));
}

export interface Walk {
  r: Rng;
  /** The assets that exist now. */
  assets: Set<string>;
  /** A counter for fresh ids and texts. */
  n: number;
}

export function startWalk(seed: number): Walk {
  return { r: rng(seed), assets: new Set(ASSETS_AT_START), n: 0 };
}

function newQuestion(w: Walk): Q {
  const q = clone(pick(w.r, TEMPLATES));
  q.id = `q${++w.n}`;
  if (w.r() < 0.5) q.prompt = randomText(w.r, w.n);
  return q;
}

/** A test to start from: `size` questions (`heavy` of them with formulas near the bounds), flat or in sections, Markdown most of the time. */
export function randomDraft(w: Walk, size: number, heavy = 0): Draft {
  const questions = Array.from({ length: size }, (_, i) => {
    const q = newQuestion(w);
    if (i < heavy) q.prompt = heavyText(w.n);
    return q;
  });
  const d: Draft = {
    title: `Walk ${w.n}`,
    description: 'Random edits',
    durationMinutes: 30,
    proctoring: 'none',
    marking: 'hybrid',
    resultVisibility: 'after_review',
    passPercent: null,
    contentFormat: w.r() < 0.8 ? 'markdown' : 'plain',
    passages: [{ id: 'p1', title: 'Passage one', text: randomText(w.r, ++w.n) }],
  } as Draft;
  if (w.r() < 0.5) d.questions = questions as never;
  else {
    const cut = int(w.r, size);
    d.sections = [
      { id: 's1', title: 'First', instructions: randomText(w.r, ++w.n), questions: questions.slice(0, cut) as never },
      { id: 's2', title: 'Second', questions: questions.slice(cut) as never },
    ];
  }
  return d;
}

type Edit = (d: Draft, w: Walk) => string;

const EDITS: Array<[weight: number, edit: Edit]> = [
  // A text of a question changed (the autosave's usual case).
  [30, (d, w) => {
    const all = allQuestions(d);
    if (all.length === 0) return 'no question to change';
    const { q } = pick(w.r, all);
    const fields = contentFields({ contentFormat: 'markdown', questions: [q] } as never as TestInput).map((f) => f.field.replace(/^questions\.0\./, ''));
    const field = pick(w.r, fields);
    setPath(q, field, randomText(w.r, ++w.n));
    return `changed ${q.id}.${field}`;
  }],
  [8, (d, w) => {
    const list = pick(w.r, (d.sections ? d.sections.map((s) => s.questions) : [d.questions ?? []]) as Q[][]);
    list.splice(int(w.r, list.length + 1), 0, newQuestion(w));
    return 'added a question';
  }],
  [6, (d, w) => {
    const all = allQuestions(d);
    if (all.length < 2) return 'kept the last question';
    const { list, i } = pick(w.r, all);
    list.splice(i, 1);
    return 'removed a question';
  }],
  [6, (d, w) => {
    const all = allQuestions(d);
    if (all.length < 2) return 'nothing to move';
    const from = pick(w.r, all);
    from.list.splice(from.i, 1);
    const to = pick(w.r, allQuestions(d)).list;
    to.splice(int(w.r, to.length + 1), 0, from.q);
    return `moved ${from.q.id}`;
  }],
  [2, (d, w) => {
    const all = allQuestions(d);
    if (all.length < 2) return 'no id to copy';
    pick(w.r, all).q.id = pick(w.r, all).q.id;
    return 'gave a question another one\'s id';
  }],
  [3, (d, w) => {
    const all = allQuestions(d);
    if (all.length === 0) return 'no question';
    const { q } = pick(w.r, all);
    q.points = pick(w.r, [1, 2, 5]);
    return `points of ${q.id}`;
  }],
  // Sections.
  [3, (d, w) => {
    if (d.sections) {
      d.questions = d.sections.flatMap((s) => s.questions);
      delete d.sections;
      return 'made the test flat';
    }
    const qs = d.questions ?? [];
    delete d.questions;
    d.sections = [{ id: `s${++w.n}`, title: 'All', questions: qs }];
    return 'put the questions in a section';
  }],
  [3, (d, w) => {
    if (!d.sections) return 'no sections';
    d.sections.splice(int(w.r, d.sections.length + 1), 0, { id: w.r() < 0.8 ? `s${++w.n}` : d.sections[0]!.id, title: 'Added', instructions: randomText(w.r, ++w.n), questions: [newQuestion(w) as never] });
    return 'added a section';
  }],
  [2, (d, w) => {
    if (!d.sections || d.sections.length < 2) return 'kept the last section';
    d.sections.splice(int(w.r, d.sections.length), 1);
    return 'removed a section';
  }],
  [2, (d, w) => {
    if (!d.sections || d.sections.length < 2) return 'one section';
    const [s] = d.sections.splice(int(w.r, d.sections.length), 1);
    d.sections.splice(int(w.r, d.sections.length + 1), 0, s!);
    return 'moved a section';
  }],
  [3, (d, w) => {
    if (!d.sections) return 'no sections';
    const s = pick(w.r, d.sections);
    s.instructions = randomText(w.r, ++w.n);
    return `instructions of ${s.id}`;
  }],
  [3, (d, w) => {
    if (!d.sections) return 'no pools';
    const s = pick(w.r, d.sections);
    if (w.r() < 0.3) delete s.draw;
    else s.draw = 1 + int(w.r, s.questions.length + 1);
    return `pool of ${s.id}`;
  }],
  // Passages.
  [3, (d, w) => {
    d.passages = [...(d.passages ?? []), { id: w.r() < 0.8 ? `p${++w.n}` : 'p1', text: randomText(w.r, ++w.n) }];
    return 'added a passage';
  }],
  [2, (d, w) => {
    if (!d.passages?.length) return 'no passage';
    d.passages.splice(int(w.r, d.passages.length), 1);
    return 'removed a passage';
  }],
  [3, (d, w) => {
    if (!d.passages?.length) return 'no passage';
    pick(w.r, d.passages).text = randomText(w.r, ++w.n);
    return 'changed a passage';
  }],
  [4, (d, w) => {
    const all = allQuestions(d);
    if (all.length === 0) return 'no question';
    const { q } = pick(w.r, all);
    if (q.type === 'composite') return 'composite';
    const ids = [...(d.passages ?? []).map((p) => p.id), 'p_missing'];
    if (w.r() < 0.25) delete q.passageId;
    else q.passageId = pick(w.r, ids);
    return `passage of ${q.id}`;
  }],
  // The whole test's settings.
  [3, (d, w) => {
    d.contentFormat = d.contentFormat === 'markdown' ? 'plain' : 'markdown';
    return `content format ${d.contentFormat}`;
  }],
  [3, (d, w) => {
    d.marking = pick(w.r, ['auto', 'manual', 'hybrid'] as const);
    d.resultVisibility = w.r() < 0.7 ? (d.marking === 'auto' ? 'immediate' : 'after_review') : pick(w.r, ['immediate', 'after_review'] as const);
    return `marking ${d.marking}`;
  }],
  // Translations.
  [4, (d, w) => {
    const all = allQuestions(d);
    const locale = pick(w.r, ['fr', 'de', 'pt-br', 'en']);
    const t = ((d.translations ??= {})[locale] ??= {}) as Record<string, Record<string, unknown>>;
    const roll = w.r();
    if (roll < 0.6 && all.length > 0) ((t.questions ??= {})[pick(w.r, all).q.id] = { prompt: randomText(w.r, ++w.n) });
    else if (roll < 0.8 && d.passages?.length) ((t.passages ??= {})[pick(w.r, d.passages).id] = { text: randomText(w.r, ++w.n) });
    else if (d.sections) ((t.sections ??= {})[pick(w.r, d.sections).id ?? 'none'] = { instructions: randomText(w.r, ++w.n) });
    return `translated into ${locale}`;
  }],
  [1, (d) => {
    delete d.translations;
    return 'dropped the translations';
  }],
  // An asset uploaded: texts that named it lose their problem, though none of them changed.
  [3, (_d, w) => {
    const later = ASSETS_LATER.filter((a) => !w.assets.has(a));
    if (later.length === 0) return 'every asset uploaded';
    const a = pick(w.r, later);
    w.assets.add(a);
    return `uploaded ${a}`;
  }],
];
const TOTAL = EDITS.reduce((n, [weight]) => n + weight, 0);

/** One random edit of `d` (in place), or an asset uploaded; says what it did. */
export function randomEdit(d: Draft, w: Walk): string {
  let roll = w.r() * TOTAL;
  for (const [weight, edit] of EDITS) {
    roll -= weight;
    if (roll < 0) return edit(d, w);
  }
  return EDITS.at(-1)![1](d, w);
}

/** Adds `count` questions whose prompts are formulas near the bounds, or makes one of them light again. */
export function heavyEdit(d: Draft, w: Walk): string {
  const all = allQuestions(d);
  const heavy = all.filter(({ q }) => typeof q.prompt === 'string' && q.prompt.startsWith('$x_'));
  if (heavy.length > 0 && w.r() < 0.35) {
    pick(w.r, heavy).q.prompt = randomText(w.r, ++w.n);
    return 'made a heavy prompt light';
  }
  const list = pick(w.r, (d.sections ? d.sections.map((s) => s.questions) : [d.questions ?? []]) as Q[][]);
  const q = newQuestion(w);
  q.prompt = heavyText(w.n);
  list.splice(int(w.r, list.length + 1), 0, q);
  return 'added a heavy question';
}
