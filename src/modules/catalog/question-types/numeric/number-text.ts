const NUMBER_TEXT = /^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$/;

/** Parses what a student typed into a numeric field; null when it is not a plain decimal number (dot or comma, optional exponent, no thousands separators). */
export function parseNumericAnswer(text: string): number | null {
  const t = text.trim().replace(/\s+/g, '');
  if (!NUMBER_TEXT.test(t)) return null;
  const n = Number(t.replace(',', '.'));
  return Number.isFinite(n) ? n : null;
}

/** Within `tolerance` of the answer, inclusive; a relative 1e-9 slack absorbs binary floating point (3.145 vs 3.14 ± 0.005 is right). */
export function withinTolerance(value: number, answer: number, tolerance: number): boolean {
  const slack = 1e-9 * Math.max(1, Math.abs(answer));
  return Math.abs(value - answer) <= tolerance + slack;
}
