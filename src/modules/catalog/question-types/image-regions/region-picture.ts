import { Type } from '@sinclair/typebox';
import type { ErrorDetail } from '../../../../platform/errors.js';
import { html, type SafeHtml } from '../../../../platform/web/html.js';
import type { PageTexts } from '../../content/page-texts.js';
import { centre, shapeProblem, type Region } from './geometry.js';

/**
 * What the image question types (hotspot, graphic_order) share beyond the
 * geometry: the image fields of their schema, the checks of a region list,
 * and the picture on a page — the image with an SVG outline of each region
 * over it. The picture is decoration for sighted pointer users: every region
 * is also a named button in a list beside it (the type's own markup), which
 * is what the keyboard and a screen reader use.
 *
 * Content assets do not record an image's size, so `imageWidth` and
 * `imageHeight` are optional fields: given, the outlines are drawn at once
 * and coordinates are checked against them; absent, the test page's script
 * sizes the outlines from the image once it has loaded (its natural size),
 * and the staff's answer view, which runs no script, shows the image at its
 * own size with the outlines in CSS pixels (`unsized: 'natural'`).
 */
export const ASSET_IMAGE_REF = /^asset:(ast_[0-9A-Za-z]{1,64})$/;

export const imageFields = {
  image: Type.String({ pattern: ASSET_IMAGE_REF.source, description: 'The picture: `asset:ast_…`, a content asset (docs/content.md)' }),
  imageAlt: Type.String({ minLength: 1, maxLength: 1_000, description: 'What the image shows, for those who cannot see it (required)' }),
  imageWidth: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: "The image's width in pixels; absent: read from the image when the page loads" })),
  imageHeight: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: "The image's height in pixels; absent: read from the image when the page loads" })),
};

export interface ImageQuestion {
  id: string;
  image: string;
  imageAlt: string;
  imageWidth?: number;
  imageHeight?: number;
}

/** The asset id an `asset:` reference names. */
export const assetIdOf = (image: string) => ASSET_IMAGE_REF.exec(image)?.[1] ?? '';

/** The image as the content format writes it (contentFields: the image is found, checked and exported as the texts' images are). */
export const imageMarkdown = (q: ImageQuestion) => `![${q.imageAlt.replace(/[[\]\n]/g, ' ')}](${q.image})`;

/** Region ids unique, labels unique (they name the controls), each shape's coordinates right and inside the image when its size is given. */
export function checkRegions(q: ImageQuestion, regions: readonly Region[], at: string, details: ErrorDetail[]): void {
  if ((q.imageWidth === undefined) !== (q.imageHeight === undefined)) {
    details.push({ field: `${at}.${q.imageWidth === undefined ? 'imageWidth' : 'imageHeight'}`, message: 'give both imageWidth and imageHeight, or neither' });
  }
  const ids = new Set<string>();
  const labels = new Set<string>();
  regions.forEach((r, i) => {
    const here = `${at}.regions.${i}`;
    if (ids.has(r.id)) details.push({ field: `${here}.id`, message: `region id "${r.id}" is used twice` });
    ids.add(r.id);
    const label = r.label.trim().toLowerCase();
    if (labels.has(label)) details.push({ field: `${here}.label`, message: `two regions are labelled "${r.label}": each names its own control` });
    labels.add(label);
    const problem = shapeProblem(r.shape, r.coords);
    if (problem) details.push({ field: `${here}.coords`, message: problem });
    else if (q.imageWidth !== undefined && q.imageHeight !== undefined && outside(r, q.imageWidth, q.imageHeight)) {
      details.push({ field: `${here}.coords`, message: `the region reaches outside the ${q.imageWidth} × ${q.imageHeight} image` });
    }
  });
}

function outside(r: Region, width: number, height: number): boolean {
  const c = r.coords;
  if (r.shape === 'circle') return c[0]! - c[2]! < 0 || c[1]! - c[2]! < 0 || c[0]! + c[2]! > width || c[1]! + c[2]! > height;
  return c.some((v, i) => v > (i % 2 === 0 ? width : height));
}

