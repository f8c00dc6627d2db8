import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { AccommodationsSchema } from '../assignments/accommodations.js';

/** Request schemas of the assignment controls (PATCH, cancel, start link); the responses are the Assignment. */
export const AssignmentParams = Type.Object({ assignmentId: Type.String({ maxLength: 64 }) });

export const UpdateAssignmentBody = Type.Object(
  {
    dueAt: Type.Optional(
      Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'A new due date, in the future; null removes it. Moves the expiry and the start link expiry',
      }),
    ),
    accommodations: Type.Optional(
      Type.Union([AccommodationsSchema, Type.Null()], {
        description: 'Replaces the accommodations (null or {} removes them). Extra time applies at once to an attempt in progress',
      }),
    ),
  },
  // At least one change: an empty PATCH is a 400 that names the fields (validation.ts).
  { additionalProperties: false, minProperties: 1, title: 'UpdateAssignment' },
);
export type UpdateAssignmentBody = Static<typeof UpdateAssignmentBody>;

const FromTo = <T extends TSchema>(t: T) => Type.Object({ from: t, to: t });
const NullableTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

/** `data.changes` of an `assignment.updated` event. */
export const ChangesSchema = Type.Object(
  {
    dueAt: Type.Optional(FromTo(NullableTime)),
    accommodations: Type.Optional(FromTo(Type.Union([AccommodationsSchema, Type.Null()]))),
    deadlineAt: Type.Optional(
      Type.Object(
        { from: Type.String({ format: 'date-time' }), to: Type.String({ format: 'date-time' }) },
        { description: 'The running attempt’s deadline, moved by a change of extra time' },
      ),
    ),
  },
  { title: 'AssignmentChanges', description: 'assignment.updated only: each field present when it changed' },
);
