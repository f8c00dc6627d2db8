import type { Translator } from '../../platform/i18n/catalogue.js';
import { html, plural, timeTag, type SafeHtml } from '../../platform/web/html.js';
import type { TestSummary } from '../catalog/tests-service.js';
import type { LinkLearner } from './links-repo.js';
import { staffTranslator } from './lti-locale.js';

/**
 * The LTI pages for people: the refusal of a launch, the instructor's page of
 * a resource link, the deep-linking picker and its answer, and the page a
 * finished test returns to when the launch gave no return URL. Shown inside
 * the learning platform's frame, so framing is allowed (ltiPageHeaders).
 *
 * Each page takes its language (`t`, lti-locale.ts). What a learner, an
 * observer or anyone refused may see is in the catalogues (`lti.*`); the
 * pages only instructors and LMS administrators see (the link's progress, the
 * picker and its answer, registration) are English, as the staff portal is.
 */
export function ltiPageHeaders(opts: { allowInsecure: boolean; formAction?: string }): Record<string, string> {
  const ancestors = opts.allowInsecure ? 'https: http:' : 'https:';
  const formAction = opts.formAction ? `'self' ${opts.formAction}` : "'self'";
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action ${formAction}; base-uri 'none'; frame-ancestors ${ancestors}`,
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  };
}

export function page(p: { t: Translator; title: string; institutionName: string; main: SafeHtml; script?: string }): string {
  const { t } = p;
  const owner = p.institutionName || 'Assay';
  return `<!doctype html>${html`<html lang="${t.lang}" dir="${t.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t.t('layout.documentTitle', { title: p.title, owner })}</title>
<link rel="stylesheet" href="/assets/student.css">
<link rel="stylesheet" href="/lti/assets/lti.css">
${p.script ? html`<script src="${p.script}" defer></script>` : ''}
</head>
<body>
<a class="skip-link" href="#main">${t.t('layout.skipLink')}</a>
<header class="site-header"><p class="institution">${owner}</p></header>
<main id="main" tabindex="-1">
${p.main}
</main>
<footer class="site-footer"><p>${p.institutionName ? t.t('layout.footer', { institution: p.institutionName }) : t.t('layout.footerNoName')}</p></footer>
</body>
</html>`}`;
}

export function launchRefusedPage(t: Translator): string {
  const title = t.t('lti.refused.title');
  return page({
    t,
    title,
    institutionName: '',
    main: html`<h1>${title}</h1>
<p>${t.t('lti.refused.body')}</p>
<p>${t.t('lti.refused.next')}</p>`,
  });
}

export function returnPage(t: Translator): string {
  const title = t.t('lti.return.title');
  return page({ t, title, institutionName: '', main: html`<h1>${title}</h1><p>${t.t('lti.return.body')}</p>` });
}

const STATUS_WORDS: Record<string, string> = {
  assigned: 'Not started',
  started: 'In progress',
  submitted: 'Submitted',
  marking: 'Submitted, being marked',
  completed: 'Completed',
  expired: 'Expired',
  cancelled: 'Withdrawn',
};

/** What became of a learner's latest score in the gradebook, in words (the platform's answer when it refused). */
function gradebookLine(score: LinkLearner['score']): SafeHtml | '' {
  if (!score) return '';
  const what = score.gradingProgress === 'FullyGraded' ? 'Score' : 'Awaiting marking';
  if (score.status === 'delivered') return html`<p>${what}: sent to the gradebook.</p>`;
  if (score.status === 'failed') {
    return html`<p class="lti-problem">${what}: not accepted by the gradebook${score.lastStatusCode ? ` (it answered ${score.lastStatusCode})` : ''}. Ask your LMS administrator to check the tool's grade settings.</p>`;
  }
  return html`<p>${what}: being sent to the gradebook${score.lastStatusCode ? ` (the last try got ${score.lastStatusCode}; trying again)` : ''}.</p>`;
}