/** One region's outline in SVG (image pixels). */
export function regionShape(r: Region, attrs: SafeHtml): SafeHtml {
  const c = r.coords;
  switch (r.shape) {
    case 'rect':
      return html`<rect x="${c[0]}" y="${c[1]}" width="${c[2]! - c[0]!}" height="${c[3]! - c[1]!}" ${attrs}/>`;
    case 'circle':
      return html`<circle cx="${c[0]}" cy="${c[1]}" r="${c[2]}" ${attrs}/>`;
    case 'poly': {
      const points = [];
      for (let i = 0; i < c.length; i += 2) points.push(`${c[i]},${c[i + 1]}`);
      return html`<polygon points="${points.join(' ')}" ${attrs}/>`;
    }
  }
}

/**
 * The image and its regions' outlines, the SVG over the image and scaled
 * with it (viewBox in image pixels). The SVG is hidden from assistive
 * technology: the type's buttons are the controls. `mark` is a short text
 * drawn at each region's centre (a number, a tick), or none. A click on an
 * outline is handled by the type's script (`data-region-id`).
 *
 * Without the image's size the viewBox is unknown. `unsized: 'script'` (the
 * test page) leaves it to the type's script, which reads the loaded image,
 * sets the viewBox and removes the class `region-overlay-unfitted` that
 * hides the outlines until then;
 * `unsized: 'natural'` (a page with no script) shows the image at its own
 * size in a box that scrolls when it is wider than the column, and the SVG
 * without a viewBox, so its units are CSS pixels, which are then the image's
 * pixels (as the select_point answer view does).
 */
export function regionPicture(
  q: ImageQuestion,
  regions: readonly Region[],
  texts: PageTexts,
  opts: { mark?: (r: Region) => string; state?: (r: Region) => string; unsized?: 'script' | 'natural' } = {},
): SafeHtml {
  const sized = q.imageWidth !== undefined && q.imageHeight !== undefined;
  const natural = !sized && opts.unsized === 'natural';
  const box = sized ? html` viewBox="0 0 ${q.imageWidth} ${q.imageHeight}"` : '';
  const picture = html`<div class="region-picture${natural ? ' region-picture-natural' : ''}"><img src="${texts.assetUrl(assetIdOf(q.image))}" alt="${q.imageAlt}"${sized ? html` width="${q.imageWidth}" height="${q.imageHeight}"` : ''}><svg class="region-overlay${sized || natural ? '' : ' region-overlay-unfitted'}" aria-hidden="true" focusable="false" preserveAspectRatio="none"${box}>${regions.map((r) => {
    const mark = opts.mark?.(r) ?? '';
    const at = centre(r.shape, r.coords);
    return html`<g class="region-outline" data-region-id="${r.id}"${opts.state ? html` data-state="${opts.state(r)}"` : ''}>${regionShape(r, html`class="region-shape"`)}${mark ? html`<text x="${at.x}" y="${at.y}" font-size="${markSize(r)}" class="region-mark">${mark}</text>` : ''}</g>`;
  })}</svg></div>`;
  // Focusable, so a keyboard user can scroll an image wider than the column.
  return natural ? html`<div class="region-picture-scroll" tabindex="0" role="group" aria-label="The image at its own size">${picture}</div>` : picture;
}

/** A mark's size in image pixels: most of the region's smaller side, so it sits inside the region at any scale (a style attribute is not allowed on the page). */
function markSize(r: Region): number {
  const c = r.coords;
  if (r.shape === 'circle') return Math.round(Math.max(12, Math.min(c[2]! * 1.2, 64)));
  const xs = c.filter((_, i) => i % 2 === 0);
  const ys = c.filter((_, i) => i % 2 === 1);
  const side = Math.min(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
  return Math.round(Math.max(12, Math.min(side * 0.6, 64)));
}
