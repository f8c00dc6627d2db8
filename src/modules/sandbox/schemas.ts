import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../../platform/http/schemas.js';
import { AnswerValueSchema } from '../student/student-schemas.js';

/** Schemas of the test-mode routes (simulate, test-data wipe). */
export const SIMULATE_ACTIONS = ['start', 'submit', 'violation', 'finish_marking', 'expire'] as const;
export type SimulateAction = (typeof SIMULATE_ACTIONS)[number];

/** The proctoring kinds a page reports that can become critical (and so a `violation.detected`). */
export const VIOLATION_KINDS = ['no_face', 'multiple_faces', 'left_test', 'camera_stopped'] as const;
export type ViolationKind = (typeof VIOLATION_KINDS)[number];

export const SimulateBody = Type.Object(
  {
    action: StringEnum(SIMULATE_ACTIONS, {
      description:
        'start: the student presses Begin (assigned → started, exam.started). ' +
        'submit: the student saves `answers` (or answers reaching `score`, or nothing) and submits (exam.completed; then completed, or marking for after_review tests). ' +
        'violation: a critical proctoring flag of `violationKind` while started (violation.detected; proctored tests only). ' +
        'finish_marking: a reviewer marks the items awaiting a mark (towards `score`, else towards the score submit aimed at, else full points) and finishes (marking → completed, grading.done). ' +
        'expire: dueAt is moved to now and the assignment expires as at its due date (assigned → expired, assignment.expired).',
    }),
    answers: Type.Optional(
      Type.Array(
        Type.Object(
          {
            questionId: Type.String({ minLength: 1, maxLength: 64 }),
            value: AnswerValueSchema,
          },
          { additionalProperties: false },
        ),
        {
          minItems: 1,
          maxItems: 500,
          description:
            'submit only: answers as the test page stores them (an option id, an array of option ids, text, or null). Question ids are those of the test version the assignment pins.',
        },
      ),
    ),
    score: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 100,
        description:
          'submit and finish_marking only: a target percentage of the test\'s maximum points. submit answers auto-marked questions right or leaves them blank to come as close as the questions allow; finish_marking gives the items awaiting a reviewer what is still missing; without it, finish_marking aims at the score submit was given.',
      }),
    ),
    violationKind: Type.Optional(
      StringEnum(VIOLATION_KINDS, {
        description: 'violation only. Default multiple_faces on a live_ai test, left_test on a record test (no_face and multiple_faces need live_ai).',
      }),
    ),
  },
  { additionalProperties: false, title: 'SimulateAssignment' },
);
export type SimulateBody = Static<typeof SimulateBody>;

export const TestDataWiped = Type.Object(
  {
    deleted: Type.Object({
      assignments: Type.Integer({ description: 'Test-mode assignments deleted, with their attempts, answers, marks and proctoring records' }),
      events: Type.Integer({ description: 'Test-mode events deleted, with their webhook deliveries and attempts' }),
    }),
  },
  { title: 'TestDataWiped' },
);
