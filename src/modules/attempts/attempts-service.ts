/** What other modules (marking, a reviewer portal, the assignment controls) may use of attempts: reads, the attempt lock, controls. */
export { findAttempt, listAnswers, lockAttempt, type Attempt, type StoredAnswer } from './attempts-repo.js';
export { loadTestVersion } from '../catalog/test-versions.js';
export { applyExtraTime, closeAttemptOnCancel } from './attempt-controls.js';
export { endSessionsOpenedBefore } from '../student/student-sessions.js';
