import type { AnswerValue } from '../attempts/answer-values.js';
import { mapItem } from '../catalog/interchange/qti-items.js';
import { parseXml } from '../catalog/interchange/xml.js';
import type { Question } from '../catalog/schemas.js';
import { markQuestion } from './auto-mark.js';

/**
 * For the tests of kept QTI processing: a QTI 3 item written in a line (its
 * SCORE declared, the declarations, body and processing given), the few
 * processing expressions they write, the item mapped through the import,
 * and a question's points for an answer.
 */
const NS = 'http://www.imsglobal.org/xsd/imsqtiasi_v3p0';
export const item = (id: string, decls: string, body: string, rp: string) =>
  `<qti-assessment-item xmlns="${NS}" identifier="${id}" title="${id}"><qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/>${decls}<qti-item-body>${body}</qti-item-body><qti-response-processing>${rp}</qti-response-processing></qti-assessment-item>`;
export const v = (s: string) => `<qti-variable identifier="${s}"/>`;
export const base = (t: string, s: string | number) => `<qti-base-value base-type="${t}">${s}</qti-base-value>`;
export const set = (expr: string) => `<qti-set-outcome-value identifier="SCORE">${expr}</qti-set-outcome-value>`;
export const when = (cond: string, then: string) => `<qti-response-condition><qti-response-if>${cond}${then}</qti-response-if></qti-response-condition>`;

/** The item as the import maps it, its id filled in; throws with the reason when it is skipped. */
export function imported(xml: string): Question {
  const mapped = mapItem(parseXml(xml, 'item.xml'));
  if (!mapped.ok) throw new Error(mapped.reason);
  return { ...mapped.question, id: mapped.question.id ?? 'q' } as Question;
}

/** The points the question gives the answer ('manual' when a person must mark it). */
export const points = (q: Question, a: AnswerValue) => {
  const m = markQuestion(q, a);
  return m.kind === 'auto' ? m.points : 'manual';
};
