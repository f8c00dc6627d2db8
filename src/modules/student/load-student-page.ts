import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { effectiveProctoringRelaxations } from '../assignments/accommodations.js';
import { findAssignment, type AssignmentRow } from '../assignments/find-assignment.js';
import { expireIfDue } from '../assignments/get-assignment.js';
import { getInstitution } from '../institutions/institutions.js';
import type { Score } from '../lifecycle/score.js';
import type { SubmittedStatus } from '../lifecycle/state-machine.js';
import { deliver, type DeliveredTest } from '../catalog/delivery.js';
import { attemptProctoringState, proctoringPageState, type ProctoringPageState } from '../proctoring/page-state.js';
import { findAttempt, listAnswers, type StoredAnswer } from '../attempts/find-attempt.js';
import { currentAnswerFiles, summaryOf, type AnswerFileSummary } from '../attempts/answer-files.js';
import { returnUrl } from './return-url.js';
import type { StudentSession } from '../assignments/student-sessions.js';
import { submitAttempt } from '../marking/submit-attempt.js';
import { loadTestVersion } from '../catalog/test-versions.js';
import { acceptsSaves, timeAllowedMs } from '../attempts/timing.js';
import { translator, type Translator } from '../../platform/i18n/catalogue.js';
import { acceptLanguageTags, chooseLocale } from '../../platform/i18n/locales.js';
import { chooseContentLanguage, localizeTest } from '../catalog/translations/localize.js';
import { contentMark } from '../catalog/content/content-lang.js';
import { releasedFeedback, type CandidateFeedback } from '../assignments/candidate-feedback.js';

interface Common {
  assignmentId: string;
  institutionName: string;
  /** The test as this candidate is given it (every question before the attempt begins). */
  test: DeliveredTest;
  csrfToken: string;
  /** For the pages' scripts of a proctored test (camera check, recording, heartbeat); null for proctoring none. */
  proctoring: ProctoringPageState | null;
  /** A test-mode assignment (livemode false): every page says so. */
  testMode: boolean;
  /** The language the page is shown in (docs/languages.md). */
  t: Translator;
  /**
   * The language the test's texts are shown in (docs/test-format.md "Languages"), with its
   * direction, when it is not the page's: the page marks the test's content with it; null otherwise.
   */
  contentLang: { lang: string; dir: 'ltr' | 'rtl' } | null;
}

/** What the student sees at /a/{assignmentId}, by status. */
export type StudentPage =
  | (Common & { kind: 'intro'; dueAt: Date | null })
  | (Common & { kind: 'test'; deadlineAt: Date; serverNow: Date; answers: StoredAnswer[]; files: Record<string, AnswerFileSummary>; directUploads: boolean })
  | (Common & {
      kind: 'done';
      status: SubmittedStatus;
      submittedAt: Date | null;
      score: Score | null;
      returnUrl: string;
      /** The reviewer's feedback once the result is released (null before, and when none); each question with its number as the candidate saw it. */
      feedback: (Omit<CandidateFeedback, 'questions'> & { questions: Array<{ n: number; feedback: string }> }) | null;
    })
  | (Common & { kind: 'expired'; dueAt: Date | null; returnUrl: string })
  | (Common & { kind: 'withdrawn'; returnUrl: string });

/**
 * Loads the student's assignment for the session's user (anyone else's is
 * not found), applying the lazy checks first: an `assigned` assignment past
 * dueAt expires, and a `started` one past its deadline plus grace is
 * submitted now if the deadline job has not run yet.
 */
