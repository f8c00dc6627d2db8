import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { Nullable, StringEnum, Timestamp } from '../../platform/http/schemas.js';
import { CONTENT_FORMATS } from './content/content-format.js';
import type { QuestionTypeDefinition } from './question-types/definition.js';
import { QUESTION_TYPES } from './question-types/registry.js';
import { MarkingModeSchema, ProctoringModeSchema, ResultVisibilitySchema } from './test-settings.js';
import { languageTag, Translations } from './translations/translation-schema.js';

import { ClientId, common, Part, PassageRef, Prompt, scoring } from './question-types/common-fields.js';
export { QTI_SCORING_MAX_CHARS, QtiScoring } from './qti-scoring-schema.js';

// AI marking's fields are the question types' kit (question-types/ai-marking-fields.ts), named here as before.
export { AiMarking, Criterion } from './question-types/ai-marking-fields.js';

// The types moved into their folders (question-types/): re-exported for the code and tests that name their schemas here.
export { NumericQ } from './question-types/numeric/schema.js';
export { Essay } from './question-types/essay/schema.js';
export { FileUpload, UPLOAD_DEFAULT_BYTES, UPLOAD_MAX_BYTES } from './question-types/file-upload/schema.js';
export { AcceptedAnswerEntry, ShortText } from './question-types/short-text/schema.js';
export { Matching } from './question-types/matching/schema.js';
export { Ordering } from './question-types/ordering/schema.js';
export { FillBlanks } from './question-types/fill-blanks/schema.js';

/**
 * A part of a composite question: one of the answerable types with its own
 * fields, its `id` required (unique within the question). No free-text
 * marking fields (rubric, aiMarking, criteria): a composite question is
 * marked by its key alone.
 */
const partOf = (schema: TObject, title: string, omit: readonly string[] = []) =>
  Type.Object(
    {
      // A part shows its question's passage: it names none of its own.
      ...(Object.fromEntries(Object.entries(schema.properties).filter(([k]) => k !== 'id' && k !== 'passageId' && !omit.includes(k))) as TProperties),
      id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Unique within the question; the key of its answer' }),
    },
    { additionalProperties: false, title },
  );
const registered = QUESTION_TYPES as ReadonlyArray<QuestionTypeDefinition<any>>;
const registeredType = new Map(registered.map((d) => [d.type, d]));
/**
 * The built-in types' place in the schema's list, which the OpenAPI
 * document and the SDK's types follow: a type moved into its folder keeps
 * its place, and a new type comes after them (in the registry's order).
 */
const PLACES = ['single_choice', 'multiple_choice', 'short_text', 'numeric', 'essay', 'matching', 'ordering', 'fill_blanks', 'file_upload'];
const inPlace = <T>(own: (d: QuestionTypeDefinition<any>) => T | undefined): T[] => [
  ...PLACES.flatMap((t) => {
    const d = registeredType.get(t);
    const v = d ? own(d) : undefined;
    return v === undefined ? [] : [v];
  }),
  ...registered.filter((d) => !PLACES.includes(d.type)).flatMap((d) => {
    const v = own(d);
    return v === undefined ? [] : [v];
  }),
];
const partSchema = (d: QuestionTypeDefinition<any>) => (d.part ? partOf(d.schema, d.part.title, d.part.omit) : undefined);
/** The schemas of a composite's parts: the answerable built-in types and every registered type with `part`. */
export const CompositePartSchemas: TObject[] = inPlace(partSchema);
/** The types a composite question's part may be. */
export const COMPOSITE_PART_TYPES: readonly string[] = inPlace<string>((d) => (d.part ? d.type : undefined));
/** The question (as stored, id set) a registered definition describes. */
type QuestionOf<D> = D extends QuestionTypeDefinition<infer Q> ? Q : never;
/** The stored questions of the registered types (question-types/registry.ts): one line there adds the type here. */
export type RegisteredQuestion = QuestionOf<(typeof QUESTION_TYPES)[number]> & { passageId?: string };
/** A registered type's question as written (its id optional). */
type RegisteredInput = RegisteredQuestion extends infer Q ? (Q extends { id: string } ? Omit<Q, 'id'> & { id?: string } : never) : never;
/** A composite's part: a registered type with `part` (the schema says which). */
export type CompositePart = RegisteredQuestion;
export const Composite = Type.Object(
  {
    type: Type.Literal('composite'),
    id: Type.Optional(ClientId),
    prompt: Prompt,
    points: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 10_000, description: "The parts' sum (computed when absent; must equal it when given); with `scoring`, what the processing's SCORE is clamped to, any amount (the parts' sum when absent)" }),
    ),
    passageId: Type.Optional(PassageRef),
    parts: Type.Array(
      Type.Unsafe<CompositePart>({ type: 'object', required: ['type'], discriminator: { propertyName: 'type' }, oneOf: [...CompositePartSchemas] }),
      { minItems: 2, maxItems: 20, description: 'Each part one of the answerable types, with its own prompt, points and key; shown as Part 1, Part 2, …' },
    ),
    ...scoring,
  },
  { additionalProperties: false, title: 'CompositeQuestion' },
);

