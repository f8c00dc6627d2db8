import { checkContent, contentAssetIds, type ContentProblem } from './render-content.js';
import type { MathBudget } from './math-limits.js';

/**
 * The content checks of one Markdown text — its problems (checkContent: every
 * formula through Temml, links, images) and the assets its images name
 * (contentAssetIds) — kept per text in-process, so a save that changed one
 * prompt of a 200-question test checks that prompt, not the 600 texts it
 * did not change (docs/authoring.md "How a save is checked").
 *
 * What a text's check depends on besides the text: the content format (only
 * Markdown texts are checked at all, and only they are kept), and the test's
 * budget for formulas (math-limits.ts), which its texts spend in order. A
 * kept check records what the text spends (formula characters and MathML
 * bytes, measured against a budget no text can exhaust), so it is reused
 * exactly when the budget left covers that spend: then no formula of the
 * text can meet the test's bound, and checkContent would find exactly the
 * kept problems while spending exactly the recorded amount. Otherwise (a test
 * past its bound) the text is checked afresh against the budget left. Whether
 * an image's asset exists is not part of a text's check: the callers look the
 * named assets up on every check (content-checks.ts).
 */
export interface TextChecks {
  /** checkContent(source, 'markdown', budget): its problems, with `budget` spent as checkContent spends it. */
  problems(source: string, budget?: MathBudget): readonly ContentProblem[];
  /** contentAssetIds(source, 'markdown'). */
  assetIds(source: string): readonly string[];
}

/** Every text checked afresh: what a check with nothing kept does (the tests compare the kept checks with it). */
export const freshTextChecks: TextChecks = {
  problems: (source, budget) => checkContent(source, 'markdown', budget),
  assetIds: (source) => contentAssetIds(source, 'markdown'),
};

/** One text's check as kept: its problems with no test budget in play, what it spends of one, its images' assets. */
export interface TextCheck {
  problems: ContentProblem[];
  chars: number;
  bytes: number;
  assetIds: string[];
}

/** More than a test may spend many times over, and exact in a double after any spend. */
const UNSPENDABLE = 2 ** 40;

/** Checks one Markdown text with nothing kept (the work a kept check saves, and what a worker-pool thread does). */
export function checkText(source: string): TextCheck {
  const budget: MathBudget = { chars: UNSPENDABLE, bytes: UNSPENDABLE };
  const problems = checkContent(source, 'markdown', budget);
  return { problems, chars: UNSPENDABLE - budget.chars, bytes: UNSPENDABLE - budget.bytes, assetIds: contentAssetIds(source, 'markdown') };
}

export interface KeptTextChecks extends TextChecks {
  /** The texts among `sources` with no kept check (each once). */
  missing(sources: Iterable<string>): string[];
  /** Keeps a check made elsewhere (a worker-pool thread's, by checkText). */
  keep(source: string, check: TextCheck): void;
  /** Texts kept, and their weight (characters of source and messages). */
  stats(): { texts: number; weight: number };
  clear(): void;
}

/**
 * A kept-checks store bounded by weight (the characters of the texts and of
 * their problems' messages). Out first when it is full: the oldest text not
 * read since it was last passed over (a second chance, as the CLOCK page
 * replacement gives: a read only marks the text, so a whole test's texts can
 * be read on every save without reordering the store). Kept checks are
 * frozen: callers read them, never change them.
 */
export function createTextChecks(maxWeight: number): KeptTextChecks {
  const kept = new Map<string, { check: TextCheck; weight: number; read: boolean }>();
  let weight = 0;
  const evict = () => {
    // Each text is passed over at most twice: once to clear its mark, once to go.
    let budget = 2 * kept.size;
    while (weight > maxWeight && kept.size > 1 && budget-- > 0) {
      const [oldest, entry] = kept.entries().next().value!;
      kept.delete(oldest);
      if (entry.read) {
        entry.read = false;
        kept.set(oldest, entry);
      } else weight -= entry.weight;
    }
  };
  const put = (source: string, check: TextCheck) => {
    const old = kept.get(source);
    if (old) {
      kept.delete(source);
      weight -= old.weight;
    }
    for (const p of check.problems) Object.freeze(p);
    Object.freeze(check.problems);
    Object.freeze(check.assetIds);
    const w = source.length + check.problems.reduce((n, p) => n + p.message.length + 16, 0) + check.assetIds.length * 32 + 64;
    kept.set(source, { check, weight: w, read: false });
    weight += w;
    evict();
    return check;
  };
  const get = (source: string): TextCheck => {
    const hit = kept.get(source);
    if (!hit) return put(source, checkText(source));
    hit.read = true;
    return hit.check;
  };
  return {
    problems(source, budget) {
      const check = get(source);
      if (!budget) return check.problems;
      if (budget.chars - check.chars >= 0 && budget.bytes - check.bytes >= 0) {
        budget.chars -= check.chars;
        budget.bytes -= check.bytes;
        return check.problems;
      }
      // The test's bound is met within this text: only checking it against what is left says where.
      return checkContent(source, 'markdown', budget);
    },
    assetIds: (source) => get(source).assetIds,
    missing(sources) {
      const out = new Set<string>();
      for (const s of sources) if (!kept.has(s)) out.add(s);
      return [...out];
    },
    keep(source, check) {
      put(source, check);
    },
    stats: () => ({ texts: kept.size, weight }),
    clear() {
      kept.clear();
      weight = 0;
    },
  };
}

/**
 * The process's kept checks: about 8 million characters of text (some
 * 16–40 MB), some eighty 500-question tests; each process (and each
 * worker-pool thread) keeps its own.
 */
export const TEXT_CHECKS_MAX_WEIGHT = 8_000_000;
export const textChecks: KeptTextChecks = createTextChecks(TEXT_CHECKS_MAX_WEIGHT);