export async function loadStudentPage(
  ctx: AppContext,
  session: StudentSession,
  assignmentId: string,
  request: { acceptLanguage?: string | undefined } = {},
): Promise<StudentPage> {
  const now = ctx.clock.now();
  const reload = async () => (await findAssignment(ctx.pool, session.institutionId, assignmentId))!;
  let row: AssignmentRow | null = await findAssignment(ctx.pool, session.institutionId, assignmentId);
  if (!row || row.userId !== session.userId) throw notFound('assignment');
  if (await expireIfDue(ctx.pool, row, now)) row = await reload();

  let attempt = row.status === 'started' ? await findAttempt(ctx.pool, row.institutionId, row.id) : null;
  if (attempt && !acceptsSaves(attempt.deadlineAt, now)) {
    await submitAttempt(ctx, { assignmentId: row.id, by: 'deadline', tenant: { institutionId: row.institutionId } });
    row = await reload();
    attempt = null;
  }

  const [version, institution] = await Promise.all([loadTestVersion(ctx.pool, row.testVersionId), getInstitution(ctx.pool, row.institutionId)]);
  // The content language: fixed with the attempt once it began (a finished attempt's page too); before, what the candidate, the partner or the browser asks for.
  const translated = Object.keys(version.translations).length > 0;
  const begun = attempt ?? (translated && row.status !== 'assigned' ? await findAttempt(ctx.pool, row.institutionId, row.id) : null);
  const language =
    begun?.delivery?.contentLanguage ??
    (translated && !begun ? chooseContentLanguage(version, [row.candidateLocale, row.locale, ...acceptLanguageTags(request.acceptLanguage)]) : (version.language ?? 'en'));
  const test = deliver(translated ? localizeTest(version, language) : version, attempt?.delivery ?? null);
  const t = candidateTranslator(ctx, row, request.acceptLanguage, version.language);
  const common: Common = {
    assignmentId: row.id,
    institutionName: institution?.name ?? '',
    test,
    csrfToken: session.csrfToken,
    proctoring: proctoringPageState(test, ctx.config, effectiveProctoringRelaxations(row)),
    testMode: !row.livemode,
    t,
    // A test that declares no language is not claimed to be English: only a declared or translated one is marked.
    contentLang: contentMark({ language: version.language, translated }, language, t.lang) ?? null,
  };
  const back = returnUrl(row.callbackUrl, { assignmentId: row.id, externalUserId: row.externalUserId, status: row.status });

  // Each page's state is `common` plus its own fields by Object.assign, not `{ ...common, kind }`: on Node 20's V8
  // a spread given keys its source lacks makes new hidden classes on every call (docs/performance.md).
  switch (row.status) {
    case 'assigned': {
      // "Time allowed" on the intro page is this student's: extra time included.
      const minutes = timeAllowedMs(test.durationMinutes, row.accommodations) / 60_000;
      return Object.assign({}, common, { test: { ...test, durationMinutes: minutes }, kind: 'intro' as const, dueAt: row.dueAt });
    }
    case 'started': {
      if (!attempt) throw new Error(`assignment ${row.id} is started without an attempt`);
      const hasFiles = test.questions.some((q) => q.type === 'file_upload');
      const [answers, proctoring, files] = await Promise.all([
        listAnswers(ctx.pool, row.institutionId, row.id),
        attemptProctoringState(ctx.pool, common.proctoring, row.institutionId, row.id),
        hasFiles ? currentAnswerFiles(ctx.pool, row.institutionId, row.id) : null,
      ]);
      // Per file_upload question answered with a file: what the page shows as "Your file" after a reload.
      const fileMap = Object.fromEntries([...(files ?? new Map()).entries()].map(([questionId, f]) => [questionId, summaryOf(f)]));
      return Object.assign({}, common, { proctoring, kind: 'test' as const, deadlineAt: attempt.deadlineAt, serverNow: now, answers, files: fileMap, directUploads: ctx.config.storage.kind === 's3' });
    }
    case 'expired':
      return Object.assign({}, common, { kind: 'expired' as const, dueAt: row.dueAt, returnUrl: back });
    case 'cancelled':
      return Object.assign({}, common, { kind: 'withdrawn' as const, returnUrl: back });
    default: {
      const feedback = await releasedFeedback(ctx.pool, row);
      // Numbered as the candidate saw the questions: the attempt's draw and order.
      const shown = feedback?.questions.length ? deliver(version, (begun ?? (await findAttempt(ctx.pool, row.institutionId, row.id)))?.delivery ?? null).questions.map((q) => q.id) : [];
      return Object.assign({}, common, {
        kind: 'done' as const,
        status: row.status,
        submittedAt: row.submittedAt,
        score: row.score,
        returnUrl: back,
        feedback: feedback && { overall: feedback.overall, questions: feedback.questions.map((q) => ({ n: shown.indexOf(q.questionId) + 1, feedback: q.feedback })).filter((q) => q.n > 0) },
      });
    }
  }
}

/**
 * The candidate's language for an assignment's pages: their own choice, the partner's `locale`, the test's
 * declared language, then the browser's (docs/languages.md).
 */
export function candidateTranslator(
  ctx: AppContext,
  row: Pick<AssignmentRow, 'locale' | 'candidateLocale'>,
  acceptLanguage: string | undefined,
  testLanguage: string | null = null,
): Translator {
  return translator(chooseLocale({ candidate: row.candidateLocale, assignment: row.locale, test: testLanguage, acceptLanguage }, { pseudo: ctx.config.pseudoLocale }));
}

