import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import type { Queryable } from '../../../platform/db.js';
import { html } from '../../../platform/web/html.js';
import { draftProblems, getDraftView, type DraftView } from '../../catalog/drafts.js';
import { createContentCache } from '../../catalog/content/content-cache.js';
import { staffAssetUrl } from '../../catalog/content/content-format.js';
import type { StoredSection } from '../../catalog/sections.js';
import type { Question } from '../../catalog/schemas.js';
import type { TestVersion } from '../../catalog/tests-service.js';
import type { ValidationProblem } from '../../../platform/http/validation.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { portalTranslator } from '../ui/portal-text.js';
import { previewOfVersion } from './preview-page.js';
import { problemText } from './problem-words.js';
import { Html, pageRoute } from '../ui/page.js';
import { scopeOf } from './authoring-api.js';
import { PREVIEW_HEADERS } from './test-pages.js';

/**
 * The editor's preview (docs/authoring.md "Preview"): the SAVED draft
 * rendered by the student page's own renderer (testPage, the portal's asset
 * paths), every section and question in the authored order. A draft may be
 * incomplete: the questions that pass the checks are shown, and a notice at
 * the top names each one that cannot be shown yet and why (an invalid
 * formula among them) — never an error page. Rendered texts are cached per
 * (test, revision) in a cache of their own, so previews never push the live
 * versions' texts out.
 */
const previewContent = createContentCache({ assetUrl: staffAssetUrl, maxVersions: 50 });
const TestParams = Type.Object({ testId: Type.String({ maxLength: 64 }) });

interface Held {
  question: Question | null;
  /** Its place in the draft, counted from 1 across sections. */
  n: number;
  problems: ValidationProblem[];
}

const text = (v: unknown, fallback: string) => (typeof v === 'string' && v.trim() !== '' ? v : fallback);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** An unfinished draft's pool size as written, when it is one the preview can state (a whole number below the questions shown). */
const poolSize = (v: unknown, shown: number): number | null => (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v < shown ? v : null);

/** One question checked on its own (in a test that lets every type through); null when it cannot be shown. */
async function checkedQuestion(db: Queryable, q: unknown, owner: string | null, contentFormat: unknown): Promise<{ question: Question | null; problems: ValidationProblem[] }> {
  const alone = { title: 'Preview', description: '', durationMinutes: 1, proctoring: 'none', marking: 'hybrid', resultVisibility: 'after_review', contentFormat, questions: [q] };
  const { problems, valid } = await draftProblems(db, alone, owner);
  return { question: valid ? valid.checked.questions[0]! : null, problems: problems.map((p) => ({ ...p, field: p.field.replace(/^questions\.0\.?/, '') })) };
}

/** The draft as a version to render: the whole test when it is publishable, else question by question (what it lacks named in the author's language). */
export async function previewVersion(db: Queryable, draft: DraftView, t: Translator = portalTranslator()): Promise<{ version: TestVersion; held: Held[] }> {
  const c = draft.content;
  const whole = await draftProblems(db, c, draft.ownerInstitutionId);
  const head = {
    testVersionId: `preview:${draft.testId}:${draft.revision}`,
    testId: draft.testId,
    version: draft.nextVersion,
    title: text(c.title, t.t('portal.authoring.untitled')),
    description: typeof c.description === 'string' ? c.description : '',
    durationMinutes: typeof c.durationMinutes === 'number' && c.durationMinutes > 0 ? c.durationMinutes : 30,
    proctoring: 'none' as const,
    marking: 'hybrid' as const,
    resultVisibility: 'after_review' as const,
    passPercent: null,
    proctoringRules: null,
    contentFormat: c.contentFormat === 'markdown' ? ('markdown' as const) : ('plain' as const),
    // The preview shows the source texts; the translations are the editor's Translations panel's.
    language: typeof c.language === 'string' ? c.language : null,
    translations: {},
    createdAt: new Date(0),
  };
  if (whole.valid) return { version: { ...head, questions: whole.valid.checked.questions, sections: whole.valid.checked.sections, passages: whole.valid.checked.passages }, held: [] };
  // An unfinished draft still previews each passage that has an id and a text.
  const passages = (list(c.passages) as Array<Record<string, unknown>>)
    .filter((p: Record<string, unknown>) => typeof p?.id === 'string' && typeof p.text === 'string' && p.text !== '')
    .map((p: Record<string, unknown>) => ({ id: p.id as string, text: p.text as string, ...(typeof p.title === 'string' && p.title !== '' ? { title: p.title } : {}) }));

  const groups = Array.isArray(c.sections)
    ? c.sections.map((s: Record<string, unknown>, k: number) => ({ s, k, questions: list(s?.questions) }))
    : [{ s: null, k: 0, questions: list(c.questions) }];
  const questions: Question[] = [];
  const sections: StoredSection[] = [];
  const held: Held[] = [];
  const ids = new Set<string>();
  let n = 0;
  for (const g of groups) {
    const questionIds: string[] = [];
    for (const q of g.questions) {
      n += 1;
      const { question, problems } = await checkedQuestion(db, q, draft.ownerInstitutionId, c.contentFormat);
      if (!question) {
        held.push({ question: null, n, problems });
        continue;
      }
      // Two questions with one id would be one to the page: the preview names the second apart.
      const id = ids.has(question.id) ? `${question.id}-${n}` : question.id;
      ids.add(id);
      questions.push({ ...question, id });
      questionIds.push(id);
    }
    if (g.s) {
      sections.push({ id: `sec-${g.k}`, title: text(g.s.title, t.t('portal.authoring.sectionN', { n: g.k + 1 })), instructions: typeof g.s.instructions === 'string' ? g.s.instructions : null, shuffleQuestions: false, draw: poolSize(g.s.draw, questionIds.length), questionIds });
    }
  }
  return { version: { ...head, questions, sections: Array.isArray(c.sections) ? sections : null, passages }, held };
}

function heldNotice(held: Held[], t: Translator): string {
  if (held.length === 0) return '';
  return html`<div class="notice" role="note"><h2>${t.t('portal.authoring.preview.heldHeading')}</h2><ul>${held.map(
    (h) => html`<li>${t.t('portal.authoring.preview.held', { n: h.n, problems: h.problems.map((p) => problemText(p, t)).join('; ') })}</li>`,
  )}</ul></div>`.toString();
}

export const draftPreviewPage: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const t = portalTranslator();
  app.get(
    '/tests/:testId/draft/preview',
    { schema: { ...pageRoute, params: TestParams, querystring: Type.Object({ revision: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_000_000_000 })) }), response: { 200: Html } } },
    async (request, reply) => {
      const draft = await getDraftView(ctx.pool, scopeOf(request), request.params.testId);
      const { version, held } = await previewVersion(ctx.pool, draft, t);
      // Say what is not shown yet at the top.
      const page = previewOfVersion(version, previewContent, ctx.clock.now(), t).replace(/<main[^>]*>/, (main) => main + heldNotice(held, t));
      return reply.code(200).headers(PREVIEW_HEADERS).send(page);
    },
  );
};
