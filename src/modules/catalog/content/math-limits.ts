/**
 * Bounds on formulas. Temml runs synchronously on the one
 * event loop, so the only time bound is a structural one: every bound below
 * keeps the worst formula, field and test cheap to check and to render
 * (docs/content.md "Bounds on formulas" has the measured worst cases).
 *
 * - No user-defined macros: with `\def` and its kin an author multiplies
 *   output without limit (a 1 KB source gave 3 MB of MathML), and no test or
 *   document uses them. Without them, output grows linearly with the source.
 * - Source and MathML per formula, formulas and MathML per field, formula
 *   source and MathML per test (the budget that a page, rendered once per
 *   version, shares): over one, authoring refuses the field, and rendering
 *   shows the formula's source as code instead of rendering it.
 * - Sizes (`\kern`, `\hspace`, `\rule`, `\raisebox`, `\mkern`, …) at most
 *   MAX_SIZE_EM either way, so a formula cannot cover the page: authoring
 *   refuses more, rendering clamps (Temml's own `maxSize` clamps positive
 *   sizes only).
 */
export const MATH_LIMITS = Object.freeze({
  /** Characters of one formula's TeX source. */
  formulaChars: 1_000,
  /** Bytes of one formula's MathML (with its TeX annotation). */
  formulaBytes: 32 * 1024,
  /** Formulas in one field (a prompt, an option, …). */
  fieldFormulas: 100,
  /** Bytes of MathML of one field's formulas together. */
  fieldBytes: 64 * 1024,
  /** Characters of formula source in one test, every field together. */
  testChars: 100_000,
  /** Bytes of MathML of one test, every field together. */
  testBytes: 1024 * 1024,
  /** Macro expansions in one formula (Temml's `maxExpand`); the built-in macros only, a few each. */
  maxExpand: 300,
  /** Characters of one MathML element written in a text (`<math>…</math>`, content/mathml.ts). */
  mathmlChars: 32 * 1024,
  /** How deep the elements of one MathML element may nest. */
  mathmlDepth: 32,
  /** The largest size (width, height, depth, offset, space) in em, either way. */
  maxSizeEm: 10,
});

/** What a test (or a rendered version) may still spend on formulas; shared by its fields. */
export interface MathBudget {
  chars: number;
  bytes: number;
  /** Whether a check has already named the field where the budget ran out. */
  reported?: boolean;
}

export const testMathBudget = (scale = 1): MathBudget => ({ chars: MATH_LIMITS.testChars * scale, bytes: MATH_LIMITS.testBytes * scale });

/** The commands that define macros (Temml's `\def` family): refused. `\long` and `\global` only prefix a definition. */
const DEFINITION = /\\(def|gdef|edef|xdef|let|futurelet|newcommand|renewcommand|providecommand|global|long)(?![A-Za-z@])/;

export function macroDefinition(tex: string): string | null {
  const m = DEFINITION.exec(tex);
  return m ? `\\${m[1]}` : null;
}

/** Points per unit of the units Temml writes into MathML (it turns ex and mu into em). */
const PT_PER: Record<string, number> = { pt: 1, pc: 12, in: 72, cm: 72 / 2.54, mm: 72 / 25.4, px: 0.75 };
/** 1em taken as 10pt, as Temml does. */
const PT_PER_EM = 10;
const SIZE = /([-+]?)(\d*\.?\d+)(em|pt|pc|in|cm|mm|px)\b/g;
const ATTRIBUTE_VALUE = /(\s[a-zA-Z-]+=")([^"]*)"/g;

function limitIn(unit: string): number {
  return unit === 'em' ? MATH_LIMITS.maxSizeEm : (MATH_LIMITS.maxSizeEm * PT_PER_EM) / PT_PER[unit]!;
}

/** The first size in the MathML's attributes (and inline styles) beyond the bound, as written, or null. */
export function oversize(mathml: string): string | null {
  for (const attr of mathml.matchAll(ATTRIBUTE_VALUE)) {
    for (const m of attr[2]!.matchAll(SIZE)) {
      if (Number(m[2]) > limitIn(m[3]!)) return `${m[1]}${m[2]}${m[3]}`;
    }
  }
  return null;
}

/** The MathML with every size in its attributes brought within the bound, keeping its sign and unit. Text and the TeX annotation are element content, untouched. */
export function clampSizes(mathml: string): string {
  const clamp = (size: string, sign: string, n: string, unit: string) => (Number(n) > limitIn(unit) ? `${sign}${limitIn(unit)}${unit}` : size);
  return mathml.replace(ATTRIBUTE_VALUE, (_whole, open: string, value: string) => `${open}${value.replace(SIZE, clamp)}"`);
}
