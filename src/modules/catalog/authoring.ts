import { AppError, type ErrorDetail } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { resolveRules, type ProctoringRules } from './proctoring-rules.js';
import { type AiMarkableType, type BuiltInInput, type BuiltInQuestion, type Passage, type Question, type SectionInput, type TestInput } from './schemas.js';
import type { BaseQuestion } from './question-types/definition.js';
import { questionType } from './question-types/registry.js';
import { checkPassages } from './passages.js';
import type { StoredSection } from './sections.js';
import { checkTestContent, testAssetIds } from './content/content-checks.js';
import { textChecks, type TextChecks } from './content/text-checks.js';
import { scoringProblems } from './qti-scoring.js';
import { compositePoints, inputPoints } from './composite.js';
import { checkCriteria } from './question-types/ai-marking-fields.js';
import { isParametrised } from './question-types/parameters/schema.js';
import { uniqueIds } from './question-types/unique-ids.js';
import { checkTranslations } from './translations/translation-checks.js';
import { stampTranslations } from './translations/translation-store.js';
import type { StoredTranslations } from './translations/translation-schema.js';

/**
 * Authoring rules the schema cannot express (issue: "Authoring rules"):
 * - `auto` tests have no essay (nothing could mark it);
 * - `manual`/`hybrid` tests must be `after_review` (a human marks before the student sees a result);
 * - option ids unique per question, question ids unique per test;
 * - every correct answer names an existing option;
 * - `proctoringRules` only on a proctored test (on a `none` test it would be silently meaningless);
 *   null is accepted everywhere (what a read of a `none` test says) and means the defaults.
 * - AI marking (essay, short_text): `criteria` are required with `aiMarking`,
 *   their names unique and their points summing to the question's points;
 *   the test must be manual or hybrid (a person can take over any item the
 *   model does not settle, so the result waits for review).
 * A `manual` test may still hold auto-markable items: they are marked at
 * submission, and a reviewer confirms the whole result before release.
 * - passages: ids unique; a question's passageId names one of them (passages.ts);
 * - sections: ids unique; a pool (`draw`) no larger than its section, its questions of equal points;
 * - short_text: entry points at most the question's, one entry worth the full points, patterns that compile
 *   and match their entry's text (the sample answer) (question-types/short-text/check.ts);
 * - matching, ordering, fill_blanks: ids unique, every reference resolves, every blank placed once
 *   (the moved types' own checks: question-types/matching, question-types/fill-blanks);
 * - imported QTI processing (`scoring`, qti-scoring.ts): it compiles, and maps every response declaration to the answer in a shape that fits;
 * - numeric and short_text may be parametrised (question-types/parameters/check.ts); a plain numeric needs `answer`;
 * - composite: part ids unique, each part checked by its own type's rules (paths `….parts.<j>.…`),
 *   `points`, when given, equal to the parts' sum;
 * - markdown content (content/content-checks.ts): every formula parses, images have alt text and name
 *   one of `knownAssets` (the owner's existing assets; not checked when absent), links are https;
 * - `language` and `translations` (translations/translation-checks.ts): canonical BCP 47 tags, paths
 *   naming the test's texts by id, each text bounded and checked as its source is;
 * Returns the questions (and sections) with ids filled in, or throws 400 with every violation in `details`.
 *
 * Every rule runs on every check; what is kept between checks is each text's content check
 * (`texts`, content/text-checks.ts), the only costly part: the rules above take well under a
 * millisecond for 200 questions, Temml and markdown-it over their texts tens of milliseconds.
 */
export interface CheckedContent {
  /** Every question of the version, in section order, ids filled in. */
  questions: Question[];
  /** Null for a flat test (`questions`); the sections with generated ids otherwise. */
  sections: StoredSection[] | null;
  /** The assets the texts name (none for plain text), stored with the version. */
  assetIds: string[];
  /** The test's passages as given ([] for none). */
  passages: Passage[];
  /** The translations, each text stamped with its source's hash as of now (translations/translation-store.ts). */
  translations: StoredTranslations;
}

export function checkTestInput(input: TestInput, knownAssets?: ReadonlySet<string>, texts: TextChecks = textChecks): CheckedContent {
  const details: ErrorDetail[] = [];
  if (input.marking !== 'auto' && input.resultVisibility !== 'after_review') {
    details.push({ field: 'resultVisibility', message: `must be "after_review" for ${input.marking} marking` });
  }
  if (input.proctoringRules != null && input.proctoring === 'none') {
    details.push({ field: 'proctoringRules', message: 'applies only to proctored tests (proctoring "record" or "live_ai")' });
  }
  if (input.questions && input.sections) details.push({ field: 'sections', message: 'give questions (a flat test) or sections, not both' });
  if (!input.questions && !input.sections) details.push({ field: 'questions', message: 'is required (or sections)' });
  const groups: Array<{ at: string; questions: TestInput['questions'] & object }> = input.sections
    ? input.sections.map((sec, k) => ({ at: `sections.${k}.questions`, questions: sec.questions }))
    : [{ at: 'questions', questions: input.questions ?? [] }];
  const questionIds = new Set<string>();
  const total = groups.reduce((n, g) => n + g.questions.length, 0);
  if (total > 500) details.push({ field: input.sections ? 'sections' : 'questions', message: `holds ${total} questions; a test holds at most 500` });
  for (const g of groups) g.questions.forEach((q, i) => checkQuestion(q, `${g.at}.${i}`, input.marking, questionIds, details));
  checkPassages(input, groups.flatMap((g) => g.questions.map((q, i) => ({ at: `${g.at}.${i}`, q }))), details);
  input.sections?.forEach((sec, k) => checkSection(sec, `sections.${k}`, details));
  const sectionIds = new Set<string>();
  input.sections?.forEach((sec, k) => {
    if (sec.id === undefined) return;
    if (sectionIds.has(sec.id)) details.push({ field: `sections.${k}.id`, message: `duplicates section id "${sec.id}"` });
    sectionIds.add(sec.id);
  });
  checkTestContent(input, details, knownAssets, undefined, texts);
  checkTranslations(input, details, knownAssets, undefined, texts);
  if (details.length > 0) throw new AppError('invalid_request', `${details[0]!.field}: ${details[0]!.message}`, details);

  const assetIds = testAssetIds(input, texts);
  const passages = input.passages ?? [];
  // A translation names texts by ids the input gives: a question without one yet has none translated.
  const translations = stampTranslations(input.translations, input);
  const withIds = (qs: TestInput['questions'] & object) => qs.map((q) => withDefaults({ ...q, id: q.id ?? newId('q') } as Question));
  if (!input.sections) return { questions: withIds(input.questions!), sections: null, assetIds, passages, translations };
  const questions: Question[] = [];
  const sections = input.sections.map((sec): StoredSection => {
    const qs = withIds(sec.questions);
    questions.push(...qs);
    return {
      id: sec.id ?? newId('sec'),
      title: sec.title,
      instructions: sec.instructions ?? null,
      shuffleQuestions: sec.shuffleQuestions ?? false,
      draw: sec.draw ?? null,
      questionIds: qs.map((q) => q.id),
    };
  });
  return { questions, sections, assetIds, passages, translations };
}

