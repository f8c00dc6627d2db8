import type { Question } from './schemas.js';
import type { TestVersion } from './tests-repo.js';
import { sectionsOf, type StoredSection } from './sections.js';
import { partQuestion } from './composite.js';
import { drawValues } from './question-types/parameters/draw.js';
import { isParametrised, type DrawnValues } from './question-types/parameters/schema.js';
import { withValues } from './question-types/parameters/with-values.js';
import { questionType } from './question-types/registry.js';

/**
 * What one candidate is shown of a test version: the questions drawn from
 * each section's pool in the order shown, the order of each shuffled choice
 * question's options, and the shown order of each ordering question's
 * items (and of each registered type's list to put in order), and the
 * values of each parametrised question's variables. Drawn once when the
 * attempt begins and stored with it
 * (attempts.delivery), so every later reader (the page on reload, the
 * marking, the reviewer, the report, the statistics) sees what the student
 * saw. Pure: the randomness comes in as a function.
 */
export interface Delivery {
  sections: Array<{ sectionId: string; questionIds: string[] }>;
  /** Option ids in shown order, for choice questions with shuffleOptions. */
  optionOrder: Record<string, string[]>;
  /** Item ids in shown order, for ordering questions (never the correct order). */
  itemOrder: Record<string, string[]>;
  /** The values drawn for each parametrised question's variables (absent in attempts begun before there were any). */
  values?: { [questionId: string]: DrawnValues };
  /**
   * The language the candidate reads the test in (translations/localize.ts),
   * fixed when the attempt begins; absent for a test without translations
   * (and attempts begun before there were any): the test's own language.
   */
  contentLanguage?: string;
}

/** A uniform integer in [0, n). */
type Random = (n: number) => number;

