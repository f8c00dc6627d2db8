import { englishTranslator, type MessageKey, type Translator } from '../../../platform/i18n/catalogue.js';
import type { AnswerValue } from '../../attempts/answer-values.js';
import type { BuiltInQuestion, Question } from '../../catalog/schemas.js';
import type { AnswerJson, BaseQuestion } from '../../catalog/question-types/definition.js';
import { questionType, questionTypeClientMessages } from '../../catalog/question-types/registry.js';
import { deliveredSections, type DeliveredTest } from '../../catalog/delivery.js';
import type { StoredAnswer } from '../../attempts/find-attempt.js';
import { formatPoints, html, jsonForScript, layout, type SafeHtml } from '../../../platform/web/html.js';
import { compositeInput, type UploadedFile } from './question-parts.js';
import { pageTexts, type PageTexts } from './page-content.js';
import { passageRun, passageRuns } from './passage-parts.js';
import { contentLangAttrs, isolatedTexts, isolatesTexts, type ContentLang } from '../../catalog/content/content-lang.js';
import type { ContentCache } from '../../catalog/content/content-cache.js';
import { PROCTOR_SCRIPT, PROCTORING_CLIENT_MESSAGES, recordingIndicator, supervisionNotices, supervisionPanel, type ProctoringPageState } from './proctoring-parts.js';

/**
 * The test page: every question on one page, in order, each a fieldset whose
 * legend holds the prompt. Saved answers are rendered into the fields, so the
 * page shows them even before the script runs; the script (student.js) adds
 * autosave, the navigator's live state, the timer and the submit dialog.
 * Nothing of the answer key reaches the page. A test with sections shows
 * each as a titled <section> (question numbers run on) and groups the
 * navigator's links the same way; a flat test has neither.
 */
