import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum, Timestamp } from '../../platform/http/schemas.js';
import { CONTENT_FORMATS } from './content/content-format.js';
import { AI_MARKING_MODES, MarkingModeSchema, ProctoringModeSchema, ResultVisibilitySchema } from './test-settings.js';

const ClientId = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Optional; generated (`q_…`) when absent' });
const Prompt = Type.String({ minLength: 1, maxLength: 10_000 });
const Points = Type.Number({ exclusiveMinimum: 0, maximum: 10_000 });
const PartId = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' });
/** A reference to a part (an option, a stem, a choice): as long as a part id may be. */
const PartRef = Type.String({ maxLength: 64 });
const PartText = Type.String({ minLength: 1, maxLength: 2_000 });
/** An option, a matching stem or choice, an ordering item: an id unique within its list and a text. */
const Part = Type.Object({ id: PartId, text: PartText }, { additionalProperties: false });
const Option = Type.Object(
  {
    id: PartId,
    text: PartText,
    fixed: Type.Optional(Type.Boolean({ description: 'With shuffleOptions: this option keeps its place (e.g. "None of the above")' })),
  },
  { additionalProperties: false },
);
const common = { id: Type.Optional(ClientId), prompt: Prompt, points: Points };
const shuffleOptions = Type.Optional(Type.Boolean({ default: false, description: 'Show the options in a per-candidate order; fixed options keep their place' }));

/** AI marking of a free-text item (docs/ai-marking.md); the authoring rules check the rest. */
export const AiMarking = Type.Object(
  {
    mode: StringEnum(AI_MARKING_MODES, {
      description: 'suggest: a reviewer sees the suggestion and marks; decide: a confident, unflagged suggestion becomes the mark',
    }),
    minConfidence: Type.Number({ minimum: 0, maximum: 1, description: 'decide: the model must be at least this sure (0–1)' }),
  },
  { additionalProperties: false, title: 'AiMarking' },
);
export const Criterion = Type.Object(
  {
    criterion: Type.String({ minLength: 1, maxLength: 200, description: 'A short name, unique within the question' }),
    points: Type.Number({ minimum: 0, maximum: 10_000 }),
    description: Type.String({ maxLength: 4_000, description: 'What earns the points' }),
  },
  { additionalProperties: false, title: 'Criterion' },
);
/** Free-text items may be marked against criteria whose points sum to the question's points. */
const aiFields = {
  aiMarking: Type.Optional(AiMarking),
  criteria: Type.Optional(Type.Array(Criterion, { minItems: 1, maxItems: 50 })),
};

export const SingleChoice = Type.Object(
  {
    type: Type.Literal('single_choice'),
    ...common,
    options: Type.Array(Option, { minItems: 2, maxItems: 50 }),
    correctOptionId: PartRef,
    shuffleOptions,
  },
  { additionalProperties: false, title: 'SingleChoiceQuestion' },
);
export const MultipleChoice = Type.Object(
  {
    type: Type.Literal('multiple_choice'),
    ...common,
    options: Type.Array(Option, { minItems: 2, maxItems: 50 }),
    correctOptionIds: Type.Array(PartRef, { minItems: 1, maxItems: 50 }),
    partialCredit: Type.Optional(Type.Boolean({ default: false })),
    shuffleOptions,
  },
  { additionalProperties: false, title: 'MultipleChoiceQuestion' },
);
export const ShortText = Type.Object(
  {
    type: Type.Literal('short_text'),
    ...common,
    acceptedAnswers: Type.Array(Type.String({ minLength: 1, maxLength: 1_000 }), { minItems: 1, maxItems: 100 }),
    caseSensitive: Type.Optional(Type.Boolean({ default: false })),
    // With aiMarking, an answer that matches no accepted answer is marked by the model instead of getting 0.
    rubric: Type.Optional(Type.String({ maxLength: 10_000 })),
    ...aiFields,
  },
  { additionalProperties: false, title: 'ShortTextQuestion' },
);
export const NumericQ = Type.Object(
  { type: Type.Literal('numeric'), ...common, answer: Type.Number(), tolerance: Type.Optional(Type.Number({ minimum: 0, default: 0 })) },
  { additionalProperties: false, title: 'NumericQuestion' },
);
export const Essay = Type.Object(
  {
    type: Type.Literal('essay'),
    ...common,
    rubric: Type.Optional(Type.String({ maxLength: 10_000 })),
    maxWords: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    ...aiFields,
  },
  { additionalProperties: false, title: 'EssayQuestion' },
);

