import type { Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { AiAgreement } from '../../marking/ai/get-ai-agreement.js';
import { dataTable } from '../ui/components.js';
import { richText } from '../ui/portal-text.js';

/**
 * Agreement between the model and reviewers per AI-marked question, over
 * every item both marked: whether the model's marks can be trusted to
 * `decide` alone. Figures appear once a reviewer has marked a suggestion.
 * `whose` says whose marks the figures come from: every institution's (an
 * operator's test page) or the reader's own institution's (the marking queue).
 */
export function agreementSection(a: AiAgreement, t: Translator, whose: 'all' | 'institution' = 'all'): SafeHtml | string {
  if (a.questions.length === 0) return '';
  const none = '–';
  const pct = (x: number | null) => (x === null ? none : t.number(x, { style: 'percent', maximumFractionDigits: 1 }));
  const fixed = (x: number) => t.number(x, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return html`<h2 id="agreement-title">${t.t('portal.authoring.agreement.heading')}</h2>
<p class="hint">${t.t('portal.authoring.agreement.hint', { whose })}</p>
${dataTable({
  caption: t.t('portal.authoring.agreement.caption'),
  stack: true,
  columns: [
    { label: t.t('portal.authoring.agreement.question') },
    { label: t.t('portal.authoring.agreement.mode') },
    { label: t.t('portal.authoring.agreement.pairs'), numeric: true },
    { label: t.t('portal.authoring.agreement.exact'), numeric: true },
    { label: t.t('portal.authoring.agreement.meanDifference'), numeric: true },
    { label: t.t('portal.authoring.agreement.kappa'), numeric: true },
  ],
  rows: a.questions.map((q) => [
    html`${q.prompt ?? html`<span class="hint">${t.t('portal.authoring.agreement.gone')}</span>`} <span class="hint">${richText(t, 'portal.authoring.agreement.questionMeta', {
      id: html`<code>${q.questionId}</code>`,
      points: Math.round(q.maxPoints * 100) / 100,
    })}</span>`,
    q.mode ?? none,
    q.n,
    pct(q.exactAgreement),
    q.meanAbsoluteDifference === null ? none : t.t('portal.authoring.agreement.meanPoints', { points: fixed(q.meanAbsoluteDifference) }),
    q.quadraticWeightedKappa === null ? none : fixed(q.quadraticWeightedKappa),
  ]),
})}`;
}
