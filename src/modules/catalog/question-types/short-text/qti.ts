import { answerEntries, fullPointsText, normaliseText, type AnswerEntry } from '../../accepted-answers.js';
import { compileXsdPattern, xsdPatternProblem } from '../../xsd-pattern.js';
import type { ResponseDeclaration, TextBranch } from '../../interchange/response-processing.js';
import { allOrNothing, capped, declOf, mappingOf, promptOf, round, rpReason, type Ctx } from '../../interchange/qti-item-context.js';
import { base, score, template, type Decl, type TextWriter } from '../../interchange/qti-writer.js';
import { esc, type XElement } from '../../interchange/xml.js';
import type { ShortTextQuestion } from './schema.js';

type ShortTextInput = Omit<ShortTextQuestion, 'id'>;

/**
 * A string text entry as a short_text question: the declared correct
 * responses when marked by match (all or nothing, so case-sensitive), the
 * entries of a mapping, or the branches the export writes when an entry has
 * a pattern. The text entry interaction is read by qti-items.ts, which hands
 * a string response here (a number is a numeric question).
 */
export function readShortText(ctx: Ctx, it: XElement): ShortTextInput | string {
  const decl = declOf(ctx, it);
  if (typeof decl === 'string') return decl;
  if (decl.cardinality !== 'single') return 'a text entry with a multiple response cannot be expressed';
  const prompt = promptOf(ctx, it);
  if (decl.baseType !== 'string') return `a text entry of base type "${decl.baseType}" is not supported`;
  return readStringEntry(ctx, decl, prompt);
}

/** readShortText once the response is known to be a single string and the prompt is read (qti-items.ts reads both first). */
export function readStringEntry(ctx: Ctx, decl: ResponseDeclaration, prompt: string): ShortTextInput | string {
  const rp = ctx.rp;
  const aon = allOrNothing(rp);
  if (aon !== null) {
    if (decl.correct.length === 0) return 'the item declares no correct response';
    // match compares strings exactly: case-sensitive.
    return { type: 'short_text', prompt, points: aon as number, acceptedAnswers: decl.correct, caseSensitive: true };
  }
  if (rp.kind === 'text_branches') {
    if (rp.responseId !== decl.identifier) return `the response processing tests "${rp.responseId}", not this interaction's response`;
    return textEntryBranches(prompt, rp.branches, decl.correct);
  }
  if (rp.kind !== 'map_response') return rpReason(rp);
  const m = mappingOf(ctx, decl);
  if (typeof m === 'string') return m;
  if (m.defaultValue !== 0 || m.entries.some((e) => e.value < 0)) return 'a mapping that scores unlisted or wrong answers cannot be expressed';
  // mapResponse takes the first entry whose key matches, Assay the best: they differ only when an earlier entry worth less catches a later key.
  for (const [i, a] of m.entries.entries()) {
    const later = m.entries.slice(i + 1).find((b) => b.value > a.value && (a.caseSensitive && b.caseSensitive ? a.key === b.key : a.key.toLowerCase() === b.key.toLowerCase()));
    if (later) return `the mapping lists "${a.key}" (${a.value}) before "${later.key}" (${later.value}), which it also catches: QTI gives the first, Assay the best`;
  }
  const points = round(capped(m, Math.max(...m.entries.map((e) => e.value))));
  if (!(points > 0)) return 'the mapping accepts no answer';
  return shortText(prompt, points, m.entries.map((e) => ({ text: e.key, points: round(Math.min(points, e.value)), caseSensitive: e.caseSensitive, pattern: null })));
}

/** Branches (first match decides) as entries (best match decides): the same while each branch is worth no more than the one before. */
function textEntryBranches(prompt: string, branches: TextBranch[], correct: string[]): ShortTextInput | string {
  for (let i = 1; i < branches.length; i++) {
    if (branches[i]!.points > branches[i - 1]!.points) return 'text entry conditions worth more after ones worth less cannot be expressed (Assay gives the best matching answer)';
  }
  if (branches.some((b) => b.points < 0)) return 'a condition that takes points away cannot be expressed';
  const points = round(branches[0]!.points);
  if (!(points > 0)) return 'the response processing gives no answer any points';
  const entries: AnswerEntry[] = [];
  for (const b of branches) {
    if (b.pattern === null) {
      entries.push({ text: b.text, points: round(b.points), caseSensitive: b.caseSensitive, pattern: null });
      continue;
    }
    const problem = xsdPatternProblem(b.pattern);
    if (problem) return `the pattern ${b.pattern} ${problem}`;
    // An entry's text is its sample answer: the export's own, else a correct response the pattern accepts.
    const re = compileXsdPattern(b.pattern);
    const text = b.text ?? correct.find((c) => re.test(normaliseText(c, true)));
    if (text === undefined || !re.test(normaliseText(text, true))) return `no correct response matches the pattern ${b.pattern}, so it has no sample answer`;
    entries.push({ text, points: round(b.points), caseSensitive: true, pattern: b.pattern });
  }
  return shortText(prompt, points, entries);
}