export function instructorPage(p: {
  institutionName: string;
  test: TestSummary;
  linkTitle: string | null;
  contextTitle: string | null;
  learners: LinkLearner[];
}): string {
  const count = (statuses: string[]) => p.learners.filter((l) => statuses.includes(l.status)).length;
  const started = p.learners.filter((l) => l.startedAt !== null).length;
  const main = html`<h1>${p.test.title}</h1>
<p class="lede">${p.linkTitle && p.linkTitle !== p.test.title ? html`Placed as “${p.linkTitle}”` : 'Placed'}${p.contextTitle ? html` in ${p.contextTitle}` : ''}. ${p.test.durationMinutes} minutes${p.test.proctoring === 'none' ? '' : ', proctored'}.</p>
<p>Students who open this activity take the test; you see their progress here. Scores go to the course gradebook when the activity has a grade column.</p>
<h2>Progress</h2>
<dl class="lti-counts">
<div><dt>Launched</dt><dd>${p.learners.length}</dd></div>
<div><dt>Started</dt><dd>${started}</dd></div>
<div><dt>Submitted</dt><dd>${count(['submitted', 'marking', 'completed'])}</dd></div>
<div><dt>Completed</dt><dd>${count(['completed'])}</dd></div>
</dl>
<h2>Students</h2>
${
  p.learners.length === 0
    ? html`<p>No student has opened this activity yet.</p>`
    : html`<ul class="lti-list">${p.learners.map(
        (l) => html`<li><div><h3>${l.name ?? l.email}</h3><p>${
          l.completedAt
            ? html`Completed ${timeTag(l.completedAt)}`
            : l.submittedAt
              ? html`${STATUS_WORDS[l.status] ?? l.status}, submitted ${timeTag(l.submittedAt)}`
              : l.startedAt
                ? html`${STATUS_WORDS[l.status] ?? l.status}, started ${timeTag(l.startedAt)}`
                : (STATUS_WORDS[l.status] ?? l.status)
        }</p>${gradebookLine(l.score)}</div></li>`,
      )}</ul>`
}`;
  return page({ t: staffTranslator(), title: p.test.title, institutionName: p.institutionName, main });
}

export function pickerPage(p: { institutionName: string; requestId: string; tests: TestSummary[]; query: string; total: number }): string {
  const main = html`<h1>Choose a test</h1>
<p class="lede">Pick the test to place in your course. Students who open the link take it; their scores go to the gradebook.</p>
<form class="lti-search" method="get" action="/lti/deep-link" role="search">
<input type="hidden" name="picker_token" value="${p.requestId}">
<div><label for="lti-q">Search by title</label><input id="lti-q" name="q" type="search" value="${p.query}"></div>
<button class="button" type="submit">Search</button>
</form>
<p>${p.query ? html`${plural(p.total, 'test')} match “${p.query}”.` : html`${plural(p.total, 'test')} published to ${p.institutionName || 'your institution'}.`}</p>
<ul class="lti-list">${p.tests.map(
    (t) => html`<li><div><h2 id="t-${t.testId}">${t.title}</h2><p>${t.durationMinutes} minutes · ${t.proctoring === 'none' ? 'not proctored' : 'proctored'}</p></div>
<form method="post" action="/lti/deep-link"><input type="hidden" name="picker_token" value="${p.requestId}"><input type="hidden" name="testId" value="${t.testId}">
<button class="button primary" type="submit" aria-describedby="t-${t.testId}">Use this test</button></form></li>`,
  )}</ul>`;
  return page({ t: staffTranslator(), title: 'Choose a test', institutionName: p.institutionName, main });
}

export function deepLinkReturnPage(p: { institutionName: string; returnUrl: string; jwt: string; testTitle: string }): string {
  const main = html`<h1>Adding “${p.testTitle}” to your course</h1>
<form id="lti-return" method="post" action="${p.returnUrl}">
<input type="hidden" name="JWT" value="${p.jwt}">
<p>If your course does not open by itself, continue:</p>
<p class="actions"><button class="button primary" type="submit">Return to your course</button></p>
</form>`;
  return page({ t: staffTranslator(), title: 'Adding the test to your course', institutionName: p.institutionName, main, script: '/lti/assets/auto-post.js' });
}

