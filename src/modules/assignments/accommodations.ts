import { Type, type Static } from '@sinclair/typebox';
import type { Queryable } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { getInstitutionSettings } from '../institutions/institution-settings.js';

/**
 * Accommodations of one assignment (docs/assignment-controls.md):
 * extra time, as a percentage of the test's duration or as minutes (one or
 * the other), and proctoring relaxations, which an institution may grant only
 * when the operator allowed them (`allowProctoringRelaxations`).
 *
 * The relaxations are deliberately few: the ones students with assistive
 * technology need most. Full screen gets in the way of screen magnifiers and
 * on-screen keyboards; dictation and text-to-speech tools go through the
 * clipboard. Camera and face checks are never relaxed here: an institution
 * that does not need them chooses a test without proctoring.
 */
export const ProctoringRelaxationsSchema = Type.Object(
  {
    fullscreenRequired: Type.Optional(
      Type.Boolean({ description: 'false: the page does not require full screen, and leaving full screen is not flagged' }),
    ),
    copyPasteAllowed: Type.Optional(
      Type.Boolean({ description: 'true: copy and paste are not flagged (dictation and text-to-speech tools use the clipboard)' }),
    ),
  },
  { additionalProperties: false, title: 'ProctoringRelaxations' },
);

export const AccommodationsSchema = Type.Object(
  {
    extraTimePercent: Type.Optional(Type.Integer({ minimum: 0, maximum: 400, description: 'Extra time as a percentage of the test duration; not with extraTimeMinutes' })),
    extraTimeMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1440, description: 'Extra time in minutes; not with extraTimePercent' })),
    proctoring: Type.Optional(ProctoringRelaxationsSchema),
  },
  {
    additionalProperties: false,
    // One kind of extra time or the other, never both (validation.ts names both fields in the 400).
    not: { required: ['extraTimePercent', 'extraTimeMinutes'] },
    title: 'Accommodations',
    description: 'Extra time (one of extraTimePercent or extraTimeMinutes) and proctoring relaxations, where the institution allows them',
  },
);

export type Accommodations = Static<typeof AccommodationsSchema>;
export interface EffectiveRelaxations {
  fullscreenRequired: boolean;
  copyPasteAllowed: boolean;
}

const STRICT: EffectiveRelaxations = { fullscreenRequired: true, copyPasteAllowed: false };

/**
 * Normalises: an empty object, or one with only empty parts, means no
 * accommodations (null). Both kinds of extra time are refused by the schema
 * (`not`); the check here keeps the same 400 for callers that skip the HTTP
 * validation (the portal's forms, the command line).
 */
export function normaliseAccommodations(input: Accommodations | null | undefined, field = 'accommodations'): Accommodations | null {
  if (!input) return null;
  if (input.extraTimePercent !== undefined && input.extraTimeMinutes !== undefined) {
    const message = 'give extraTimePercent or extraTimeMinutes, not both';
    throw new AppError('invalid_request', `${field}: ${message}`, [
      { field: `${field}.extraTimePercent`, message },
      { field: `${field}.extraTimeMinutes`, message },
    ]);
  }
  const out: Accommodations = {};
  if (input.extraTimePercent !== undefined) out.extraTimePercent = input.extraTimePercent;
  if (input.extraTimeMinutes !== undefined) out.extraTimeMinutes = input.extraTimeMinutes;
  const p = input.proctoring;
  if (p && (p.fullscreenRequired !== undefined || p.copyPasteAllowed !== undefined)) {
    out.proctoring = {
      ...(p.fullscreenRequired !== undefined ? { fullscreenRequired: p.fullscreenRequired } : {}),
      ...(p.copyPasteAllowed !== undefined ? { copyPasteAllowed: p.copyPasteAllowed } : {}),
    };
  }
  return Object.keys(out).length > 0 ? out : null;
}

function relaxes(a: Accommodations | null): boolean {
  return a?.proctoring?.fullscreenRequired === false || a?.proctoring?.copyPasteAllowed === true;
}

/**
 * Refuses relaxations the institution has not been allowed (422). Checked when
 * they are granted (creation, PATCH); a later change of the setting does not
 * take back what an assignment was already granted.
 */
export async function checkRelaxationsAllowed(db: Queryable, institutionId: string, a: Accommodations | null, field = 'accommodations'): Promise<void> {
  if (!relaxes(a)) return;
  if ((await getInstitutionSettings(db, institutionId))?.allowProctoringRelaxations) return;
  throw new AppError('proctoring_relaxation_not_allowed', `${field}.proctoring: your institution is not set up to relax proctoring; ask the operator.`, [
    { field: `${field}.proctoring`, message: 'proctoring relaxations are not enabled for your institution' },
  ]);
}

/** The proctoring rules that apply to this assignment's attempt: the strict defaults unless relaxed. */
export function effectiveProctoringRelaxations(assignment: { accommodations: Accommodations | null }): EffectiveRelaxations {
  const p = assignment.accommodations?.proctoring;
  return {
    fullscreenRequired: p?.fullscreenRequired ?? STRICT.fullscreenRequired,
    copyPasteAllowed: p?.copyPasteAllowed ?? STRICT.copyPasteAllowed,
  };
}

/** Key-order independent comparison, for "did this change". */
export function sameAccommodations(a: Accommodations | null, b: Accommodations | null): boolean {
  const canon = (x: Accommodations | null) =>
    x === null
      ? 'null'
      : JSON.stringify([x.extraTimePercent ?? null, x.extraTimeMinutes ?? null, x.proctoring?.fullscreenRequired ?? null, x.proctoring?.copyPasteAllowed ?? null]);
  return canon(a) === canon(b);
}
