import { descendants, elements, first, type XElement, type XNode } from './xml.js';

/**
 * Response processing as real item banks write it, brought to the plain
 * shapes response-processing.ts recognises, without changing the SCORE any
 * response earns:
 *
 * - statements that set an outcome other than SCORE and MAXSCORE (FEEDBACK,
 *   FEEDBACKBASIC, FEEDBACKMODAL, a rounded copy of the score shown in
 *   feedback, completionStatus…) are dropped, provided what is left never
 *   reads one of them: the score cannot depend on what was dropped;
 * - a condition left with no statement in any branch is dropped, as is an
 *   empty final `else`;
 * - `SCORE = SCORE + x` where SCORE still holds its default 0 is `SCORE = x`;
 * - a guard on an empty response (`if isNull(R) …`, `if not(isNull(R)) …`)
 *   that sets nothing or SCORE = 0 for the empty response is dropped when
 *   it is the whole processing: what remains gives 0 for an empty response
 *   as Assay does for an unanswered question (readProcessing only accepts
 *   a remainder of that kind).
 */
export interface Simplified {
  body: XElement[];
  /** The outcomes whose setting was dropped (feedback and the like), in order of first appearance. */
  dropped: string[];
  /** Whether an empty-response guard was taken away (the remainder must then score 0 for an empty response). */
  unguarded: boolean;
}

const KEPT = new Set(['SCORE', 'MAXSCORE']);
const el = (name: string, children: XNode[], attrs: Record<string, string> = {}): XElement => ({ name, attrs, children });
const BRANCHES = new Set(['qti-response-if', 'qti-response-else-if', 'qti-response-else']);
const hasCond = (b: XElement) => b.name !== 'qti-response-else';
/** A branch's statements (after its condition, if it has one). */
const stmtsOf = (b: XElement) => elements(b).slice(hasCond(b) ? 1 : 0);
const withStmts = (b: XElement, stmts: XElement[]) => el(b.name, hasCond(b) ? [elements(b)[0]!, ...stmts] : stmts, b.attrs);
const isVar = (e: XElement | undefined, id?: string) => e?.name === 'qti-variable' && (id === undefined || e.attrs['identifier'] === id);
const setsScore = (e: XElement | undefined) => e?.name === 'qti-set-outcome-value' && e.attrs['identifier'] === 'SCORE';
const isZero = (e: XElement | undefined) => {
  const v = e && elements(e)[0];
  return setsScore(e) && v?.name === 'qti-base-value' && Number(v.children.join('').trim()) === 0;
};

