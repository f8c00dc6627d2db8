import type { Queryable } from '../../platform/db.js';
import type { Score } from '../lifecycle/score.js';
import type { ProctoringMode } from '../catalog/test-settings.js';
import { deliveredQuestions, identityDelivery, type Delivery } from '../catalog/delivery.js';
import type { StoredSection } from '../catalog/sections.js';
import type { Question } from '../catalog/schemas.js';
import { passageName, type Passage } from '../catalog/passages.js';
import type { StoredTranslations } from '../catalog/translations/translation-schema.js';
import { readCandidateFeedback } from '../assignments/candidate-feedback.js';

/** What a candidate's report shows: one completed assignment with its people, test and integrity counts. */
export interface ReportData {
  assignmentId: string;
  livemode: boolean;
  institutionName: string;
  testTitle: string;
  testVersion: number;
  proctoring: ProctoringMode;
  candidateName: string | null;
  externalUserId: string;
  createdAt: Date;
  startedAt: Date | null;
  submittedAt: Date | null;
  completedAt: Date | null;
  score: Score | null;
  /** Proctoring flags by severity, each split by the reviewer's outcome. */
  flags: Array<{ severity: 'info' | 'warning' | 'critical'; total: number; confirmed: number; dismissed: number; unreviewed: number }>;
  /**
   * Each question's outcome in the order the candidate saw them, when the
   * institution's `reportShowsQuestions` is on; null when it is off.
   * `passage`: the name of the passage shown with the question (null: none).
   */
  questions: Array<{ n: number; section: string; type: string; points: number | null; maxPoints: number; passage: string | null; passageTitled?: boolean }> | null;
  /**
   * The reviewer's feedback for the candidate (a report exists only once the
   * result is released), each question by its number as the candidate saw
   * it; null when none was written.
   */
  feedback: { overall: string | null; questions: Array<{ n: number; feedback: string }> } | null;
  /**
   * The language the test's texts are shown in: the translation the candidate
   * was given (fixed when the attempt began), else the test's own; the titles
   * above are in it. `testLanguage` is what the test declares (null: nothing).
   */
  contentLanguage: string;
  testLanguage: string | null;
  translated: boolean;
}

/** What the report's language is chosen from (as the student pages choose theirs): the candidate's choice and the partner's `locale`. */
export interface ReportLanguage {
  candidateLocale: string | null;
  locale: string | null;
}

/** The report of a completed assignment; null for anything else (the link then shows nothing). */
export async function findReport(db: Queryable, assignmentId: string): Promise<(ReportData & ReportLanguage) | null> {
  const { rows } = await db.query(
    `SELECT a.id, a.institution_id, a.livemode, i.name AS institution_name, tv.title, tv.version, tv.proctoring, u.name AS candidate_name, u.external_user_id,
            a.created_at, a.started_at, a.submitted_at, a.completed_at, a.score, i.report_shows_questions, a.locale, a.candidate_locale,
            tv.language, tv.translations, (SELECT at.delivery->>'contentLanguage' FROM attempts at WHERE at.assignment_id = a.id) AS content_language,
            COALESCE((SELECT jsonb_agg(jsonb_build_object('severity', f.severity, 'total', f.total, 'confirmed', f.confirmed, 'dismissed', f.dismissed))
                        FROM (SELECT pf.severity, count(*)::int AS total,
                                     count(*) FILTER (WHERE pf.review_outcome = 'confirmed')::int AS confirmed,
                                     count(*) FILTER (WHERE pf.review_outcome = 'dismissed')::int AS dismissed
                                FROM proctoring_flags pf WHERE pf.institution_id = a.institution_id AND pf.assignment_id = a.id
                               GROUP BY pf.severity) f), '[]'::jsonb) AS flags
       FROM assignments a
       JOIN institutions i ON i.id = a.institution_id
       JOIN users u ON u.id = a.user_id
       JOIN test_versions tv ON tv.id = a.test_version_id
      WHERE a.id = $1 AND a.status = 'completed'`,
    [assignmentId],
  );
  const r = rows[0];
  if (!r) return null;
  const translations = (r.translations ?? {}) as StoredTranslations;
  const own: string = r.language ?? 'en';
  // Only a language the version still has a translation for: the texts below are laid over from it.
  const shown: string = r.content_language && (r.content_language === own || translations[r.content_language]) ? r.content_language : own;
  const texts = shown === own ? {} : translations[shown]!;
  const counts = new Map<string, { total: number; confirmed: number; dismissed: number }>((r.flags as Array<{ severity: string; total: number; confirmed: number; dismissed: number }>).map((f) => [f.severity, f]));
  return {
    assignmentId: r.id,
    livemode: r.livemode,
    institutionName: r.institution_name,
    testTitle: texts['title']?.text ?? r.title,
    testVersion: r.version,
    proctoring: r.proctoring,
    candidateName: r.candidate_name,
    externalUserId: r.external_user_id,
    createdAt: r.created_at,
    startedAt: r.started_at,
    submittedAt: r.submitted_at,
    completedAt: r.completed_at,
    score: localizedScore(r.score, texts),
    flags: (['critical', 'warning', 'info'] as const).map((severity) => {
      const c = counts.get(severity) ?? { total: 0, confirmed: 0, dismissed: 0 };
      return { severity, total: c.total, confirmed: c.confirmed, dismissed: c.dismissed, unreviewed: c.total - c.confirmed - c.dismissed };
    }),
    questions: r.report_shows_questions ? await questionOutcomes(db, assignmentId, texts) : null,
    feedback: await feedbackOf(db, r.institution_id, assignmentId),
    contentLanguage: shown,
    testLanguage: r.language ?? null,
    translated: Object.keys(translations).length > 0,
    candidateLocale: r.candidate_locale ?? null,
    locale: r.locale ?? null,
  };
}