export type QuestionInput =
  | Static<typeof Composite>
  | RegisteredInput;
export type QuestionType = QuestionInput['type'];

/** The question types that may carry AI marking (`aiMarking`, `criteria`). */
export type AiMarkableType = 'essay' | 'short_text';

/** A stored question: the input with its id always set (and a composite question's points, the parts' sum). */
export type Question = BuiltInQuestion | RegisteredQuestion;
/**
 * The questions the layers' own switches still handle: a layer asks the
 * registry first (`questionType(q.type)`), then switches over these.
 */
export type BuiltInQuestion = (Exclude<BuiltInInput, { type: 'composite' }> | (Static<typeof Composite> & { points: number })) & { id: string };
export type BuiltInInput = Exclude<QuestionInput, RegisteredInput>;

// A discriminated oneOf gives precise validation errors (ajv `discriminator`) and documents well in OpenAPI 3.1.
export const QuestionSchema = Type.Unsafe<QuestionInput>({
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: [
    ...inPlace<TObject>((d) => d.schema),
    Composite,
  ],
});

const seconds = (what: string, dflt: number, min = 1) =>
  Type.Integer({ minimum: min, maximum: 3600, description: `${what} (seconds; default ${dflt})` });

/**
 * A proctored test's thresholds (docs/proctoring.md); each field
 * optional, the defaults fill the rest. camera_stopped is critical at once
 * and has no threshold.
 */
export const ProctoringRulesInput = Type.Object(
  {
    noFaceSeconds: Type.Optional(seconds('no_face is critical after no face is in view this long', 10)),
    multipleFacesSeconds: Type.Optional(seconds('multiple_faces is critical after more than one face is in view this long', 3)),
    leftTestSeconds: Type.Optional(seconds('left_test is critical after the student is away from the test this long at once', 10)),
    leftTestCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'left_test is critical the n-th time the student leaves (default 3)' })),
    heartbeatTimeoutSeconds: Type.Optional(
      seconds('proctoring_interrupted is raised after the page has not reported for this long', 60, 15),
    ),
  },
  { additionalProperties: false, title: 'ProctoringRules', description: 'Only for proctored tests (proctoring record or live_ai)' },
);

/** The rules as stored and shown: every threshold resolved. */
export const ProctoringRulesView = Type.Object(
  {
    noFaceSeconds: Type.Integer(),
    multipleFacesSeconds: Type.Integer(),
    leftTestSeconds: Type.Integer(),
    leftTestCount: Type.Integer(),
    heartbeatTimeoutSeconds: Type.Integer(),
  },
  { title: 'ResolvedProctoringRules' },
);

export const SectionInput = Type.Object(
  {
    id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Optional; generated (`sec_…`) when absent' })),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    instructions: Type.Optional(Type.String({ maxLength: 10_000 })),
    shuffleQuestions: Type.Optional(Type.Boolean({ default: false, description: "Show the section's questions in a per-candidate order" })),
    draw: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 500, description: "A pool: each assignment gets this many of the section's questions, which must have equal points" }),
    ),
    questions: Type.Array(QuestionSchema, { minItems: 1, maxItems: 500 }),
  },
  { additionalProperties: false, title: 'Section' },
);
export type SectionInput = Static<typeof SectionInput>;

/** The most passages a test holds, and the longest passage text. */
export const MAX_PASSAGES = 100;
export const PASSAGE_MAX_CHARS = 100_000;

/** A shared stimulus (a reading, a table, a source): written once, shown beside each question that names it. */
export const PassageInput = Type.Object(
  {
    id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: "Unique within the test; questions name it in passageId" }),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Names the passage on the page (default: "Passage")' })),
    text: Type.String({ minLength: 1, maxLength: PASSAGE_MAX_CHARS, description: "In the test's content format, as prompts are" }),
  },
  { additionalProperties: false, title: 'Passage' },
);
export type Passage = Static<typeof PassageInput>;

