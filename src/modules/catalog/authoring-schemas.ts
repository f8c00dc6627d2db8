import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum, Timestamp } from '../../platform/http/schemas.js';

/** The request and response bodies of authoring (drafts and versions), shared by the operator API and the portal's JSON routes. */
export const TestIdParams = Type.Object({ testId: Type.String({ maxLength: 64 }) });
export const VersionParams = Type.Object({ testId: Type.String({ maxLength: 64 }), version: Type.Integer({ minimum: 1, maximum: 1_000_000 }) });

/** A draft's content: the TestInput body, complete or not (checked on publish, not on save). */
const DraftContent = Type.Object({}, { additionalProperties: true, description: 'The test as the operator API takes it (TestInput), complete or not' });
const Problem = Type.Object({ field: Type.String(), message: Type.String() });

export const CreateDraftBody = Type.Object({ content: DraftContent }, { additionalProperties: false });
export const SaveDraftBody = Type.Object(
  { revision: Type.Integer({ minimum: 0, maximum: 2_000_000_000, description: 'The revision the edit started from (0: none saved yet)' }), content: DraftContent },
  { additionalProperties: false },
);
export const PublishBody = Type.Object(
  { revision: Type.Integer({ minimum: 1, maximum: 2_000_000_000, description: 'The draft revision to publish: refused (409) if the draft moved on' }) },
  { additionalProperties: false },
);

export const Draft = Type.Object({
  testId: Type.String(),
  ownerInstitutionId: Nullable(Type.String()),
  content: DraftContent,
  revision: Type.Integer({ description: '0 when no draft was saved yet (the content is the current version)' }),
  updatedBy: Nullable(Type.String({ description: 'Who saved the draft last (e-mail, or operator_token)' })),
  updatedAt: Nullable(Timestamp),
  nextVersion: Type.Integer(),
  problems: Type.Array(Problem, { description: 'What publishing would refuse now, each at its field path; empty: publishable' }),
  translationStatus: Type.Optional(
    Type.Record(Type.String(), Type.Object({ missing: Type.Array(Type.String()), stale: Type.Array(Type.String()) }), {
      description: "Per translation in the content: the texts' paths not translated, and those whose source changed since they were translated (absent: no translations)",
    }),
  ),
});

export const Published = Type.Object({
  testId: Type.String(),
  version: Type.Integer(),
  publishedRevision: Type.Integer({ description: 'The draft revision that became the version' }),
  revision: Type.Integer({ description: "The draft's revision now: the version as stored (generated ids filled in), to continue editing from" }),
});

export const VersionList = Type.Object({
  data: Type.Array(Type.Object({ version: Type.Integer(), title: Type.String(), questionCount: Type.Integer(), createdAt: Timestamp })),
});

export const Change = Type.Object({
  kind: StringEnum([
    'test_changed',
    'section_added',
    'section_removed',
    'section_renamed',
    'section_changed',
    'question_added',
    'question_removed',
    'question_moved',
    'question_changed',
  ] as const),
  fields: Type.Optional(Type.Array(Type.String())),
  sectionId: Type.Optional(Type.String()),
  questionId: Type.Optional(Type.String()),
  title: Type.Optional(Type.String()),
  from: Type.Optional(Type.String()),
  to: Type.Optional(Type.String()),
});

export const VersionDiff = Type.Object({ version: Type.Integer(), previous: Nullable(Type.Integer()), changes: Type.Array(Change) });
