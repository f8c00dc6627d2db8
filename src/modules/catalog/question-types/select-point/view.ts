import { formatPoints, html, type SafeHtml } from '../../../../platform/web/html.js';
import { englishTranslator, type Translator } from '../../../../platform/i18n/catalogue.js';
import { ASSET_REF, staffAssetUrl } from '../../content/content-format.js';
import type { AnswerJson, FieldContext, ReviewContext } from '../definition.js';
import { centre, type Point } from '../image-regions/geometry.js';
import { pointsOf } from './answer.js';
import { areaOf, areasHit, type Area } from './areas.js';
import type { SelectPointQuestion } from './schema.js';

/**
 * The student page's part and the staff's answer view. On the page each
 * placed point is a button over the image, moved with the arrow keys, and
 * a line in the list below with its own Remove button; student.js places,
 * moves and announces them (its words match `where` here). The areas'
 * outlines and points are never on the page: only their labels and shapes,
 * so a point can be announced as "in" or "near" one.
 */

const imageAsset = (image: string) => ASSET_REF.exec(image)?.[1] ?? '';
const coord = (n: number) => String(Math.round(n));

/** The area that counts the point ("in Left ventricle"), else the one whose centre is nearest ("near Aorta"); none without areas. */
function placeOf(areas: readonly Area[], p: Point): { area: Area; inside: boolean } | null {
  const inside = areaOf(areas, p);
  if (inside) return { area: inside, inside: true };
  let near: Area | undefined;
  let best = Infinity;
  for (const a of areas) {
    const c = centre(a.shape, a.coords);
    const d = (c.x - p.x) ** 2 + (c.y - p.y) ** 2;
    if (d < best) [best, near] = [d, a];
  }
  return near ? { area: near, inside: false } : null;
}

/** "Point 1 at 120, 80 — in Left ventricle" (or, with no areas, "Point 1 at 120, 80"): a placed point in words (student.js says the same); staff's views in English. */
export function pointWords(areas: readonly Area[], p: Point, n: number, t: Translator = englishTranslator()): string {
  const place = placeOf(areas, p);
  const values = { n, x: coord(p.x), y: coord(p.y) };
  if (!place) return t.t('question.selectPoint.point', values);
  return t.t(place.inside ? 'question.selectPoint.pointIn' : 'question.selectPoint.pointNear', { ...values, area: place.area.label });
}

export function selectPointInput(q: SelectPointQuestion, ctx: FieldContext): SafeHtml {
  const id = ctx.id;
  const { t } = ctx.texts;
  const placed = pointsOf(ctx.value).slice(0, q.maxPoints);
  const shapes = q.areas.map((a) => ({ label: a.label, shape: a.shape, coords: a.coords }));
  return html`<div class="sp" data-max-points="${q.maxPoints}" data-areas="${JSON.stringify(shapes)}" data-points="${JSON.stringify(placed)}">
<p class="hint" id="${id}-sp-hint">${q.maxPoints === 1 ? t.t('question.selectPoint.hintOne') : t.t('question.selectPoint.hintMany', { max: q.maxPoints })}</p>
<div class="sp-figure"><img class="sp-image" id="${id}-sp-image" src="${ctx.texts.assetUrl(imageAsset(q.image))}" alt="${q.imageAlt}"><div class="sp-markers"></div></div>
<p class="sp-tools"><button type="button" class="sp-add" aria-describedby="${id}-sp-hint"${placed.length >= q.maxPoints ? html` aria-disabled="true"` : ''}>${t.t('question.selectPoint.add')}</button> <span class="sp-count">${t.t('question.selectPoint.count', { placed: placed.length, max: q.maxPoints })}</span></p>
<ol class="sp-list" aria-label="${t.t('question.selectPoint.listLabel', { where: ctx.where })}">${placed.map(
    (p, i) => html`<li><span class="sp-where">${pointWords(q.areas, p, i + 1, t)}</span> <button type="button" class="sp-remove" data-index="${i}">${t.t('question.selectPoint.remove', { n: i + 1 })}</button></li>`,
  )}</ol>
<p class="sr-only sp-live" role="status" aria-live="polite"></p>
</div>`;
}

/**
 * The image at its own size (so the outlines, in image pixels, sit on it
 * without knowing its size; the box scrolls when it is wider than the
 * page), each area outlined and numbered, each point a numbered dot; then
 * the same in words: where each point fell, which areas were hit and missed.
 * The scrolling box is focusable, so a keyboard user can scroll it too.
 */
export function selectPointReview(q: SelectPointQuestion, value: AnswerJson, _ctx: ReviewContext): SafeHtml {
  const placed = pointsOf(value);
  const hit = new Set(areasHit(q.areas, placed));
  const outline = (a: Area, i: number) => {
    const stroke = hit.has(a) ? '#1a7f37' : '#6b6b78';
    const c = a.coords.map(coord);
    const shape =
      a.shape === 'rect'
        ? html`<rect x="${c[0]}" y="${c[1]}" width="${a.coords[2]! - a.coords[0]!}" height="${a.coords[3]! - a.coords[1]!}"`
        : a.shape === 'circle'
          ? html`<circle cx="${c[0]}" cy="${c[1]}" r="${c[2]}"`
          : html`<polygon points="${a.coords.join(' ')}"`;
    const mid = centre(a.shape, a.coords);
    return html`${shape} fill="none" stroke="${stroke}" stroke-width="3"${hit.has(a) ? '' : html` stroke-dasharray="8 5"`}/><text x="${coord(mid.x)}" y="${coord(mid.y)}" fill="${stroke}" font-size="18" font-weight="bold" text-anchor="middle" dominant-baseline="middle">A${i + 1}</text>`;
  };
  const dot = (p: Point, i: number) =>
    html`<circle cx="${p.x}" cy="${p.y}" r="9" fill="#1d3fbb" stroke="#fff" stroke-width="2"/><text x="${p.x + 13}" y="${p.y < 30 ? p.y + 24 : p.y - 11}" fill="#1d3fbb" font-size="18" font-weight="bold">${i + 1}</text>`;
  const area = (a: Area) => `${a.label} (${formatPoints(a.points)} ${a.points === 1 ? 'point' : 'points'})`;
  const missed = q.areas.filter((a) => !hit.has(a) && a.points > 0);
  return html`<div class="sp-review"><div class="sp-review-figure" tabindex="0" role="group" aria-label="The image at its own size"><div class="sp-review-frame"><img src="${staffAssetUrl(imageAsset(q.image))}" alt="${q.imageAlt}"><svg class="sp-review-marks" aria-hidden="true" focusable="false">${q.areas.map(outline)}${placed.map(dot)}</svg></div></div>
${placed.length === 0 ? html`<p class="empty">Not answered.</p>` : html`<ol class="sp-review-points">${placed.map((p, i) => html`<li>${pointWords(q.areas, p, i + 1)}</li>`)}</ol>`}
<p>Areas hit: ${hit.size > 0 ? [...hit].map(area).join(', ') : 'none'}.</p>
<p>Areas missed: ${missed.length > 0 ? missed.map(area).join(', ') : 'none'}.</p>
<p class="hint">On the image: A1, A2, … are the areas in order (solid outline: hit; dashed: not hit); 1, 2, … the candidate's points.</p></div>`;
}