export const TestInput = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.String({ maxLength: 2_000 }),
    durationMinutes: Type.Integer({ minimum: 1, maximum: 1440 }),
    proctoring: ProctoringModeSchema,
    marking: MarkingModeSchema,
    resultVisibility: ResultVisibilitySchema,
    passPercent: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()])),
    // Nullable so a test read (which says null for a test without proctoring) can be written back as it is.
    proctoringRules: Type.Optional(
      Nullable(ProctoringRulesInput, { description: 'Thresholds of a proctored test (omitted fields take the defaults); null or absent: the defaults, or none for a test without proctoring' }),
    ),
    questions: Type.Optional(Type.Array(QuestionSchema, { minItems: 1, maxItems: 500, description: 'A flat test: one unnamed section. Give questions or sections, not both' })),
    sections: Type.Optional(Type.Array(SectionInput, { minItems: 1, maxItems: 50 })),
    passages: Type.Optional(Type.Array(PassageInput, { maxItems: MAX_PASSAGES, description: 'Shared passages; a question shows the one its passageId names' })),
    contentFormat: Type.Optional(
      StringEnum(CONTENT_FORMATS, {
        description: 'plain (default): texts shown as written; markdown: CommonMark with math ($…$, $$…$$) and asset images (docs/content.md)',
      }),
    ),
    language: Type.Optional(languageTag("The language the test's texts are written in (BCP 47 in canonical form: en, fr, pt-BR; default en)")),
    translations: Type.Optional(Translations),
  },
  { additionalProperties: false, title: 'TestInput' },
);
export type TestInput = Static<typeof TestInput>;

/** The partner's view of a test (spec 2.1): no questions, no answer keys. */
export const PartnerTest = Type.Object(
  {
    testId: Type.String(),
    title: Type.String(),
    description: Type.String(),
    durationMinutes: Type.Integer(),
    proctoring: ProctoringModeSchema,
    marking: MarkingModeSchema,
    resultVisibility: ResultVisibilitySchema,
    language: Type.Union([Type.String(), Type.Null()], {
      description: "The language the test's texts are written in (BCP 47), as its author declared it; null when undeclared (such a test is read as en)",
    }),
    languages: Type.Array(Type.String(), {
      description:
        "The languages a candidate can read the test's texts in (BCP 47): its own language first (declared, else en), then its translations' locales, sorted. An assignment's locale picks the nearest; a translation may leave some texts in the test's own language",
    }),
  },
  { title: 'Test' },
);

/** The operator's view: the current version with questions and answer keys. */
export const AdminTest = Type.Object(
  {
    testId: Type.String(),
    version: Type.Integer(),
    title: Type.String(),
    description: Type.String(),
    durationMinutes: Type.Integer(),
    proctoring: ProctoringModeSchema,
    marking: MarkingModeSchema,
    resultVisibility: ResultVisibilitySchema,
    passPercent: Type.Union([Type.Number(), Type.Null()]),
    proctoringRules: Nullable(ProctoringRulesView, { description: 'The resolved thresholds; null when proctoring is none' }),
    contentFormat: StringEnum(CONTENT_FORMATS, { description: 'How the texts are written: plain or markdown' }),
    questions: Type.Optional(Type.Array(Type.Unsafe<Question>({ type: 'object', additionalProperties: true }), { description: 'A flat test' })),
    sections: Type.Optional(
      Type.Array(Type.Unsafe<SectionInput>({ type: 'object', additionalProperties: true }), { description: 'A test with sections: each with its questions' }),
    ),
    passages: Type.Optional(Type.Array(Type.Unsafe<Passage>({ type: 'object', additionalProperties: true }), { description: 'Shared passages (absent: none)' })),
    language: Type.Optional(Type.String({ description: 'The language the texts are written in, when the test declares one (absent: en)' })),
    translations: Type.Optional(Translations),
    translationStatus: Type.Optional(
      Type.Record(Type.String(), Type.Object({ missing: Type.Array(Type.String()), stale: Type.Array(Type.String()) }), {
        description: "Per translation: the texts' paths not translated, and those whose source changed since they were translated",
      }),
    ),
    publishedTo: Type.Array(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'AdminTest' },
);
