/** What other modules (marking, a reviewer portal) may use of attempts: reads and the attempt lock. */
export { findAttempt, listAnswers, lockAttempt, type Attempt, type StoredAnswer } from './attempts-repo.js';
export { loadTestVersion } from './test-versions.js';