export function testPage(p: {
  assignmentId: string;
  institutionName: string;
  test: DeliveredTest;
  csrfToken: string;
  deadlineAt: Date;
  serverNow: Date;
  answers: StoredAnswer[];
  /** The files that answer file_upload questions, by question id (load-student-page.ts). */
  files?: Readonly<Record<string, { fileId: string; fileName: string; contentType: string; bytes: number }>>;
  /** Proctored tests: mode, resolved rules and timings for proctor.js. */
  proctoring?: ProctoringPageState | null;
  /** Storage is S3: file answers are PUT straight to the bucket. */
  directUploads?: boolean;
  testMode?: boolean;
  /** The page's language; English when absent. */
  t?: Translator;
  /** The content's language when it is not the page's (load-student-page.ts): marks the questions, sections and passages. */
  contentLang?: ContentLang;
  /** Where the texts are rendered and cached: the student's cache (asset URLs under /a/) unless given; the portal's preview passes staff's. */
  content?: ContentCache;
}): string {
  const t = p.t ?? englishTranslator();
  // A test that does not say its language, on a page that is not English: each of its texts takes its own direction (catalog/content/content-lang.ts).
  const isolate = isolatesTexts(p.test as { language?: string | null }, p.contentLang, t.locale);
  const texts = isolate ? isolatedTexts(pageTexts(p.test, p.content, t)) : pageTexts(p.test, p.content, t);
  // The author's titles keep the page's alignment and take their own direction inside it.
  const own = (text: string) => (isolate ? html`<bdi>${text}</bdi>` : text);
  const saved = new Map(p.answers.map((a) => [a.questionId, a]));
  const files = p.files ?? {};
  const valueOf = (q: Question) => saved.get(q.id)?.value ?? null;
  const mark = contentLangAttrs(p.contentLang);
  const block = (q: Question, n: number) => questionBlock(q, n, valueOf(q), p.test, files[q.id], texts, mark);
  const deadlineLeft = secondsLeft(p.deadlineAt, p.serverNow);
  // Questions in runs of one passage: each passage is shown once on the page (passage-parts.ts).
  const shownPassages = new Set<string>();
  const blocks = (qs: Question[], first: number) =>
    passageRuns(qs.map((q, j) => ({ q, n: first + j })), p.test.passages ?? [], shownPassages).map((run) => passageRun(run, texts, block, mark));
  const sections = p.test.sections === null ? null : numberedSections(p.test);
  const questions = p.test.questions;
  const proctored = p.test.proctoring !== 'none';
  const answeredCount = questions.filter((q) => isAnswered(saved.get(q.id)?.value ?? null)).length;
  const state = {
    assignmentId: p.assignmentId,
    csrfToken: p.csrfToken,
    deadline: p.deadlineAt.toISOString(),
    serverNow: p.serverNow.toISOString(),
    questions: questions.map((q, i) => ({ id: q.id, type: q.type, n: i + 1, maxWords: q.type === 'essay' ? (q.maxWords ?? null) : null })),
    answers: Object.fromEntries(p.answers.map((a) => [a.questionId, { value: a.value, version: a.version }])),
    files: p.files ?? {},
    // S3 storage: file answers go straight to the bucket (question-fields.js).
    ...(p.directUploads ? { directUploads: true } : {}),
    ...(p.proctoring ? { proctoring: p.proctoring } : {}),
  };

  const main = html`
<h1>${own(p.test.title)}</h1>
<noscript><p class="notice">${t.t('test.noscript')}</p></noscript>
<div class="status-bar">
  <p class="timer"><span class="timer-label">${t.t('test.timeLeft')}</span> <span id="timer-value" role="timer">${remainingText(deadlineLeft)}</span> <span class="sr-only" id="timer-spoken">${t.t('test.timeLeftSpoken', { minutes: Math.ceil(deadlineLeft / 60) })}</span></p>
  ${p.testMode ? html`<p class="status-test-mode">${t.t('layout.testModeTag')}</p>` : ''}
  <p class="save-status" id="save-status" data-state="saved">${t.t('save.saved')}</p>
  ${proctored ? recordingIndicator(t) : ''}
  ${proctored ? supervisionNotices() : ''}
</div>
<div id="time-alert" class="time-alert" role="alert"></div>
${p.test.proctoring !== 'none' ? supervisionPanel(p.test.proctoring, p.proctoring?.relaxations, t) : ''}
<div id="connection-status" class="sr-only" role="status"></div>
<p id="time-notice" class="time-notice" role="status" aria-live="polite"></p>
<div class="test-layout">
<nav class="navigator" aria-labelledby="navigator-title">
  <h2 id="navigator-title">${t.t('test.navigatorTitle')}</h2>
  <p id="answered-count">${t.t('test.answeredCount', { answered: answeredCount, total: questions.length })}</p>
  ${
    sections
      ? sections.map(
          (s, k) => html`<h3 class="nav-section" id="nav-section-${k + 1}">${own(s.title)}</h3>
  <ol start="${s.first}" aria-labelledby="nav-section-${k + 1}">
    ${s.questions.map((q, j) => navItem(s.first + j, isAnswered(valueOf(q)), t))}
  </ol>`,
        )
      : html`<ol>
    ${questions.map((q, i) => navItem(i + 1, isAnswered(valueOf(q)), t))}
  </ol>`
  }
</nav>
<div id="answers" class="questions">
  ${
    sections
      ? sections.map(
          (s, k) => html`<section class="test-section" aria-labelledby="section-${k + 1}-title"${mark}>
<h2 class="section-title" id="section-${k + 1}-title">${own(s.title)}</h2>
${s.instructions ? sectionInstructions(s.id, s.instructions, texts) : ''}
${blocks(s.questions, s.first)}
</section>`,
        )
      : blocks(questions, 1)
  }
  <div class="actions"><button type="button" class="button primary" id="open-submit">${t.t('test.submitButton')}</button></div>
</div>
</div>
<dialog id="submit-dialog" aria-labelledby="submit-title" aria-describedby="submit-summary">
  <h2 id="submit-title">${t.t('test.submitTitle')}</h2>
  <p id="submit-summary">${t.t('test.unanswered', { count: questions.length - answeredCount })}</p>
  <p>${t.t('test.submitFinal')}</p>
  <p id="submit-progress" role="status"></p>
  <form method="post" action="/a/${p.assignmentId}/submit" id="submit-form">
    <input type="hidden" name="csrf" value="${p.csrfToken}">
    <div class="dialog-actions">
      <button type="button" class="button" id="cancel-submit">${t.t('test.keepWorking')}</button>
      <button type="submit" class="button primary" id="confirm-submit">${t.t('test.submitConfirm')}</button>
    </div>
  </form>
</dialog>
<script type="application/json" id="assay-state">${jsonForScript(state)}</script>`;
  const clientMessages = [...TEST_PAGE_MESSAGES, ...questionTypeClientMessages(typesOnPage(questions)), ...(proctored ? PROCTORING_CLIENT_MESSAGES : [])];
  return layout({ t, clientMessages, title: p.test.title, institutionName: p.institutionName, main, testMode: p.testMode, script: true, ...(proctored ? { moduleScripts: [PROCTOR_SCRIPT] } : {}) });
}

