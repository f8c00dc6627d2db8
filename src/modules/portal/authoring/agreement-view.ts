import { formatPoints, html, type SafeHtml } from '../../../platform/web/html.js';
import type { AiAgreement } from '../../marking/ai/get-ai-agreement.js';
import { dataTable } from '../ui/components.js';

/**
 * Agreement between the model and reviewers per AI-marked question, over
 * every item both marked: whether the model's marks can be trusted to
 * `decide` alone. Figures appear once a reviewer has marked a suggestion.
 */
const pct = (x: number | null) => (x === null ? '–' : `${Math.round(x * 1000) / 10}%`);
const num = (x: number | null, digits = 2) => (x === null ? '–' : x.toFixed(digits));

export function agreementSection(a: AiAgreement, whose = 'every institution’s'): SafeHtml | string {
  if (a.questions.length === 0) return '';
  return html`<h2 id="agreement-title">AI marking agreement</h2>
<p class="hint">For each AI-marked question, how the model’s points compare with the reviewers’ on the items both marked (${whose} marks). Exact agreement: same points. Mean absolute difference: in points. Quadratic weighted kappa: 1 is perfect agreement, 0 no better than chance; above about 0.8 is usually considered strong.</p>
${dataTable({
  caption: 'Agreement between the model and reviewers, per question',
  stack: true,
  columns: [{ label: 'Question' }, { label: 'Mode' }, { label: 'Pairs', numeric: true }, { label: 'Exact agreement', numeric: true }, { label: 'Mean absolute difference', numeric: true }, { label: 'Weighted kappa', numeric: true }],
  rows: a.questions.map((q) => [
    html`${q.prompt ?? html`<span class="hint">(no longer in the test)</span>`} <span class="hint">(<code>${q.questionId}</code>, ${formatPoints(q.maxPoints)} points)</span>`,
    q.mode ?? '–',
    q.n,
    pct(q.exactAgreement),
    q.meanAbsoluteDifference === null ? '–' : `${num(q.meanAbsoluteDifference)} points`,
    num(q.quadraticWeightedKappa),
  ]),
})}`;
}
