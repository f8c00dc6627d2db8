import { Type } from '@sinclair/typebox';
import { defineQuestionType } from '../definition.js';
import { uniqueIds } from '../unique-ids.js';
import { orderingPage, orderingReview } from './page.js';
import { readOrdering, summedOrdering, writeOrdering } from './qti.js';
import { Ordering, type OrderingQuestion } from './schema.js';

/**
 * ordering: `{ items, partialCredit? }`, the items listed in the correct
 * order; the candidate first sees them in a drawn order that is never the
 * correct one (the delivery's itemOrder, through `shuffledItems`). The
 * answer is every item id once, in the candidate's order. Marked all items
 * in place or 0 (the default); with partialCredit, points × items in their
 * correct place ÷ items.
 */
export const orderingType = defineQuestionType<OrderingQuestion>({
  type: 'ordering',
  label: 'Ordering',
  schema: Ordering,
  part: { title: 'OrderingPart' },
  autoMarkable: true,

  check(q, at, details) {
    uniqueIds(q.items, `${at}.items`, 'item', details);
  },
  withDefaults: (q) => ({ ...q, partialCredit: q.partialCredit ?? false }),
  contentFields: (q) => q.items.map((item, j): [string, string] => [`items.${j}.text`, item.text]),
  shuffledItems: (q) => q.items.map((i) => i.id),

  answer: {
    schema: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 }),
    check(q, value) {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return { ok: false, message: 'must be an array of item ids or null' };
      const ids = value as string[];
      const items = new Set(q.items.map((i) => i.id));
      if (ids.length !== items.size || new Set(ids).size !== ids.length || ids.some((id) => !items.has(id))) {
        return { ok: false, message: `must list each of the ${items.size} item ids exactly once (a permutation)` };
      }
      return { ok: true, value: ids };
    },
  },

  mark(q, value) {
    if (!Array.isArray(value)) return { kind: 'auto', points: 0 };
    const inPlace = q.items.filter((item, i) => value[i] === item.id).length;
    const fraction = q.partialCredit ? inPlace / q.items.length : inPlace === q.items.length ? 1 : 0;
    return { kind: 'auto', points: q.points * fraction };
  },

  simulate: {
    correct: (q) => q.items.map((i) => i.id),
  },

  page: orderingPage,
  review: orderingReview,
  answerText: (q, value) => {
    if (!Array.isArray(value)) return '';
    const text = new Map(q.items.map((i) => [i.id, i.text]));
    return value.map((id) => text.get(String(id)) ?? String(id)).join('; ');
  },

  scripts: { student: new URL('./student.js', import.meta.url), editor: new URL('./editor.js', import.meta.url) },
  editorMessages: [
    'portal.editor.type.ordering', 'portal.editor.ordering.item', 'portal.editor.ordering.itemName', 'portal.editor.ordering.add',
    'portal.editor.ordering.hint', 'portal.editor.ordering.partialCredit',
  ],
  clientMessages: ['question.order.moved'],
  styles: { student: new URL('./student.css', import.meta.url) },

  qti: {
    interactions: ['qti-order-interaction'],
    read: readOrdering,
    write: writeOrdering,
    summed: summedOrdering,
  },
});