export function isAnswered(value: AnswerValue): boolean {
  if (value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  return typeof value === 'string' ? value.trim() !== '' : Object.keys(value).length > 0;
}

/**
 * The messages student.js formats in the browser (the timer's warnings, the
 * save states, the navigator, the submit dialog's progress); the question
 * types add their own (question-fields.js's essay word count and file upload
 * messages are those types').
 */
export const TEST_PAGE_MESSAGES = [
  'save.backOnline',
  'save.offline',
  'save.offlineAnnounced',
  'save.refused',
  'save.saved',
  'save.saving',
  'save.sessionEnded',
  'save.sessionEndedStatus',
  'test.answeredCount',
  'test.endChanged',
  'test.moreTime',
  'test.navAnswered',
  'test.navNotAnswered',
  'test.offlineSubmit',
  'test.savingLast',
  'test.sendingRecording',
  'test.submitting',
  'test.timeLeftSpoken',
  'test.timeLow1',
  'test.timeLow5',
  'test.timeUp',
  'test.unanswered',
] as const satisfies readonly MessageKey[];

/** The question types on the page, composite questions' parts included (their scripts run for the parts too). */
function typesOnPage(questions: readonly Question[]): Set<string> {
  const types = new Set<string>();
  for (const q of questions) {
    types.add(q.type);
    if (q.type === 'composite') for (const part of q.parts) types.add(part.type);
  }
  return types;
}

function secondsLeft(deadline: Date, now: Date): number {
  return Math.max(0, Math.ceil((deadline.getTime() - now.getTime()) / 1000));
}

/** The time left as the timer shows it (h:mm:ss, or m:ss under an hour): digits, the same in every language. */
function remainingText(s: number): string {
  const hh = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(hh > 0 ? 2 : 1, '0');
  const ss = String(s % 60).padStart(2, '0');
  return hh > 0 ? `${hh}:${mm}:${ss}` : `${mm}:${ss}`;
}

function navItem(n: number, answered: boolean, t: Translator): SafeHtml {
  return html`<li><a href="#question-${n}" id="nav-${n}" data-answered="${answered ? 'yes' : 'no'}"><span class="nav-number">${t.number(n)}</span><span class="sr-only">${t.t('test.navQuestion', { n })}</span> <span class="nav-state">${t.t(answered ? 'test.navAnswered' : 'test.navNotAnswered')}</span></a></li>`;
}

/** The delivered sections with their questions and the number of each section's first question. */
function numberedSections(test: DeliveredTest): Array<{ id: string; title: string; instructions: string | null; first: number; questions: Question[] }> {
  const byId = new Map(test.questions.map((q) => [q.id, q]));
  let next = 1;
  return deliveredSections(test).map((s) => {
    const questions = s.shownIds.map((id) => byId.get(id)!);
    const first = next;
    next += questions.length;
    return { id: s.id, title: s.title, instructions: s.instructions, first, questions };
  });
}


function sectionInstructions(sectionId: string, source: string, texts: PageTexts): SafeHtml {
  const shown = texts.block(`${sectionId}.instructions`, source);
  return texts.markdown ? html`<div class="section-instructions content">${shown}</div>` : html`<p class="section-instructions">${shown}</p>`;
}

/**
 * A question's fieldset. A plain prompt sits in the legend as it always has;
 * a Markdown prompt is block content (paragraphs, lists, tables, display
 * math), which a legend cannot hold, so it follows the legend and names the
 * group together with it.
 */
function questionBlock(q: Question, n: number, value: AnswerValue, test: DeliveredTest, file: UploadedFile | undefined, texts: PageTexts, mark: SafeHtml | '' = ''): SafeHtml {
  const { t } = texts;
  const points = html`<span class="question-points">${t.t('test.points', { points: Number(formatPoints(q.points)) })}</span>`;
  const where = t.t('test.where', { n });
  const prompt = texts.block(`${q.id}.prompt`, q.prompt);
  if (texts.markdown) {
    return html`<fieldset class="question" id="question-${n}" data-question-id="${q.id}" data-n="${n}" data-type="${q.type}" aria-labelledby="question-${n}-legend question-${n}-prompt"${mark}>
<legend id="question-${n}-legend"><span class="question-number">${t.t('test.questionNumber', { n })}</span> ${points}</legend>
<div class="prompt content" id="question-${n}-prompt">${prompt}</div>
${questionInput(q, `q${n}`, where, value, test, file, texts)}
</fieldset>`;
  }
  const legend = html`<legend><span class="question-number">${t.t('test.questionNumber', { n })}</span> <span class="prompt" id="question-${n}-prompt">${prompt}</span> ${points}</legend>`;
  return html`<fieldset class="question" id="question-${n}" data-question-id="${q.id}" data-n="${n}" data-type="${q.type}"${mark}>
${legend}
${questionInput(q, `q${n}`, where, value, test, file, texts)}
</fieldset>`;
}

/**
 * A question's controls; `id` prefixes their ids (`q3`, or `q3-p1` for a
 * composite question's first part) and `where` ends the answer fields'
 * names ("question 3", "question 3, part 1").
 */
function questionInput(question: Question, id: string, where: string, value: AnswerValue, test: DeliveredTest, file: UploadedFile | undefined, texts: PageTexts): SafeHtml {
  // A registered type writes its own part (a pure function of the question and its answer); the page places it.
  const def = questionType(question.type);
  if (def) return def.page(question as BaseQuestion, { id, where, value: (value ?? null) as AnswerJson, texts, shown: test.delivery, ...(file ? { file } : {}) });
  const q = question as BuiltInQuestion;
  switch (q.type) {
    case 'composite':
      return compositeInput(q, id, where, value, texts, (part, partId, partWhere, partValue) => questionInput(part, partId, partWhere, partValue, test, undefined, texts));
  }
}
