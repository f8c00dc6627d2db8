import { Type } from '@sinclair/typebox';
import { html } from '../../../../platform/web/html.js';
import type { Translator } from '../../../../platform/i18n/catalogue.js';
import { defineQuestionType } from '../definition.js';
import { checkRegions, imageMarkdown, regionPicture } from '../image-regions/region-picture.js';
import { regionIdList, regionLabels } from '../image-regions/question-fields.js';
import { hotspotQti } from './hotspot-qti.js';
import { HotspotQuestion } from './hotspot-schema.js';

const HINT_ID = (id: string) => `${id}-regions-hint`;

/** How many regions may be chosen and how, in the page's words. */
function hint(q: HotspotQuestion, t: Translator): string {
  if (q.maxChoices === 1) return t.t('question.hotspot.hintOne');
  if (q.maxChoices !== undefined) return t.t('question.hotspot.hintUpTo', { max: q.maxChoices });
  return t.t('question.hotspot.hintAll');
}

/**
 * hotspot (QTI hotspotInteraction): an image with labelled regions; the
 * candidate chooses regions, each a toggle button named by its label.
 *
 * Marking, as multiple_choice with partialCredit: points × (right picks −
 * wrong picks) ÷ correct regions, never below 0. With one correct region
 * (always so when maxChoices is 1) that is all or nothing: the correct
 * region alone earns the points, anything else 0.
 */
export const hotspotType = defineQuestionType<HotspotQuestion>({
  type: 'hotspot',
  label: 'Hotspot',
  schema: HotspotQuestion,
  part: { title: 'HotspotPart' },
  autoMarkable: true,

  check(q, at, details) {
    checkRegions(q, q.regions, at, details);
    const ids = new Set(q.regions.map((r) => r.id));
    const seen = new Set<string>();
    q.correctRegionIds.forEach((id, i) => {
      if (!ids.has(id)) details.push({ field: `${at}.correctRegionIds.${i}`, message: `"${id}" is not a region of this question` });
      if (seen.has(id)) details.push({ field: `${at}.correctRegionIds.${i}`, message: `"${id}" is listed twice` });
      seen.add(id);
    });
    if (q.maxChoices !== undefined) {
      if (q.maxChoices < seen.size) details.push({ field: `${at}.maxChoices`, message: `must be at least the ${seen.size} correct regions` });
      else if (q.maxChoices > q.regions.length) details.push({ field: `${at}.maxChoices`, message: `must be at most the ${q.regions.length} regions` });
    }
  },

  // The image is the question's own, shown in a plain test too: checked to exist, listed with the version, packed into an export.
  assets: (q) => [['image', q.image.slice('asset:'.length)]],
  contentFields: (q) => [
    ['prompt', q.prompt],
    ['image', imageMarkdown(q)],
  ],

  answer: {
    schema: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50, description: 'hotspot: the chosen region ids' }),
    check(q, value) {
      if (value === null) return { ok: true, value: null };
      const ids = regionIdList(q.regions, value);
      if (typeof ids === 'string') return { ok: false, message: ids };
      if (q.maxChoices !== undefined && ids.length > q.maxChoices) return { ok: false, message: `chooses ${ids.length} regions; at most ${q.maxChoices} may be chosen` };
      const chosen = new Set(ids);
      const ordered = q.regions.filter((r) => chosen.has(r.id)).map((r) => r.id);
      return { ok: true, value: ordered.length > 0 ? ordered : null };
    },
  },

  mark(q, value) {
    const picked = new Set(Array.isArray(value) ? value.map(String) : []);
    const correct = new Set(q.correctRegionIds);
    const right = [...picked].filter((id) => correct.has(id)).length;
    const wrong = picked.size - right;
    return { kind: 'auto', points: Math.round(q.points * (Math.max(0, right - wrong) / correct.size) * 10_000) / 10_000 };
  },

  simulate: {
    correct: (q) => q.regions.filter((r) => q.correctRegionIds.includes(r.id)).map((r) => r.id),
    wrong(q) {
      const other = q.regions.find((r) => !q.correctRegionIds.includes(r.id));
      return other ? [other.id] : null;
    },
  },

  statistics: {
    options: (q) => q.regions.map((r) => ({ id: r.id, text: r.label, correct: q.correctRegionIds.includes(r.id) })),
    chosen: (_q, value) => (Array.isArray(value) ? value.map(String) : []),
  },

  page(q, ctx) {
    const chosen = new Set(Array.isArray(ctx.value) ? ctx.value.map(String) : []);
    return html`<p class="hint" id="${HINT_ID(ctx.id)}">${hint(q, ctx.texts.t)}</p>
<div class="region-question" data-max-choices="${q.maxChoices ?? ''}">${regionPicture(q, q.regions, ctx.texts, { state: (r) => (chosen.has(r.id) ? 'on' : 'off') })}
<ul class="region-list" aria-describedby="${HINT_ID(ctx.id)}">${q.regions.map(
      (r) => html`<li><button type="button" class="region-toggle" data-region-id="${r.id}" aria-pressed="${chosen.has(r.id) ? 'true' : 'false'}">${r.label}</button></li>`,
    )}</ul></div>
<p class="sr-only region-live" role="status" aria-live="polite"></p>`;
  },

  review(q, value, ctx) {
    const chosen = new Set(Array.isArray(value) ? value.map(String) : []);
    const correct = new Set(q.correctRegionIds);
    return html`${chosen.size === 0 ? html`<p class="empty">Not answered.</p>` : ''}${regionPicture(q, q.regions, ctx.texts, {
      state: (r) => (chosen.has(r.id) ? 'on' : 'off'),
      mark: (r) => (correct.has(r.id) ? '✓' : ''),
      unsized: 'natural',
    })}
<ul class="options-list">${q.regions.map(
      (r) =>
        html`<li${chosen.has(r.id) ? html` class="chosen"` : ''}>${r.label}${chosen.has(r.id) ? html` <span class="badge">Chosen</span>` : ''}${correct.has(r.id) ? html` <span class="hint">(correct answer)</span>` : ''}</li>`,
    )}</ul>`;
  },

  answerText: (q, value) => regionLabels(q.regions, value),

  scripts: { student: new URL('./student.js', import.meta.url), editor: new URL('./editor.js', import.meta.url) },
  editorMessages: [
    'portal.editor.regions.shapeRect', 'portal.editor.regions.shapeCircle', 'portal.editor.regions.shapePoly', 'portal.editor.regions.imageUploaded',
    'portal.editor.regions.imageSrName', 'portal.editor.regions.image', 'portal.editor.regions.imageHint', 'portal.editor.regions.imageAlt',
    'portal.editor.regions.imageAltHint', 'portal.editor.regions.imageWidth', 'portal.editor.regions.imageWidthHint',
    'portal.editor.regions.imageHeight', 'portal.editor.regions.drawHint', 'portal.editor.regions.region', 'portal.editor.regions.label',
    'portal.editor.regions.labelHint', 'portal.editor.regions.shape', 'portal.editor.regions.coords', 'portal.editor.regions.coordsHint',
    'portal.editor.moveUp', 'portal.editor.moveDown', 'portal.editor.remove', 'portal.editor.regions.regionName', 'portal.editor.regions.add',
    'portal.editor.type.hotspot', 'portal.editor.hotspot.correct', 'portal.editor.hotspot.maxChoices', 'portal.editor.hotspot.maxChoicesHint',
  ],
  clientMessages: ['question.hotspot.most'],

  styles: { student: new URL('../image-regions/student.css', import.meta.url), portal: new URL('../image-regions/portal.css', import.meta.url) },

  qti: hotspotQti,
});

