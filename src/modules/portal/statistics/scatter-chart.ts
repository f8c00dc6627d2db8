import { html, type SafeHtml } from '../../../platform/web/html.js';

/**
 * The facility/discrimination scatter of a test's questions, drawn on the
 * server as SVG (no script, no inline style: colours from the stylesheet).
 * Facility runs left (hard) to right (easy), discrimination bottom (−1) to
 * top (+1); the band under 0.2 is shaded, where questions separate stronger
 * from weaker candidates poorly. Each point is labelled with its question's
 * number. Decorative to assistive technology: the page's table beside it
 * holds the same figures.
 */
export function facilityDiscriminationChart(points: Array<{ n: number; facility: number | null; discrimination: number | null }>): SafeHtml {
  const width = 640;
  const height = 360;
  const left = 56;
  const right = 30;
  const top = 16;
  const bottom = 48;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const x = (f: number) => left + f * plotW;
  const y = (d: number) => top + ((1 - d) / 2) * plotH;
  const shown = points.filter((p) => p.facility !== null && p.discrimination !== null);
  const ticksX = [0, 0.25, 0.5, 0.75, 1];
  const ticksY = [-1, -0.5, 0, 0.5, 1];
  return html`<svg class="chart scatter" viewBox="0 0 ${width} ${height}" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">
<rect class="weak-band" x="${left}" y="${y(0.2)}" width="${plotW}" height="${y(-1) - y(0.2)}"></rect>
${ticksY.map((t) => html`<line class="grid" x1="${left}" y1="${y(t)}" x2="${left + plotW}" y2="${y(t)}"></line><text x="${left - 8}" y="${y(t) + 4}" text-anchor="end">${t}</text>`)}
${ticksX.map((t) => html`<line class="grid" x1="${x(t)}" y1="${top}" x2="${x(t)}" y2="${top + plotH}"></line><text x="${x(t)}" y="${top + plotH + 18}" text-anchor="middle">${Math.round(t * 100)} %</text>`)}
<line class="axis" x1="${left}" y1="${y(0)}" x2="${left + plotW}" y2="${y(0)}"></line>
<text x="${left + plotW / 2}" y="${height - 6}" text-anchor="middle">Facility (harder ← → easier)</text>
<text x="14" y="${top + plotH / 2}" text-anchor="middle" transform="rotate(-90 14 ${top + plotH / 2})">Discrimination</text>
${shown.map(
  (p) => html`<g><circle class="dot" cx="${x(p.facility!).toFixed(1)}" cy="${y(Math.max(-1, Math.min(1, p.discrimination!))).toFixed(1)}" r="9"><title>Question ${p.n}: facility ${Math.round(p.facility! * 100)} %, discrimination ${p.discrimination!.toFixed(2)}</title></circle>
<text class="dot-label" x="${x(p.facility!).toFixed(1)}" y="${(y(Math.max(-1, Math.min(1, p.discrimination!))) + 4).toFixed(1)}" text-anchor="middle">${p.n}</text></g>`,
)}
</svg>`;
}
