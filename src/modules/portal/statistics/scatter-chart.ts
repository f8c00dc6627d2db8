import type { Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { portalTranslator } from '../ui/portal-text.js';

/**
 * The facility/discrimination scatter of a test's questions, drawn on the
 * server as SVG (no script, no inline style: colours from the stylesheet).
 * Facility runs left (hard) to right (easy), discrimination bottom (−1) to
 * top (+1); the band under 0.2 is shaded, where questions separate stronger
 * from weaker candidates poorly. Each point is labelled with its question's
 * number. Decorative to assistive technology: the page's table beside it
 * holds the same figures.
 *
 * Drawn twice, wide (640 units) and narrow (340 units); the stylesheet shows
 * the one that fits its figure's width (a container query), so the SVG is
 * never scaled far below its own units and its labels stay at least 12 px
 * on a 360 px phone.
 */
type Frame = { width: number; height: number; left: number; right: number; top: number; bottom: number; r: number };
const FRAMES: Record<'wide' | 'narrow', Frame> = {
  wide: { width: 640, height: 360, left: 62, right: 30, top: 16, bottom: 48, r: 11 },
  narrow: { width: 340, height: 300, left: 56, right: 18, top: 14, bottom: 46, r: 11 },
};

export function facilityDiscriminationChart(
  points: Array<{ n: number; facility: number | null; discrimination: number | null }>,
  t: Translator = portalTranslator(),
): SafeHtml {
  return html`${chart(points, t, 'wide')}
${chart(points, t, 'narrow')}`;
}

function chart(points: Array<{ n: number; facility: number | null; discrimination: number | null }>, t: Translator, size: 'wide' | 'narrow'): SafeHtml {
  const { width, height, left, right, top, bottom, r } = FRAMES[size];
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const x = (f: number) => left + f * plotW;
  const y = (d: number) => top + ((1 - d) / 2) * plotH;
  const shown = points.filter((p) => p.facility !== null && p.discrimination !== null);
  const ticksX = [0, 0.25, 0.5, 0.75, 1];
  const ticksY = [-1, -0.5, 0, 0.5, 1];
  return html`<svg class="chart scatter ${size}" viewBox="0 0 ${width} ${height}" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">
<rect class="weak-band" x="${left}" y="${y(0.2)}" width="${plotW}" height="${y(-1) - y(0.2)}"></rect>
${ticksY.map((d) => html`<line class="grid" x1="${left}" y1="${y(d)}" x2="${left + plotW}" y2="${y(d)}"></line><text x="${left - 8}" y="${y(d) + 4}" text-anchor="end">${d}</text>`)}
${ticksX.map(
  (f) =>
    html`<line class="grid" x1="${x(f)}" y1="${top}" x2="${x(f)}" y2="${top + plotH}"></line><text x="${x(f)}" y="${top + plotH + 18}" text-anchor="middle">${t.t('portal.statistics.percent', {
      value: String(Math.round(f * 100)),
    })}</text>`,
)}
<line class="axis" x1="${left}" y1="${y(0)}" x2="${left + plotW}" y2="${y(0)}"></line>
<text x="${left + plotW / 2}" y="${height - 6}" text-anchor="middle">${t.t('portal.statistics.chart.facilityAxis')}</text>
<text x="12" y="${top + plotH / 2}" text-anchor="middle" transform="rotate(-90 12 ${top + plotH / 2})">${t.t('portal.statistics.discrimination')}</text>
${shown.map(
  (p) => html`<g><circle class="dot" cx="${x(p.facility!).toFixed(1)}" cy="${y(Math.max(-1, Math.min(1, p.discrimination!))).toFixed(1)}" r="${r}"><title>${t.t('portal.statistics.chart.point', {
    n: p.n,
    facility: String(Math.round(p.facility! * 100)),
    discrimination: p.discrimination!.toFixed(2),
  })}</title></circle>
<text class="dot-label" x="${x(p.facility!).toFixed(1)}" y="${(y(Math.max(-1, Math.min(1, p.discrimination!))) + 5).toFixed(1)}" text-anchor="middle">${p.n}</text></g>`,
)}
</svg>`;
}