/**
 * A short_text question in its plainest form: an entry worth the full points,
 * without a pattern and compared as the question compares (the first text
 * entry's case) is a plain string; others keep only what differs.
 */
function shortText(prompt: string, points: number, entries: AnswerEntry[]): ShortTextInput {
  const caseSensitive = entries.find((e) => e.pattern === null)?.caseSensitive ?? false;
  const acceptedAnswers = entries.map((e) => {
    if (e.pattern === null && e.points >= points && e.caseSensitive === caseSensitive) return e.text;
    return {
      text: e.text,
      ...(e.points < points ? { points: e.points } : {}),
      ...(e.pattern === null && e.caseSensitive !== caseSensitive ? { caseSensitive: e.caseSensitive } : {}),
      ...(e.pattern !== null ? { pattern: e.pattern } : {}),
    };
  });
  return { type: 'short_text', prompt, points, acceptedAnswers, caseSensitive };
}

/**
 * A string text entry declaring the sample answer. Best entry first: QTI
 * takes the first entry (or branch) that matches, Assay the best, and in this
 * order they agree. Without patterns, a mapping (map_response); with one, the
 * branches of textBranches.
 */
export function writeShortText(q: ShortTextQuestion, resp: string, w: TextWriter): { decls: Decl[]; body: string; rp: string } {
  const entries = answerEntries(q).sort((a, b) => b.points - a.points);
  const patterned = entries.some((e) => e.pattern !== null);
  const decls: Decl[] = [
    {
      id: resp,
      cardinality: 'single',
      baseType: 'string',
      correct: [fullPointsText(q)],
      ...(patterned ? {} : { mapping: { entries: entries.map((e) => ({ key: e.text, value: e.points, caseSensitive: e.caseSensitive })) } }),
    },
  ];
  const body = `${w.block(q.prompt)}<p><qti-text-entry-interaction response-identifier="${resp}"/></p>`;
  return { decls, body, rp: patterned ? textBranches(entries, resp) : template('map_response') };
}

/** As a composite's part: the mapped points added to SCORE, or the branches adding the best matching entry's. */
export function summedShortText(q: ShortTextQuestion, resp: string): string[] {
  const entries = answerEntries(q).sort((a, b) => b.points - a.points);
  if (entries.some((e) => e.pattern !== null)) return [textBranches(entries, resp, true)];
  return [score(`<qti-sum><qti-variable identifier="SCORE"/><qti-map-response identifier="${esc(resp)}"/></qti-sum>`)];
}

/**
 * Short-text entries when one has a pattern (a mapping cannot hold one): one
 * condition whose branches, best first, test each entry — stringMatch for a
 * text; for a pattern, patternMatch or'd with a stringMatch of its text,
 * which the pattern matches anyway (authoring checks it) and which carries
 * the sample answer back — and set its points; else 0. The importer
 * reads this form back (response-processing.ts, `text_branches`).
 */
function textBranches(entries: AnswerEntry[], resp: string, addToScore = false): string {
  const v = `<qti-variable identifier="${esc(resp)}"/>`;
  const branches = entries.map((e, i) => {
    const tag = i === 0 ? 'qti-response-if' : 'qti-response-else-if';
    const cond =
      e.pattern !== null
        ? `<qti-or><qti-pattern-match pattern="${esc(e.pattern)}">${v}</qti-pattern-match><qti-string-match case-sensitive="true">${v}${base('string', e.text)}</qti-string-match></qti-or>`
        : `<qti-string-match case-sensitive="${e.caseSensitive}">${v}${base('string', e.text)}</qti-string-match>`;
    const set = addToScore ? score(`<qti-sum><qti-variable identifier="SCORE"/>${base('float', e.points)}</qti-sum>`) : score(base('float', e.points));
    return `      <${tag}>${cond}${set}</${tag}>\n`;
  });
  // Added to SCORE (a composite's part): one condition, no else; else the item's whole processing.
  if (addToScore) return `<qti-response-condition>\n${branches.join('')}    </qti-response-condition>`;
  return (
    `  <qti-response-processing>\n    <qti-response-condition>\n${branches.join('')}` +
    `      <qti-response-else>${score(base('float', 0))}</qti-response-else>\n    </qti-response-condition>\n  </qti-response-processing>\n`
  );
}