function shuffled<T>(list: readonly T[], random: Random): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = random(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Shuffles the options that are not `fixed`, leaving each fixed option at its index. */
export function shuffleOptions(options: ReadonlyArray<{ id: string; fixed?: boolean }>, random: Random): string[] {
  const movable = shuffled(options.filter((o) => !o.fixed).map((o) => o.id), random);
  return options.map((o) => (o.fixed ? o.id : movable.shift()!));
}

/** A shown order of an ordering question's items that is never the correct one (two items: reversed). */
export function scrambleItems(itemIds: readonly string[], random: Random): string[] {
  if (itemIds.length < 2) return [...itemIds];
  for (let tries = 0; tries < 20; tries++) {
    const order = shuffled(itemIds, random);
    if (order.some((id, i) => id !== itemIds[i])) return order;
  }
  // Only reachable with a broken random source: a rotation is never the correct order.
  return [...itemIds.slice(1), itemIds[0]!];
}

/** Draws a delivery for one candidate. */
export function drawDelivery(test: { sections: StoredSection[] | null; questions: readonly Question[] }, random: Random): Delivery {
  const byId = new Map(test.questions.map((q) => [q.id, q]));
  const delivery: Delivery = { sections: [], optionOrder: {}, itemOrder: {} };
  for (const s of sectionsOf(test)) {
    let ids = s.questionIds;
    if (s.draw !== null && s.draw < ids.length) {
      // A draw keeps the section's order unless the section is shuffled too.
      const picked = new Set(shuffled(ids, random).slice(0, s.draw));
      ids = ids.filter((id) => picked.has(id));
    }
    if (s.shuffleQuestions) ids = shuffled(ids, random);
    delivery.sections.push({ sectionId: s.id, questionIds: ids });
    for (const id of ids) {
      const q = byId.get(id)!;
      // A composite question's parts are shuffled as their standalone types are, each under its own key (composite.ts).
      for (const shown of q.type === 'composite' ? q.parts.map((part) => partQuestion(q, part)) : [q]) {
        if ((shown.type === 'single_choice' || shown.type === 'multiple_choice') && shown.shuffleOptions) delivery.optionOrder[shown.id] = shuffleOptions(shown.options, random);
        // A registered type with a list to put in order (ordering, graphic_order) says which ids are drawn.
        const items = questionType(shown.type)?.shuffledItems?.(shown);
        if (items) delivery.itemOrder[shown.id] = scrambleItems(items, random);
      }
      if (isParametrised(q)) (delivery.values ??= {})[q.id] = drawValues(q, random);
    }
  }
  return delivery;
}

/**
 * The delivery of an attempt begun before deliveries were stored: every
 * question in the test's order, options as authored. (Those versions have
 * no sections, no shuffles and no ordering questions.)
 */
export function identityDelivery(test: { sections: StoredSection[] | null; questions: readonly Question[] }): Delivery {
  return { sections: sectionsOf(test).map((s) => ({ sectionId: s.id, questionIds: [...s.questionIds] })), optionOrder: {}, itemOrder: {} };
}

/** The authored order with one sample draw of each parametrised question's values (the portal's previews show numbers, not `{name}`). */
export function sampleDelivery(test: { sections: StoredSection[] | null; questions: readonly Question[] }, random: Random): Delivery {
  const delivery = identityDelivery(test);
  for (const q of test.questions) if (isParametrised(q)) (delivery.values ??= {})[q.id] = drawValues(q, random);
  return delivery;
}

/** The questions a delivery gives, in shown order, each with the candidate's own values (question-types/parameters/with-values.ts). */
export function deliveredQuestions(test: { questions: readonly Question[] }, delivery: Delivery): Question[] {
  const byId = new Map(test.questions.map((q) => [q.id, q]));
  return delivery.sections.flatMap((s) => s.questionIds.map((id) => withValues(byId.get(id)!, delivery.values?.[id])));
}

/** A choice question's options in the order this candidate sees them. */
export function shownOptions<O extends { id: string }>(questionId: string, options: readonly O[], delivery: Delivery): O[] {
  const order = delivery.optionOrder[questionId];
  if (!order) return [...options];
  const byId = new Map(options.map((o) => [o.id, o]));
  return order.map((id) => byId.get(id)!);
}

/**
 * A version as one candidate sees it: `questions` holds only the questions
 * drawn for them, in shown order, so marking, maximum points and the review
 * pages count what the candidate was given; `delivery` keeps the orders.
 */
export type DeliveredTest<T extends { sections: StoredSection[] | null; questions: Question[] } = TestVersion> = T & { delivery: Delivery };

export function deliver<T extends { sections: StoredSection[] | null; questions: Question[] }>(test: T, delivery: Delivery | null): DeliveredTest<T> {
  const d = delivery ?? identityDelivery(test);
  // Object.assign, not `{ ...test, delivery }`: on Node 20's V8 a spread given a key its source lacks makes a
  // new hidden class on every call, which outlives the next young collection (docs/performance.md).
  return Object.assign({}, test, { questions: deliveredQuestions(test, d), delivery: d });
}

/** The section each delivered question belongs to, with the section's title ('' for a flat test). */
export function deliveredSections(test: DeliveredTest): Array<StoredSection & { shownIds: string[] }> {
  const byId = new Map(sectionsOf(test).map((s) => [s.id, s]));
  return test.delivery.sections.map((d) => ({ ...byId.get(d.sectionId)!, shownIds: d.questionIds }));
}

/** How many questions and points every candidate gets: a pool counts its draw (its questions have equal points). */
export function plannedTotals(test: { sections: StoredSection[] | null; questions: readonly Question[] }): { questions: number; points: number } {
  const byId = new Map(test.questions.map((q) => [q.id, q]));
  let questions = 0;
  let points = 0;
  for (const s of sectionsOf(test)) {
    const ids = s.draw !== null ? s.questionIds.slice(0, s.draw) : s.questionIds;
    questions += ids.length;
    for (const id of ids) points += byId.get(id)!.points;
  }
  return { questions, points };
}

/** A question as this candidate saw it: a shuffled choice question's options in their shown order (review pages list them so). */
export function asShown(q: Question, delivery: Delivery): Question {
  if (q.type === 'composite') {
    return { ...q, parts: q.parts.map((part) => ({ ...part, ...optionsOf(asShown(partQuestion(q, part), delivery)) })) };
  }
  if ((q.type === 'single_choice' || q.type === 'multiple_choice') && delivery.optionOrder[q.id]) return { ...q, options: shownOptions(q.id, q.options, delivery) };
  return q;
}

const optionsOf = (q: Question) => (q.type === 'single_choice' || q.type === 'multiple_choice' ? { options: q.options } : {});
