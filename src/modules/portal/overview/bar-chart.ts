import type { Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { portalTranslator } from '../ui/portal-text.js';

/**
 * A bar chart drawn on the server as SVG: no script, no inline style (the
 * page's CSP forbids both; colours come from the stylesheet's classes). It
 * is decorative to assistive technology: the caller shows the same figures
 * as a table beside it, which is the chart's text alternative.
 */
export function barChart(p: { bars: Array<{ label: string; short: string; value: number }>; valueLabel: string; t?: Translator }): SafeHtml {
  const t = p.t ?? portalTranslator();
  const width = 640;
  const height = 220;
  const top = 22;
  const bottom = 28;
  const left = 8;
  const plot = height - top - bottom;
  const slot = (width - left * 2) / Math.max(1, p.bars.length);
  const barWidth = Math.max(4, slot * 0.62);
  const max = Math.max(1, ...p.bars.map((b) => b.value));
  return html`<svg class="chart" viewBox="0 0 ${width} ${height}" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">
<line class="axis" x1="${left}" y1="${top + plot}" x2="${width - left}" y2="${top + plot}"></line>
${p.bars.map((b, i) => {
  const h = Math.round((b.value / max) * plot);
  const x = Math.round(left + i * slot + (slot - barWidth) / 2);
  const cx = Math.round(left + i * slot + slot / 2);
  return html`<g><rect class="bar" x="${x}" y="${top + plot - h}" width="${Math.round(barWidth)}" height="${h}"><title>${t.t('portal.overview.barTitle', { label: b.label, value: String(b.value), unit: p.valueLabel })}</title></rect>
<text class="value" x="${cx}" y="${top + plot - h - 6}" text-anchor="middle">${b.value}</text>
<text x="${cx}" y="${height - 9}" text-anchor="middle">${b.short}</text></g>`;
})}
</svg>`;
}
