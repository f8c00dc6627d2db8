import { Type } from '@sinclair/typebox';
import { html } from '../../../../platform/web/html.js';
import { defineQuestionType } from '../definition.js';
import { moveButtons } from '../move-buttons.js';
import { checkRegions, imageMarkdown, regionPicture } from '../image-regions/region-picture.js';
import { regionIdList, regionLabels } from '../image-regions/question-fields.js';
import { graphicOrderQti } from './graphic-order-qti.js';
import { GraphicOrderQuestion } from './graphic-order-schema.js';

/**
 * graphic_order (QTI graphicOrderInteraction): the regions of an image put
 * in order. The page is the ordering question's: a numbered list with Move
 * up / Move down buttons named by each region's label, first shown in a
 * per-candidate order that is never the correct one (the delivery's
 * itemOrder, drawn through `shuffledItems`), with the image beside it
 * numbering each region by its place in the list.
 *
 * Marking as ordering: all regions in place or 0; with partialCredit,
 * points × regions in their correct place ÷ regions.
 */
export const graphicOrderType = defineQuestionType<GraphicOrderQuestion>({
  type: 'graphic_order',
  label: 'Graphic order',
  schema: GraphicOrderQuestion,
  part: { title: 'GraphicOrderPart' },
  autoMarkable: true,

  check(q, at, details) {
    checkRegions(q, q.regions, at, details);
  },

  withDefaults: (q) => ({ ...q, partialCredit: q.partialCredit ?? false }),

  // The image is the question's own, shown in a plain test too: checked to exist, listed with the version, packed into an export.
  assets: (q) => [['image', q.image.slice('asset:'.length)]],
  contentFields: (q) => [
    ['prompt', q.prompt],
    ['image', imageMarkdown(q)],
  ],

  shuffledItems: (q) => q.regions.map((r) => r.id),

  answer: {
    schema: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50, description: 'graphic_order: the region ids in the order the candidate put them' }),
    check(q, value) {
      if (value === null) return { ok: true, value: null };
      const ids = regionIdList(q.regions, value);
      if (typeof ids === 'string') return { ok: false, message: ids };
      if (ids.length === 0) return { ok: true, value: null };
      if (ids.length !== q.regions.length) return { ok: false, message: `must list each of the ${q.regions.length} region ids exactly once (a permutation)` };
      return { ok: true, value: ids };
    },
  },

  mark(q, value) {
    const given = Array.isArray(value) ? value : [];
    const inPlace = q.regions.filter((r, i) => given[i] === r.id).length;
    const fraction = q.partialCredit ? inPlace / q.regions.length : inPlace === q.regions.length ? 1 : 0;
    return { kind: 'auto', points: Math.round(q.points * fraction * 10_000) / 10_000 };
  },

  simulate: {
    correct: (q) => q.regions.map((r) => r.id),
    wrong: (q) => q.regions.map((r) => r.id).reverse(),
  },

  page(q, ctx) {
    const byId = new Map(q.regions.map((r) => [r.id, r]));
    const saved = Array.isArray(ctx.value) && ctx.value.length === q.regions.length && ctx.value.every((v) => byId.has(String(v))) ? ctx.value.map(String) : null;
    const order = saved ?? [...(ctx.shown.itemOrder[q.id] ?? q.regions.map((r) => r.id))];
    const place = new Map(order.map((id, i) => [id, i + 1]));
    const last = order.length - 1;
    const hint = `${ctx.id}-order-hint`;
    const { t } = ctx.texts;
    return html`<p class="hint" id="${hint}">${t.t('question.graphicOrder.hint')}</p>
<div class="region-question">${regionPicture(q, q.regions, ctx.texts, { mark: (r) => String(place.get(r.id) ?? '') })}
<ol class="order-list region-order" data-ordered="${saved ? 'yes' : 'no'}" aria-describedby="${hint}">${order.map((id, j) => {
      const label = byId.get(id)!.label;
      return html`<li class="order-item" data-item-id="${id}"><span class="order-text">${label}</span>${moveButtons(t, 'data-region-move', label, j === 0, j === last)}</li>`;
    })}</ol></div>
<p class="sr-only order-live" role="status" aria-live="polite"></p>`;
  },

  review(q, value, ctx) {
    if (!Array.isArray(value) || value.length === 0) return html`<p class="empty">Not answered.</p>`;
    const place = new Map(q.regions.map((r, i) => [r.id, i + 1]));
    const given = value.map(String);
    const label = new Map(q.regions.map((r) => [r.id, r.label]));
    return html`${regionPicture(q, q.regions, ctx.texts, { mark: (r) => String(given.indexOf(r.id) + 1 || ''), unsized: 'natural' })}
<ol class="answer-order">${given.map((id, i) => {
      const inPlace = place.get(id) === i + 1;
      return html`<li>${label.get(id) ?? id} ${inPlace ? html`<span class="badge badge-right">in its correct place</span>` : html`<span class="badge badge-wrong">not in place</span> <span class="hint">(belongs at ${place.get(id) ?? '–'})</span>`}</li>`;
    })}</ol>`;
  },

  answerText: (q, value) => regionLabels(q.regions, value),

  scripts: { student: new URL('./student.js', import.meta.url), editor: new URL('./editor.js', import.meta.url) },
  editorMessages: [
    'portal.editor.type.graphicOrder', 'portal.editor.graphicOrder.hint', 'portal.editor.graphicOrder.partialCredit',
  ],
  clientMessages: ['question.order.moved'],

  styles: { student: new URL('../image-regions/student.css', import.meta.url), portal: new URL('../image-regions/portal.css', import.meta.url) },

  qti: graphicOrderQti,
});