/** The feedback with each question numbered in the order the candidate saw them (their draw and order). */
async function feedbackOf(db: Queryable, institutionId: string, assignmentId: string): Promise<ReportData['feedback']> {
  const feedback = await readCandidateFeedback(db, institutionId, assignmentId);
  if (!feedback) return null;
  let shown: string[] = [];
  if (feedback.questions.length > 0) {
    const { rows } = await db.query<{ questions: Question[]; sections: StoredSection[] | null; delivery: Delivery | null }>(
      `SELECT tv.questions, tv.sections, at.delivery FROM assignments a
         JOIN test_versions tv ON tv.id = a.test_version_id
         LEFT JOIN attempts at ON at.assignment_id = a.id
        WHERE a.id = $1 AND a.institution_id = $2`,
      [assignmentId, institutionId],
    );
    const r = rows[0];
    if (r) {
      const test = { questions: r.questions, sections: r.sections };
      shown = deliveredQuestions(test, r.delivery ?? identityDelivery(test)).map((q) => q.id);
    }
  }
  return {
    overall: feedback.overall,
    questions: feedback.questions.map((q) => ({ n: shown.indexOf(q.questionId) + 1, feedback: q.feedback })).filter((q) => q.n > 0),
  };
}

/** The candidate's questions in the order shown, each with its section, points awarded (null: no mark) and points; titles from `texts` (a translation's, by path) where it has them. */
async function questionOutcomes(db: Queryable, assignmentId: string, texts: StoredTranslations[string]): Promise<NonNullable<ReportData['questions']>> {
  const { rows } = await db.query<{ questions: Question[]; passages: Passage[]; sections: StoredSection[] | null; delivery: Delivery | null; marks: Record<string, string> | null }>(
    `SELECT tv.questions, tv.passages, tv.sections, at.delivery,
            (SELECT jsonb_object_agg(m.question_id, m.points) FROM marks m WHERE m.assignment_id = a.id) AS marks
       FROM assignments a
       JOIN test_versions tv ON tv.id = a.test_version_id
       LEFT JOIN attempts at ON at.assignment_id = a.id
      WHERE a.id = $1`,
    [assignmentId],
  );
  const r = rows[0];
  if (!r) return [];
  const { questions, passages } = r;
  const test = { questions, sections: r.sections };
  const passageOf = new Map(passages.map((p) => [p.id, passageName({ ...p, ...(p.title !== undefined ? { title: texts[`passages.${p.id}.title`]?.text ?? p.title } : {}) })]));
  const titled = new Set(passages.filter((p) => p.title?.trim()).map((p) => p.id));
  const delivery = r.delivery ?? identityDelivery(test);
  const sectionOf = new Map((r.sections ?? []).flatMap((s) => s.questionIds.map((id) => [id, texts[`sections.${s.id}.title`]?.text ?? s.title] as const)));
  return deliveredQuestions(test, delivery).map((q, i) => ({
    n: i + 1,
    section: sectionOf.get(q.id) ?? '',
    type: q.type,
    points: r.marks && r.marks[q.id] !== undefined ? Number(r.marks[q.id]) : null,
    maxPoints: q.points,
    passage: (q.passageId !== undefined && passageOf.get(q.passageId)) || null,
    // An untitled passage is named by Assay's word, not the author's.
    passageTitled: q.passageId !== undefined && titled.has(q.passageId),
  }));
}

/** The score's section titles (kept as the source named them when it was marked) in the language the candidate read. */
function localizedScore(score: Score | null, texts: StoredTranslations[string]): Score | null {
  if (!score?.sections) return score;
  return { ...score, sections: score.sections.map((x) => ({ ...x, title: texts[`sections.${x.sectionId}.title`]?.text ?? x.title })) };
}
