import { StringEnum } from '../../platform/http/schemas.js';

/**
 * A test's settings, each a closed list written once here: the values,
 * their route schema and their type. Everything else (stored test
 * versions, the state machine, proctoring, the student pages) imports them.
 */

/** How the test is supervised: not at all, recorded, or recorded with on-device face analysis. */
export const PROCTORING_MODES = ['none', 'record', 'live_ai'] as const;
export type ProctoringMode = (typeof PROCTORING_MODES)[number];
export const ProctoringModeSchema = StringEnum(PROCTORING_MODES, { description: 'How the test is supervised' });

/** The modes of a proctored test: every mode but `none`. */
export const PROCTORED_MODES = PROCTORING_MODES.filter((m): m is Exclude<ProctoringMode, 'none'> => m !== 'none');
export type ProctoredMode = (typeof PROCTORED_MODES)[number];

/** How the test is scored: by the answer key, by a reviewer, or both. */
export const MARKING_MODES = ['auto', 'manual', 'hybrid'] as const;
export type MarkingMode = (typeof MARKING_MODES)[number];
export const MarkingModeSchema = StringEnum(MARKING_MODES, { description: 'How it is scored' });

/** When the student sees results: at submission, or once a reviewer has finished. */
export const RESULT_VISIBILITIES = ['immediate', 'after_review'] as const;
export type ResultVisibility = (typeof RESULT_VISIBILITIES)[number];
export const ResultVisibilitySchema = StringEnum(RESULT_VISIBILITIES, { description: 'When the student sees results' });

/** A free-text question's AI marking: the model suggests to a reviewer, or decides when confident. */
export const AI_MARKING_MODES = ['suggest', 'decide'] as const;
export type AiMarkingMode = (typeof AI_MARKING_MODES)[number];
