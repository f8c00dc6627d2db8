import type { Question, QuestionInput, SectionInput } from './schemas.js';

/**
 * A section as stored with a test version: its questions named by id (the
 * version's `questions` holds every question, in section order). A flat
 * test stores no sections (null); it reads as one unnamed section.
 */
export interface StoredSection {
  id: string;
  title: string;
  instructions: string | null;
  shuffleQuestions: boolean;
  /** A pool: each assignment is given this many of the section's questions; null gives all of them. */
  draw: number | null;
  questionIds: string[];
}

/** The id of the one unnamed section of a flat test. */
export const FLAT_SECTION_ID = 'main';

/** The sections of a version, a flat test read as one unnamed section (title ''). */
export function sectionsOf(test: { sections: StoredSection[] | null; questions: readonly Question[] }): StoredSection[] {
  if (test.sections) return test.sections;
  return [{ id: FLAT_SECTION_ID, title: '', instructions: null, shuffleQuestions: false, draw: null, questionIds: test.questions.map((q) => q.id) }];
}

/** The operator's view of a sectioned version: each section with its questions, in the input format. */
export function sectionsWithQuestions(sections: readonly StoredSection[], questions: readonly Question[]): Array<SectionInput & { id: string }> {
  const byId = new Map(questions.map((q) => [q.id, q]));
  return sections.map((s) => ({
    id: s.id,
    title: s.title,
    ...(s.instructions !== null ? { instructions: s.instructions } : {}),
    shuffleQuestions: s.shuffleQuestions,
    ...(s.draw !== null ? { draw: s.draw } : {}),
    questions: s.questionIds.map((id) => byId.get(id)!),
  }));
}

/** Every question of an operator's read, flat or sectioned, in section order. */
export function allQuestions(view: { questions?: Question[]; sections?: Array<{ questions: QuestionInput[] }> }): Question[] {
  return view.questions ?? (view.sections ?? []).flatMap((s) => s.questions as Question[]);
}
