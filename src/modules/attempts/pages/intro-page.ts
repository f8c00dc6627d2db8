import type { TestVersion } from '../../tests/tests-service.js';
import { formatPoints, html, layout, plural, timeTag } from './html.js';

const PROCTORING_NOTICE: Record<TestVersion['proctoring'], string | null> = {
  none: null,
  record: 'This test is recorded. What happens during the test may be reviewed after you submit.',
  live_ai: 'This test is supervised by automated proctoring while you take it. Unusual activity may be flagged for review.',
};

export function introPage(p: { assignmentId: string; institutionName: string; test: TestVersion; csrfToken: string; dueAt: Date | null }): string {
  const { test } = p;
  const totalPoints = test.questions.reduce((sum, q) => sum + q.points, 0);
  const notice = PROCTORING_NOTICE[test.proctoring];
  const main = html`
<h1>${test.title}</h1>
${test.description ? html`<p class="lede">${test.description}</p>` : ''}
<dl class="facts">
  <div><dt>Time allowed</dt><dd>${plural(test.durationMinutes, 'minute')}</dd></div>
  <div><dt>Questions</dt><dd>${test.questions.length}</dd></div>
  <div><dt>Points</dt><dd>${formatPoints(totalPoints)}</dd></div>
  ${p.dueAt ? html`<div><dt>Begin by</dt><dd>${timeTag(p.dueAt)}</dd></div>` : ''}
</dl>
${notice ? html`<section class="notice" aria-labelledby="proctoring-title"><h2 id="proctoring-title">Supervision</h2><p>${notice}</p></section>` : ''}
<p>When you begin, the timer starts and keeps running even if you close this page. Your answers are saved as you go,
and the test is submitted for you when the time is up.</p>
<form method="post" action="/a/${p.assignmentId}/begin" class="actions">
  <input type="hidden" name="csrf" value="${p.csrfToken}">
  <button type="submit" class="button primary">Begin test</button>
</form>`;
  return layout({ title: test.title, institutionName: p.institutionName, main });
}