export const Matching = Type.Object(
  {
    type: Type.Literal('matching'),
    ...common,
    stems: Type.Array(Part, { minItems: 1, maxItems: 50, description: 'Each is shown with a select of the choices' }),
    choices: Type.Array(Part, { minItems: 2, maxItems: 50, description: 'A choice may serve several stems' }),
    correct: Type.Record(Type.String(), PartRef, { maxProperties: 50, propertyNames: { maxLength: 64 }, description: '{ stemId: choiceId } for every stem' }),
    partialCredit: Type.Optional(Type.Boolean({ default: true, description: 'points × correct stems ÷ stems; false: all or nothing' })),
  },
  { additionalProperties: false, title: 'MatchingQuestion' },
);
export const Ordering = Type.Object(
  {
    type: Type.Literal('ordering'),
    ...common,
    items: Type.Array(Part, { minItems: 2, maxItems: 50, description: 'In the correct order; shown in a per-candidate order that is never already correct' }),
    partialCredit: Type.Optional(Type.Boolean({ default: false, description: 'points × items in their correct place ÷ items; false: all or nothing' })),
  },
  { additionalProperties: false, title: 'OrderingQuestion' },
);
const TextBlank = Type.Object(
  {
    id: PartId,
    kind: Type.Literal('text'),
    acceptedAnswers: Type.Array(Type.String({ minLength: 1, maxLength: 1_000 }), { minItems: 1, maxItems: 100 }),
    caseSensitive: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false, title: 'TextBlank' },
);
const ChoiceBlank = Type.Object(
  { id: PartId, kind: Type.Literal('choice'), options: Type.Array(Part, { minItems: 2, maxItems: 50 }), correctOptionId: PartRef },
  { additionalProperties: false, title: 'ChoiceBlank' },
);
export const FillBlanks = Type.Object(
  {
    type: Type.Literal('fill_blanks'),
    ...common,
    text: Type.String({ minLength: 1, maxLength: 10_000, description: 'The text with each blank placed as {{blankId}}' }),
    blanks: Type.Array(Type.Union([TextBlank, ChoiceBlank]), { minItems: 1, maxItems: 50, description: 'Points split equally across blanks' }),
  },
  { additionalProperties: false, title: 'FillBlanksQuestion' },
);
/** The largest file a file_upload question may accept, and its default. */
export const UPLOAD_MAX_BYTES = 20 * 1024 * 1024;
export const UPLOAD_DEFAULT_BYTES = 10 * 1024 * 1024;
export const FileUpload = Type.Object(
  {
    type: Type.Literal('file_upload'),
    ...common,
    accept: Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 20, description: 'MIME types, e.g. application/pdf, image/png' }),
    maxBytes: Type.Optional(Type.Integer({ minimum: 1, maximum: UPLOAD_MAX_BYTES, default: UPLOAD_DEFAULT_BYTES })),
    rubric: Type.Optional(Type.String({ maxLength: 10_000 })),
    criteria: Type.Optional(Type.Array(Criterion, { minItems: 1, maxItems: 50 })),
  },
  { additionalProperties: false, title: 'FileUploadQuestion' },
);

export type QuestionInput =
  | Static<typeof SingleChoice>
  | Static<typeof MultipleChoice>
  | Static<typeof ShortText>
  | Static<typeof NumericQ>
  | Static<typeof Essay>
  | Static<typeof Matching>
  | Static<typeof Ordering>
  | Static<typeof FillBlanks>
  | Static<typeof FileUpload>;
export type QuestionType = QuestionInput['type'];

/** The question types that may carry AI marking (`aiMarking`, `criteria`). */
export type AiMarkableType = 'essay' | 'short_text';

/** A stored question: the input with its id always set. */
export type Question = QuestionInput & { id: string };

// A discriminated oneOf gives precise validation errors (ajv `discriminator`) and documents well in OpenAPI 3.1.
export const QuestionSchema = Type.Unsafe<QuestionInput>({
  type: 'object',
  required: ['type'],
  discriminator: { propertyName: 'type' },
  oneOf: [SingleChoice, MultipleChoice, ShortText, NumericQ, Essay, Matching, Ordering, FillBlanks, FileUpload],
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
    contentFormat: Type.Optional(
      StringEnum(CONTENT_FORMATS, {
        description: 'plain (default): texts shown as written; markdown: CommonMark with math ($…$, $$…$$) and asset images (docs/content.md)',
      }),
    ),
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
    publishedTo: Type.Array(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'AdminTest' },
);