export function simplifyProcessing(item: XElement, rp: XElement): Simplified | string {
  const dropped: string[] = [];
  const strip = (stmts: XElement[]): XElement[] =>
    stmts.flatMap((s) => {
      if ((s.name === 'qti-set-outcome-value' || s.name === 'qti-lookup-outcome-value') && !KEPT.has(s.attrs['identifier'] ?? '')) {
        const id = s.attrs['identifier'] ?? '';
        if (!dropped.includes(id)) dropped.push(id);
        return [];
      }
      if (s.name !== 'qti-response-condition') return [s];
      const branches = elements(s).filter((b) => BRANCHES.has(b.name)).map((b) => withStmts(b, strip(stmtsOf(b))));
      // Trailing branches that do nothing are no-ops; an empty branch in the middle still stops the ones after it.
      while (branches.length > 0 && stmtsOf(branches.at(-1)!).length === 0) branches.pop();
      return branches.length === 0 ? [] : [el(s.name, branches, s.attrs)];
    });
  let body = strip(elements(rp));
  // The score must not read anything dropped.
  const read = new Set(body.flatMap((s) => [s, ...descendants(s)]).filter((e) => isVar(e)).map((e) => e.attrs['identifier'] ?? ''));
  const leaked = dropped.find((id) => read.has(id));
  if (leaked) return `the score depends on the outcome "${leaked}", which Assay does not keep`;

  // SCORE = SCORE + x while SCORE still holds its default (0): SCORE = x.
  const decl = elements(item, 'qti-outcome-declaration').find((o) => o.attrs['identifier'] === 'SCORE');
  const dv = decl && first(decl, 'qti-default-value');
  const defaultZero = !dv || Number(descendants(dv).find((e) => e.name === 'qti-value')?.children.join('').trim()) === 0;
  if (defaultZero) body = firstSums(body, false).stmts;

  // A guard on the empty response that is the whole processing.
  let unguarded = false;
  if (body.length === 1 && body[0]!.name === 'qti-response-condition' && defaultZero) {
    const branches = elements(body[0]!);
    const [b0, ...rest] = branches;
    const cond = b0 && hasCond(b0) ? elements(b0)[0] : undefined;
    const nothingOrZero = (b: XElement) => stmtsOf(b).length === 0 || (stmtsOf(b).length === 1 && isZero(stmtsOf(b)[0]));
    const nullOf = (c: XElement | undefined) => (c?.name === 'qti-is-null' && isVar(elements(c)[0]) ? elements(c)[0]!.attrs['identifier']! : null);
    const guarded = nullOf(cond);
    const notNull = cond?.name === 'qti-not' ? nullOf(elements(cond)[0]) : null;
    if (notNull && rest.length === 0) {
      // if not(isNull(R)) { … }: nothing happens for an empty response.
      body = stmtsOf(b0!);
      unguarded = true;
    } else if (guarded && nothingOrZero(b0!)) {
      const last = rest.at(-1);
      const mapGuard = rest.length === 1 && last!.name === 'qti-response-else' && stmtsOf(last!).length === 1 && elements(stmtsOf(last!)[0]!)[0]?.name === 'qti-map-response';
      if (mapGuard) {
        // The map_response template written out: keep its form (SCORE = 0 for the empty response).
        body = [el('qti-response-condition', [withStmts(b0!, [el('qti-set-outcome-value', [el('qti-base-value', ['0'], { 'base-type': 'float' })], { identifier: 'SCORE' })]), last!])];
      } else if (rest.length === 1 && last!.name === 'qti-response-else') {
        body = stmtsOf(last!);
        unguarded = true;
      } else if (rest.length > 0 && (last!.name !== 'qti-response-else' || nothingOrZero(last!))) {
        // if isNull(R) {} else-if c … : the rest, whose conditions are false for an empty response.
        const [head, ...tail] = rest;
        if (head!.name === 'qti-response-else-if') {
          body = [el('qti-response-condition', [el('qti-response-if', elements(head!), head!.attrs), ...tail])];
          unguarded = true;
        }
      }
    }
  }
  return { body, dropped, unguarded };
}

/** Rewrites the first setting of SCORE on each path, when it adds to SCORE, as a plain setting. */
function firstSums(stmts: XElement[], touched: boolean): { stmts: XElement[]; touched: boolean } {
  const out: XElement[] = [];
  for (const s of stmts) {
    if (setsScore(s)) {
      const v = elements(s)[0];
      const parts = v?.name === 'qti-sum' ? elements(v) : [];
      const others = parts.filter((p) => !isVar(p, 'SCORE'));
      if (!touched && parts.length >= 2 && others.length === parts.length - 1) {
        out.push(el(s.name, [others.length === 1 ? others[0]! : el('qti-sum', others, v!.attrs)], s.attrs));
      } else out.push(s);
      touched = true;
    } else if (s.name === 'qti-response-condition') {
      let any = false;
      const branches = elements(s).map((b) => {
        const r = firstSums(stmtsOf(b), touched);
        any ||= r.touched;
        return withStmts(b, r.stmts);
      });
      out.push(el(s.name, branches, s.attrs));
      touched ||= any;
    } else out.push(s);
  }
  return { stmts: out, touched };
}
