import type { Assignment, Test } from '../../packages/partner-sdk/src/index.js';
import type { Enrolment } from './store.js';

/**
 * The LMS's pages: plain server-rendered HTML with one stylesheet inline
 * (nothing loaded from elsewhere), landmarks, labelled fields, and a layout
 * that reflows from desktop to a phone's width.
 */
export const esc = (s: unknown): string =>
  String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2430;background:#f4f6f9}
header{background:#1f3a5f;color:#fff}
header .bar{max-width:960px;margin:0 auto;padding:.75rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center}
header .brand{font-weight:700;font-size:1.15rem;margin-right:auto}
header a{color:#fff;text-decoration:none;padding:.25rem 0;border-bottom:2px solid transparent}
header a[aria-current=page]{border-bottom-color:#ffd166}
header a:focus-visible,a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}
.mode{background:#ffd166;color:#3b2a00;font-size:.8rem;font-weight:700;padding:.1rem .5rem;border-radius:999px}
main{max-width:960px;margin:0 auto;padding:1.25rem 1rem 3rem}
h1{font-size:1.6rem;margin:.25rem 0 1rem}
h2{font-size:1.2rem;margin:0 0 .75rem}
.card{background:#fff;border:1px solid #d8dee8;border-radius:10px;padding:1rem 1.25rem;margin-bottom:1.25rem}
.tests{list-style:none;padding:0;margin:0;display:grid;gap:.75rem;grid-template-columns:repeat(auto-fill,minmax(240px,1fr))}
.tests li{border:1px solid #d8dee8;border-radius:8px;padding:.75rem;background:#fbfcfe}
.tests h3{margin:0 0 .25rem;font-size:1.05rem}
.meta{color:#4a5566;font-size:.9rem;margin:0}
form .row{display:grid;gap:.75rem;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));margin-bottom:1rem}
label{display:block;font-weight:600;margin-bottom:.25rem}
input,select{width:100%;font:inherit;padding:.5rem .6rem;border:1px solid #8a96a8;border-radius:6px;background:#fff}
button,.button{display:inline-block;font:inherit;font-weight:600;background:#1f6feb;color:#fff;border:0;border-radius:6px;padding:.6rem 1.1rem;cursor:pointer;text-decoration:none}
button:hover,.button:hover{background:#1658c0}
.error{background:#fdecec;border:1px solid #e5a0a0;color:#7a1212;border-radius:8px;padding:.75rem 1rem;margin-bottom:1rem}
.note{color:#4a5566;font-size:.9rem}
table{width:100%;border-collapse:collapse;background:#fff}
caption{text-align:left;font-weight:600;padding:.5rem 0}
th,td{text-align:left;padding:.55rem .6rem;border-bottom:1px solid #e3e7ee;vertical-align:top}
th{background:#eef2f7;font-size:.9rem}
.status{display:inline-block;padding:.05rem .55rem;border-radius:999px;font-size:.85rem;font-weight:600;background:#e6ebf2;color:#26354a}
.status-completed{background:#dcf5e3;color:#0f5c2a}.status-started,.status-submitted{background:#e3eeff;color:#123d7a}
.status-marking{background:#fff3d6;color:#6b4800}.status-expired,.status-cancelled{background:#f1e4e4;color:#6d1f1f}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.simulate{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center}.simulate select{width:auto;padding:.3rem .4rem}
button.small{padding:.35rem .7rem;font-size:.9rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.35rem 1rem;margin:0}
dt{font-weight:600}dd{margin:0}
@media (max-width:600px){
  .stack thead{display:none}
  .stack tr{display:block;border-bottom:1px solid #d8dee8;padding:.5rem 0}
  .stack td{display:grid;grid-template-columns:7.5rem minmax(0,1fr);border:0;padding:.2rem .6rem}
  .stack td::before{content:attr(data-label);font-weight:600;color:#4a5566}
  dl{grid-template-columns:1fr}
}`;

export function layout(opts: { title: string; current: 'tests' | 'students' | null; testMode: boolean; body: string; script?: string }): string {
  const nav = (href: string, label: string, key: 'tests' | 'students') =>
    `<a href="${href}"${opts.current === key ? ' aria-current="page"' : ''}>${label}</a>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(opts.title)} · Riverside LMS</title>
<style>${STYLE}</style>
</head>
<body>
<header><div class="bar"><span class="brand">Riverside LMS</span>${opts.testMode ? '<span class="mode">Test mode</span>' : ''}
<nav aria-label="Main">${nav('/', 'Tests', 'tests')} &nbsp; ${nav('/students', 'Students', 'students')}</nav></div></header>
<main id="main">
${opts.body}
</main>
${opts.script ? `<script>${opts.script}</script>` : ''}
</body>
</html>`;
}

const minutes = (n: number) => `${n} min`;

/**
 * The languages the form offers for the student's test, sent to Assay as
 * the assignment's `locale` (a BCP 47 tag; Assay shows the nearest language
 * it has, with dates for the tag's region). Empty: the student's browser decides.
 */
export const TEST_LANGUAGES: ReadonlyArray<[tag: string, name: string]> = [
  ['en', 'English'],
  ['es', 'Español'],
  ['fr', 'Français'],
  ['fr-CA', 'Français (Canada)'],
  ['de', 'Deutsch'],
  ['pt-BR', 'Português (Brasil)'],
  ['ar', 'العربية'],
  ['he', 'עברית'],
  ['zh-Hans', '简体中文'],
  ['ja', '日本語'],
  ['hi', 'हिन्दी'],
  ['uk', 'Українська'],
];

function languageOptions(selected: string): string {
  const none = `<option value=""${selected === '' ? ' selected' : ''}>The student’s browser language</option>`;
  return none + TEST_LANGUAGES.map(([tag, name]) => `<option value="${tag}" lang="${tag}"${tag === selected ? ' selected' : ''}>${esc(name)}</option>`).join('');
}

export function testsPage(tests: Test[], form: { nonce: string; error?: string; values?: Record<string, string> }): string {
  const v = form.values ?? {};
  const options = tests
    .map((t) => `<option value="${esc(t.testId)}"${v.testId === t.testId ? ' selected' : ''}>${esc(t.title)}</option>`)
    .join('');
  const cards = tests
    .map(
      (t) => `<li><h3>${esc(t.title)}</h3><p>${esc(t.description)}</p>
<p class="meta">${minutes(t.durationMinutes)} · marking: ${esc(t.marking)} · results: ${t.resultVisibility === 'immediate' ? 'at once' : 'after review'}${t.proctoring !== 'none' ? ` · proctored (${esc(t.proctoring)})` : ''}</p></li>`,
    )
    .join('');
  return `<h1>Tests</h1>
<section class="card" aria-labelledby="assign-h">
<h2 id="assign-h">Assign a test to a student</h2>
${form.error ? `<div class="error" role="alert">${esc(form.error)}</div>` : ''}
<form method="post" action="/assign">
<input type="hidden" name="nonce" value="${esc(form.nonce)}">
<div class="row">
<div><label for="testId">Test</label><select id="testId" name="testId" required>${options}</select></div>
<div><label for="externalUserId">Student ID</label><input id="externalUserId" name="externalUserId" required maxlength="128" autocomplete="off" value="${esc(v.externalUserId)}"></div>
</div>
<div class="row">
<div><label for="name">Name</label><input id="name" name="name" autocomplete="name" value="${esc(v.name)}"></div>
<div><label for="email">Email</label><input id="email" name="email" type="email" required autocomplete="email" value="${esc(v.email)}"></div>
</div>
<div class="row">
<div><label for="locale">Test language</label><select id="locale" name="locale">${languageOptions(v.locale ?? '')}</select></div>
</div>
<button type="submit">Assign and start the test</button>
<p class="note">The student is sent straight to the test; at the end the “Return” button brings them back here.</p>
</form>
</section>
<section aria-labelledby="catalogue-h"><h2 id="catalogue-h">Published to us (${tests.length})</h2><ul class="tests">${cards}</ul></section>`;
}

export function scoreText(e: Pick<Enrolment, 'score'>): string {
  if (!e.score) return '—';
  const pending = e.score.gradingStatus === 'pending_review' ? ' (marking pending)' : '';
  const passed = e.score.passed === null ? '' : e.score.passed ? ', passed' : ', not passed';
  return `${e.score.points} / ${e.score.maxPoints} (${Math.round(e.score.percent)}%${passed})${pending}`;
}

export const statusBadge = (status: string) => `<span class="status status-${esc(status)}">${esc(status)}</span>`;

/** A cell whose content is one element, so the phone layout's label column stays beside it. */
const cell = (label: string, html: string) => `<td data-label="${label}"><div>${html}</div></td>`;

const SIMULATE_ACTIONS = ['start', 'submit', 'violation', 'finish_marking', 'expire'] as const;

/**
 * The step that moves a row on from its status, preselected; null when the
 * assignment is over. Every step stays offered: the row shows the last
 * webhook applied, which may lag behind Assay by a moment.
 */
const NEXT_STEP: Record<Enrolment['status'], (typeof SIMULATE_ACTIONS)[number] | null> = {
  assigned: 'start',
  started: 'submit',
  submitted: 'finish_marking',
  marking: 'finish_marking',
  completed: null,
  expired: null,
  cancelled: null,
};

/** Test mode only: play an assignment's next step without a student (the events come back as webhooks). */
function simulateForm(e: Enrolment): string {
  const next = NEXT_STEP[e.status];
  if (!next) return '<span class="note">Nothing left to simulate</span>';
  const id = esc(e.assignmentId);
  const options = SIMULATE_ACTIONS.map((a) => `<option value="${a}"${a === next ? ' selected' : ''}>${a.replace('_', ' ')}</option>`).join('');
  return `<form method="post" action="/simulate" class="simulate"><input type="hidden" name="assignmentId" value="${id}">
<label class="sr-only" for="act-${id}">Step to simulate for ${esc(e.name || e.externalUserId)}</label>
<select id="act-${id}" name="action">${options}</select> <button type="submit" class="small">Simulate</button></form>`;
}

export function studentRows(enrolments: Enrolment[], testMode = false): string {
  if (enrolments.length === 0) return `<tr><td colspan="${testMode ? 6 : 5}">No assignments yet: assign a test from the Tests page.</td></tr>`;
  return enrolments
    .map(
      (e) => `<tr id="row-${esc(e.assignmentId)}">${cell('Student', `${esc(e.name || e.externalUserId)}<br><span class="note">${esc(e.externalUserId)}</span>`)}
${cell('Test', esc(e.testTitle))}${cell('Status', statusBadge(e.status))}${cell('Score', esc(scoreText(e)))}
${cell('Updated', `<time datetime="${esc(e.updatedAt)}">${esc(e.updatedAt.slice(0, 19).replace('T', ' '))}</time>`)}${testMode ? cell('Simulate', simulateForm(e)) : ''}</tr>`,
    )
    .join('');
}

/** Live updates: the server pushes the table body over Server-Sent Events; without scripts, the page refreshes itself. */
const LIVE_SCRIPT = `(function(){var tb=document.getElementById('rows'),say=document.getElementById('live');
var es=new EventSource('/students/stream');es.onmessage=function(m){var d=JSON.parse(m.data);tb.innerHTML=d.rows;if(d.announce)say.textContent=d.announce;};})();`;

export function studentsPage(enrolments: Enrolment[], opts: { testMode: boolean; notice?: string | null }): { body: string; script: string } {
  const simulateHead = opts.testMode ? '<th scope="col">Simulate (test mode)</th>' : '';
  return {
    body: `<h1>Students</h1>
<p class="note">Status and score arrive by signed webhook and update here as they do.</p>
${opts.notice ? `<div class="error" role="alert">${esc(opts.notice)}</div>` : ''}
<p id="live" class="note" role="status" aria-live="polite"></p>
<noscript><meta http-equiv="refresh" content="5"></noscript>
<table class="stack"><caption>Assignments, newest first</caption>
<thead><tr><th scope="col">Student</th><th scope="col">Test</th><th scope="col">Status</th><th scope="col">Score</th><th scope="col">Updated (UTC)</th>${simulateHead}</tr></thead>
<tbody id="rows">${studentRows(enrolments, opts.testMode)}</tbody></table>`,
    script: LIVE_SCRIPT,
  };
}

export function returnPage(a: Assignment, e: Enrolment): string {
  const score = a.result.score ? scoreText({ score: a.result.score }) : a.status === 'marking' ? 'Marking in progress' : '—';
  return `<h1>Welcome back, ${esc(e.name || e.externalUserId)}</h1>
<section class="card" aria-labelledby="res-h"><h2 id="res-h">${esc(e.testTitle)}</h2>
<dl><dt>Status</dt><dd>${statusBadge(a.status)}</dd><dt>Score</dt><dd>${esc(score)}</dd>
<dt>Submitted</dt><dd>${a.submittedAt ? `<time datetime="${esc(a.submittedAt)}">${esc(a.submittedAt.slice(0, 19).replace('T', ' '))} UTC</time>` : '—'}</dd></dl>
<p class="note">Read from Assay just now, not from the link that brought you here.</p>
<p><a class="button" href="/students">See all students</a></p></section>`;
}

export function messagePage(heading: string, text: string): string {
  return `<h1>${esc(heading)}</h1><div class="card"><p>${esc(text)}</p><p><a href="/">Back to the tests</a></p></div>`;
}