function checkSection(sec: SectionInput, at: string, details: ErrorDetail[]): void {
  if (sec.draw === undefined) return;
  if (sec.draw > sec.questions.length) {
    details.push({ field: `${at}.draw`, message: `draws ${sec.draw} questions but section "${sec.title}" holds ${sec.questions.length}` });
  }
  const points = new Set(sec.questions.map(inputPoints));
  if (points.size > 1) {
    details.push({
      field: `${at}.draw`,
      message: `section "${sec.title}" is a pool, so its questions must have equal points (they have ${[...points].sort((a, b) => a - b).join(', ')})`,
    });
  }
}

type InputQuestion = NonNullable<TestInput['questions']>[number];


function checkQuestion(input: InputQuestion, at: string, marking: TestInput['marking'], questionIds: Set<string>, details: ErrorDetail[]): void {
  if (input.id !== undefined) {
    if (questionIds.has(input.id)) details.push({ field: `${at}.id`, message: `duplicates question id "${input.id}"` });
    questionIds.add(input.id);
  }
  const def = questionType(input.type);
  if (def) {
    // A type a person must mark cannot sit in an auto-marked test, whichever type it is.
    if (!def.autoMarkable && marking === 'auto') details.push({ field: `${at}.type`, message: `${input.type} questions need manual or hybrid marking` });
    // A type whose schema takes AI marking (essay) gets its rules, which need the test's marking.
    if (def.schema.properties['aiMarking']) checkAiMarking(input as Extract<InputQuestion, { type: AiMarkableType }>, at, marking, details);
    details.push(...scoringProblems(input, at));
    def.check?.(input as BaseQuestion, at, details);
    return;
  }
  const q = input as BuiltInInput;
  details.push(...scoringProblems(q, at));
  switch (q.type) {
    case 'composite': {
      uniqueIds(q.parts, `${at}.parts`, 'part', details);
      // A part's own id is no question id: it is checked against its siblings only.
      q.parts.forEach((part, j) => checkQuestion(part as InputQuestion, `${at}.parts.${j}`, marking, new Set(), details));
      // Values are drawn per question, not per part.
      q.parts.forEach((part, j) => isParametrised(part) && details.push({ field: `${at}.parts.${j}.variables`, message: 'a composite part cannot have variables; make it a question of its own' }));
      const sum = compositePoints(q.parts);
      // With kept QTI processing the points are what its SCORE is clamped to (MAXSCORE), not the parts' sum.
      if (q.points !== undefined && !q.scoring && Math.abs(q.points - sum) > 1e-6) {
        details.push({ field: `${at}.points`, message: `is ${q.points}, but the parts' points sum to ${sum} (leave points out to take the sum)` });
      }
      return;
    }
    default:
      return;
  }
}

function checkAiMarking(
  q: Extract<InputQuestion, { type: AiMarkableType }>,
  at: string,
  marking: TestInput['marking'],
  details: ErrorDetail[],
): void {
  if (q.aiMarking) {
    if (marking === 'auto') details.push({ field: `${at}.aiMarking`, message: 'needs manual or hybrid marking (AI marks are reviewed before release)' });
    if (!q.criteria) details.push({ field: `${at}.criteria`, message: 'is required with aiMarking: the model marks against criteria' });
  }
  checkCriteria(q, at, details);
}

function withDefaults(stored: Question): Question {
  const def = questionType(stored.type);
  if (def) return def.withDefaults ? (def.withDefaults(stored) as Question) : stored;
  const q = stored as BuiltInQuestion;
  switch (q.type) {
    case 'composite':
      // The parts' defaults filled in as each type's own; the question's points are the parts' sum (with `scoring`, as given).
      return { ...q, points: q.scoring ? (q.points ?? compositePoints(q.parts)) : compositePoints(q.parts), parts: q.parts.map((p) => withDefaults(p as Question) as typeof p) };
    default:
      return q;
  }
}

/** The thresholds stored with the version: the test's overrides over the defaults, resolved now; null for `none`. */
export function storedProctoringRules(input: TestInput): ProctoringRules | null {
  return input.proctoring === 'none' ? null : resolveRules(input.proctoringRules);
}
