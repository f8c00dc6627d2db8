import { plannedTotals } from '../../catalog/delivery.js';
import type { TestVersion } from '../../catalog/tests-service.js';
import { html, jsonForScript, layout, timeTag } from '../../../platform/web/html.js';
import { englishTranslator, type Translator } from '../../../platform/i18n/catalogue.js';
import { languageSwitch } from './language-switch.js';
import { CAMERA_CHECK_SCRIPT, CAMERA_CHECK_CLIENT_MESSAGES, cameraCheckStep, type ProctoringPageState } from './proctoring-parts.js';

export function introPage(p: {
  assignmentId: string;
  institutionName: string;
  test: TestVersion;
  csrfToken: string;
  dueAt: Date | null;
  /** Present for `record` and `live_ai` tests: the check step and its script. */
  proctoring?: ProctoringPageState | null;
  testMode?: boolean;
  t?: Translator;
}): string {
  const { test } = p;
  const t = p.t ?? englishTranslator();
  // The author's title and description take their own direction on a page in another language (catalog/content/content-lang.ts), keeping the page's alignment.
  const own = (text: string) => (t.locale !== 'en' ? html`<bdi>${text}</bdi>` : text);
  const planned = plannedTotals(test);
  const proctoring = test.proctoring === 'none' ? null : (p.proctoring ?? null);
  // A proctored test whose page state is missing cannot check the camera, so Begin stays off rather than skipping the check.
  const checked = test.proctoring !== 'none';
  const state = proctoring ? { assignmentId: p.assignmentId, csrfToken: p.csrfToken, proctoring } : null;
  const main = html`
${languageSwitch({ assignmentId: p.assignmentId, csrfToken: p.csrfToken, t })}
<h1>${own(test.title)}</h1>
${test.description ? html`<p class="lede">${own(test.description)}</p>` : ''}
<dl class="facts">
  <div><dt>${t.t('intro.timeAllowed')}</dt><dd>${t.minutes(test.durationMinutes)}</dd></div>
  ${test.sections ? html`<div><dt>${t.t('intro.sections')}</dt><dd>${t.number(test.sections.length)}</dd></div>` : ''}
  <div><dt>${t.t('intro.questions')}</dt><dd>${t.number(planned.questions)}</dd></div>
  <div><dt>${t.t('intro.points')}</dt><dd>${t.number(planned.points, { maximumFractionDigits: 2 })}</dd></div>
  ${p.dueAt ? html`<div><dt>${t.t('intro.beginBy')}</dt><dd>${timeTag(p.dueAt, t)}</dd></div>` : ''}
</dl>
${proctoring ? cameraCheckStep({ proctoring, institutionName: p.institutionName, t }) : ''}
${checked && !proctoring ? html`<p class="notice" id="camera-status">${p.institutionName ? t.t('intro.cameraNotSetUp', { institution: p.institutionName }) : t.t('intro.cameraNotSetUpNoName')}</p>` : ''}
<p>${t.t('intro.howItWorks')}</p>
<form method="post" action="/a/${p.assignmentId}/begin" class="actions" id="begin-form"${checked ? html` data-camera-check="required"` : ''}>
  <input type="hidden" name="csrf" value="${p.csrfToken}">
  <button type="submit" class="button primary" id="begin-button"${checked ? html` disabled aria-describedby="camera-status"` : ''}>${t.t('intro.beginButton')}</button>
  ${proctoring ? html`<p class="hint" id="begin-hint">${t.t('intro.beginHint')}</p>` : ''}
</form>
${state ? html`<script type="application/json" id="assay-state">${jsonForScript(state)}</script>` : ''}`;
  return layout({ t, title: test.title, institutionName: p.institutionName, main, testMode: p.testMode, ...(proctoring ? { moduleScripts: [CAMERA_CHECK_SCRIPT], clientMessages: CAMERA_CHECK_CLIENT_MESSAGES } : {}) });
}
