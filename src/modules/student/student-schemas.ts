import { LOCALES } from '../../platform/i18n/locales.js';
import { Type } from '@sinclair/typebox';
import { NullableTimestamp, Timestamp } from '../../platform/http/schemas.js';
import { AssignmentStatusSchema } from '../assignments/schemas.js';
import { registeredAnswers, TEXT_MAX, type AnswerValue } from '../attempts/answer-values.js';

/** Schemas of the student routes (pages, forms, autosave). Hidden from the partner and operator documents. */
export const AssignmentParams = Type.Object({ assignmentId: Type.String({ maxLength: 64 }) });

export const Html = Type.String({ description: 'An HTML page' });

/** Every form the pages post carries the session's CSRF token (checked before the handler; a missing one is refused as a wrong one). */
export const CsrfForm = Type.Object({ csrf: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false });

/** The intro page's Language menu: one of the catalogues' tags. */
export const LanguageForm = Type.Object(
  { csrf: Type.Optional(Type.String({ maxLength: 200 })), locale: Type.Union(LOCALES.map((l) => Type.Literal(l.tag))) },
  { additionalProperties: false },
);

export const CsrfHeader = Type.Object({ 'x-csrf-token': Type.Optional(Type.String({ maxLength: 200 })) });

/**
 * An answer as the page (and simulate) sends it; answer-values.ts checks it against the question.
 * Its bounds are those of the questions (TEXT_MAX; at most 50 options, items, stems or blanks,
 * whose ids have at most 64 characters), so the size pass refuses a bigger one before its items are read.
 */
export const AnswerValueSchema = Type.Unsafe<AnswerValue>(Type.Union([
  Type.Null(),
  Type.String({ maxLength: TEXT_MAX.essay }),
  Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 }),
  // matching { stemId: choiceId }, fill_blanks { blankId: text | optionId }; null or '' leaves one unanswered.
  // (A record's key schema does not reach JSON Schema: propertyNames bounds the ids.)
  Type.Record(Type.String({ maxLength: 64 }), Type.Union([Type.String({ maxLength: TEXT_MAX.blank }), Type.Null()]), {
    maxProperties: 50,
    propertyNames: { maxLength: 64 },
  }),
  // composite { partId: that part's answer in its own type's shape }; a null part is unanswered.
  Type.Record(
    Type.String({ maxLength: 64 }),
    Type.Union([
      Type.Null(),
      Type.String({ maxLength: TEXT_MAX.short_text }),
      Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 }),
      Type.Record(Type.String({ maxLength: 64 }), Type.Union([Type.String({ maxLength: TEXT_MAX.blank }), Type.Null()]), { maxProperties: 50, propertyNames: { maxLength: 64 } }),
      ...registeredAnswers(true),
    ]),
    { maxProperties: 20, propertyNames: { maxLength: 64 } },
  ),
  // The registered question types' own shapes (a number, [{ x, y }], [[a, b]] …): each type bounds its own.
  ...registeredAnswers(false),
]));

export const SaveAnswersBody = Type.Object(
  {
    answers: Type.Array(
      Type.Object(
        {
          questionId: Type.String({ minLength: 1, maxLength: 64 }),
          value: AnswerValueSchema,
          version: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 500 },
    ),
  },
  { additionalProperties: false },
);

export const SaveAnswersResponse = Type.Object({
  results: Type.Array(Type.Object({ questionId: Type.String(), version: Type.Integer(), saved: Type.Boolean() })),
  serverTime: Timestamp,
});

export const AttemptStatusResponse = Type.Object({
  status: AssignmentStatusSchema,
  deadline: NullableTimestamp,
  serverNow: Timestamp,
});

/** A file answer's upload (POST /a/{assignmentId}/files/{questionId}): the raw bytes, described by headers. */
export const FileUploadParams = Type.Object({ assignmentId: Type.String({ maxLength: 64 }), questionId: Type.String({ minLength: 1, maxLength: 64 }) });

export const FileUploadHeaders = Type.Object({
  'x-csrf-token': Type.Optional(Type.String({ maxLength: 200 })),
  /** encodeURIComponent(file.name) */
  'x-file-name': Type.String({ minLength: 1, maxLength: 2_000 }),
  'x-answer-version': Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
});

export const FileUploadResponse = Type.Object({
  questionId: Type.String(),
  fileId: Type.String(),
  fileName: Type.String(),
  contentType: Type.String({ description: 'The type detected from the content' }),
  bytes: Type.Integer(),
  version: Type.Integer(),
  saved: Type.Boolean({ description: 'False when a newer answer version was already stored (this file is not the answer)' }),
});

/** A direct upload of a file answer (S3 storage): what the page will PUT, and the answer it will make. */
export const AnswerFilePresignBody = Type.Object(
  {
    bytes: Type.Integer({ minimum: 1, maximum: 1024 * 1024 * 1024 }),
    /** The browser's type for the file (File.type), judged against the content at the record. */
    contentType: Type.String({ maxLength: 200 }),
    fileName: Type.String({ minLength: 1, maxLength: 2_000 }),
    version: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    /** base64 of the file's SHA-256 (crypto.subtle), signed into the PUT as x-amz-checksum-sha256. */
    sha256: Type.String({ minLength: 44, maxLength: 44 }),
  },
  { additionalProperties: false },
);

export const AnswerFilePresigned = Type.Object({
  direct: Type.Literal(true),
  key: Type.String(),
  upload: Type.Object({ method: Type.Literal('PUT'), url: Type.String(), headers: Type.Record(Type.String(), Type.String()) }),
  expiresAt: Type.String(),
});

export const AnswerFileRecordBody = Type.Object({ key: Type.String({ minLength: 1, maxLength: 512 }) }, { additionalProperties: false });
