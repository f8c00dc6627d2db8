import type { ErrorObject } from 'ajv';
import type { ErrorDetail } from '../../../platform/errors.js';
import { validationDetails, validatorCompiler } from '../../../platform/http/validation.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { testPage } from '../../student/pages/test-page.js';
import { createContentCache } from '../../catalog/content/content-cache.js';
import { staffAssetUrl, type ContentFormat } from '../../catalog/content/content-format.js';
import { deliver } from '../../catalog/delivery.js';
import { QuestionSchema, type Question } from '../../catalog/schemas.js';
import type { StoredSection } from '../../catalog/sections.js';
import type { TestVersion } from '../../catalog/tests-service.js';

/**
 * The editor's preview of a SAVED draft (docs/authoring.md "Preview"): the
 * student page's own renderer (`testPage`), every section and question in
 * authored order. A draft may be incomplete or invalid: each question that
 * can be rendered is; one that cannot is shown as a placeholder that says
 * why ("Question 3 cannot be previewed yet: …"), in its place and with its
 * number. Problems of the test itself (title, marking, …) are listed above
 * the questions. Nothing here throws on a draft's content.
 *
 * Rendered pages are kept per (test, revision, next version) in a bounded
 * LRU: a draft revision never changes, so the preview of one renders once.
 */
type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
const validateQuestion = validatorCompiler({ schema: QuestionSchema, method: 'PUT', url: '/draft/question', httpPart: 'body' }) as unknown as Validate;

/** Rendered texts of drafts: their own cache so drafts never push versions out of the staff pages' cache. */
const draftContent = createContentCache({ assetUrl: staffAssetUrl, maxVersions: 20 });
const PAGE_CACHE_SIZE = 20;
const pages = new Map<string, string>();

const FORMATS: ReadonlySet<string> = new Set(['plain', 'markdown']);
const PROCTORING: ReadonlySet<string> = new Set(['none', 'record', 'live_ai']);
const PLACEHOLDER_PREFIX = 'preview-placeholder-';

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown, dflt: string) => (typeof v === 'string' ? v : dflt);

interface Slot {
  /** The question to render (a stand-in for a placeholder). */
  question: Question;
  /** Why it cannot be previewed; null: it renders. */
  problem: string | null;
}

export interface DraftPreviewInput {
  testId: string;
  revision: number;
  nextVersion: number;
  content: Raw;
  /** What publishing would refuse now (drafts.ts `draftProblems`), at their field paths. */
  problems: ErrorDetail[];
  now: Date;
}

export function draftPreview(input: DraftPreviewInput): string {
  const key = `${input.testId}:${input.revision}:${input.nextVersion}`;
  const cached = pages.get(key);
  if (cached !== undefined) {
    pages.delete(key);
    pages.set(key, cached);
    return cached;
  }
  const page = renderDraft(input, key);
  if (pages.size >= PAGE_CACHE_SIZE) pages.delete(pages.keys().next().value!);
  pages.set(key, page);
  return page;
}

function renderDraft(input: DraftPreviewInput, key: string): string {
  const c = input.content;
  const groups = Array.isArray(c.sections)
    ? c.sections.map((s, k) => ({ at: `sections.${k}.questions`, section: isObject(s) ? s : {}, k }))
    : [{ at: 'questions', section: null, k: 0 }];
  let n = 0;
  const slots: Slot[] = [];
  const sections: StoredSection[] = [];
  for (const g of groups) {
    const list = g.section ? g.section.questions : c.questions;
    const items = Array.isArray(list) ? list : [];
    const ids: string[] = [];
    items.forEach((raw, i) => {
      n += 1;
      const slot = questionSlot(raw, `${g.at}.${i}`, n, input.problems);
      slots.push(slot);
      ids.push(slot.question.id);
    });
    if (g.section) {
      sections.push({
        id: `preview-section-${g.k + 1}`,
        title: str(g.section.title, ''),
        instructions: typeof g.section.instructions === 'string' ? g.section.instructions : null,
        shuffleQuestions: false,
        draw: null,
        questionIds: ids,
      });
    }
  }
  const testProblems = input.problems.filter((p) => !/^(questions|sections\.\d+\.questions)\.\d+(\.|$)/.test(p.field));
  return render(input, key, slots, Array.isArray(c.sections) ? sections : null, testProblems);
}

