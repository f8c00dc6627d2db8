import { Type, type Static } from '@sinclair/typebox';
import { common } from '../common-fields.js';
import { Criterion } from '../ai-marking-fields.js';

/** The largest file a file_upload question may accept, and its default. */
export const UPLOAD_MAX_BYTES = 20 * 1024 * 1024;
export const UPLOAD_DEFAULT_BYTES = 10 * 1024 * 1024;

/** A file answer: the accepted MIME types and size, marked by a person against the rubric (and criteria, when given). */
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
export type FileUploadQuestion = Static<typeof FileUpload> & { id: string };

/** A MIME type as `accept` takes it: type/subtype, or type/* (e.g. image/*). */
export const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,63})$/;