export function registrationPage(p: { ok: true; institutionName: string; issuer: string } | { ok: false; said: string }): string {
  const main = p.ok
    ? html`<h1>Assay is registered</h1>
<p>${p.institutionName ? html`${p.institutionName}’s` : 'Your'} learning platform (${p.issuer}) can now place Assay tests in courses.</p>
<p class="actions"><button class="button primary" type="button" id="lti-close">Finish</button></p>`
    : html`<h1>Assay could not be registered</h1><p>${p.said}</p><p>Nothing was registered. Try again, or ask Assay’s operators for help.</p>`;
  return page({
    t: staffTranslator(),
    title: p.ok ? 'Assay is registered' : 'Assay could not be registered',
    institutionName: p.ok ? p.institutionName : '',
    main,
    ...(p.ok ? { script: '/lti/assets/registration-close.js' } : {}),
  });
}

/** A launch inside the course's frame: the test opens in a new window (a button-styled link, so it works without scripts). */
export function newWindowPage(p: { t: Translator; institutionName: string; testTitle: string; href: string }): string {
  const { t } = p;
  const main = html`<h1>${p.testTitle}</h1>
<p>${t.t('lti.newWindow.body')}</p>
<p class="actions"><a class="button primary" href="${p.href}" target="_blank" rel="noopener">${t.t('lti.newWindow.open')}<span class="sr-only"> ${t.t('lti.newWindow.opensNew')}</span></a></p>
<p>${t.t('lti.newWindow.after')}</p>`;
  return page({ t, title: p.testTitle, institutionName: p.institutionName, main });
}

/** An observer's launch (a mentor, a Canvas observer): the test is the student's to take; nothing was created. */
export function observerPage(p: { t: Translator; institutionName: string; testTitle: string; contextTitle: string | null }): string {
  const { t } = p;
  const main = html`<h1>${p.testTitle}</h1>
<p>${p.contextTitle ? t.t('lti.observer.body', { course: p.contextTitle }) : t.t('lti.observer.bodyNoCourse')}</p>
<p>${t.t('lti.observer.grades')}</p>`;
  return page({ t, title: p.testTitle, institutionName: p.institutionName, main });
}

/**
 * A verified launch of a link that names no test (a tool URL added by hand):
 * what the instructor does about it (English, a staff page), or, for a
 * learner, that the instructor has not chosen the test yet (the learner's language).
 */
export function noTestChosenPage(p: { t: Translator; institutionName: string; staff: boolean; linkTitle: string | null }): string {
  if (!p.staff) {
    const { t } = p;
    const title = t.t('lti.noTest.title');
    const main = html`<h1>${title}</h1>
<p>${p.linkTitle ? t.t('lti.noTest.body', { activity: p.linkTitle }) : t.t('lti.noTest.bodyNoTitle')}</p>
<p>${t.t('lti.noTest.tellInstructor')}</p>`;
    return page({ t, title, institutionName: p.institutionName, main });
  }
  const what = p.linkTitle ? html`“${p.linkTitle}”` : 'This activity';
  const main = html`<h1>No test is chosen for this link</h1>
<p>${what} opens Assay, but does not say which test to take. Nothing was created.</p>
<h2>To choose a test</h2>
<ul>
<li>Add the activity again with Assay’s test picker: in your course, add an external tool activity, choose Assay, and pick the test with <strong>Use this test</strong> (the LMS calls this deep linking or content selection).</li>
<li>Or, in the activity’s settings, set the custom parameter <code>assay_test_id=tst_…</code> to the id of a test published to your institution (your Assay admin finds it in the portal’s test list).</li>
</ul>`;
  return page({ t: staffTranslator(), title: 'No test is chosen for this link', institutionName: p.institutionName, main });
}