/** A question as the preview shows it: itself when its schema and the authoring rules hold, else a placeholder naming the first problem. */
function questionSlot(raw: unknown, at: string, n: number, problems: ErrorDetail[]): Slot {
  const own = problems.find((p) => p.field === at || p.field.startsWith(`${at}.`));
  const copy: unknown = isObject(raw) ? structuredClone(raw) : raw;
  let problem: string | null = null;
  if (!validateQuestion(copy)) {
    const first = validationDetails(validateQuestion.errors ?? [], 'body')[0];
    problem = first ? describe(first) : 'it is not a question yet';
  } else if (own) {
    problem = describe({ ...own, field: own.field.slice(at.length + 1) });
  }
  if (problem !== null) return { question: standIn(n), problem };
  const q = copy as Question;
  return { question: { ...q, id: typeof q.id === 'string' && q.id !== '' ? q.id : `preview-q-${n}` }, problem: null };
}

function describe(p: ErrorDetail): string {
  return p.field ? `${p.field} ${p.message}` : p.message;
}

function standIn(n: number): Question {
  return { id: `${PLACEHOLDER_PREFIX}${n}`, type: 'short_text', prompt: '', points: 0, acceptedAnswers: ['-'] } as Question;
}

function render(input: DraftPreviewInput, key: string, slots: Slot[], sections: StoredSection[] | null, testProblems: ErrorDetail[]): string {
  const c = input.content;
  const duration = typeof c.durationMinutes === 'number' && c.durationMinutes > 0 ? c.durationMinutes : 60;
  const test: TestVersion = {
    testVersionId: `draft:${key}`,
    testId: input.testId,
    version: input.nextVersion,
    title: str(c.title, '') || 'Untitled test',
    description: str(c.description, ''),
    durationMinutes: duration,
    proctoring: (PROCTORING.has(String(c.proctoring)) ? c.proctoring : 'none') as TestVersion['proctoring'],
    marking: 'auto',
    resultVisibility: 'immediate',
    passPercent: null,
    proctoringRules: null,
    questions: slots.map((s) => s.question),
    sections,
    contentFormat: (FORMATS.has(String(c.contentFormat)) ? c.contentFormat : 'plain') as ContentFormat,
    createdAt: input.now,
  };
  let page = testPage({
    assignmentId: 'preview',
    institutionName: 'Preview',
    test: deliver(test, null),
    csrfToken: 'preview',
    deadlineAt: new Date(input.now.getTime() + duration * 60_000),
    serverNow: input.now,
    answers: [],
    content: draftContent,
  });
  // The frame runs no script, so the page's "turn JavaScript on" notice would only mislead here.
  page = page.replace(/<noscript>[\s\S]*?<\/noscript>/, '');
  // Nor does it load the student page's scripts or their state (the CSP would refuse them anyway).
  page = page.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '');
  slots.forEach((s, i) => {
    if (s.problem === null) return;
    const re = new RegExp(`<fieldset class="question" id="question-${i + 1}" data-question-id="${PLACEHOLDER_PREFIX}${i + 1}"[\\s\\S]*?</fieldset>`);
    page = page.replace(re, () => String(placeholder(i + 1, s.problem!)));
  });
  if (testProblems.length > 0) page = page.replace(/(<h1>[\s\S]*?<\/h1>)/, (h1) => `${h1}\n${String(problemList(testProblems))}`);
  return page;
}

function placeholder(n: number, problem: string): SafeHtml {
  return html`<div class="question notice preview-unavailable" id="question-${n}" role="note"><p><strong>Question ${n} cannot be previewed yet:</strong> ${problem}.</p></div>`;
}

function problemList(problems: ErrorDetail[]): SafeHtml {
  const shown = problems.slice(0, 10);
  const more = problems.length - shown.length;
  return html`<div class="notice preview-problems" role="note"><p>This draft cannot be published yet:</p><ul>${shown.map((p) => html`<li>${describe(p)}</li>`)}</ul>${more > 0 ? html`<p>and ${more} more.</p>` : ''}</div>`;
}
