import { notFound, type ErrorDetail } from '../../platform/errors.js';
import type { Queryable } from '../../platform/db.js';
import { draftProblems, getDraftView, type AuthoringScope } from './drafts.js';
import * as drafts from './drafts-repo.js';
import { insertTrialVersion } from './tests-repo.js';

/**
 * "Try it" (docs/authoring.md): the saved draft, validated in full as for
 * publishing, frozen as a trial version — a test_versions row flagged
 * `trial` with a negative number, which no listing, current-version join,
 * statistic, export or partner route reads. Returns the problems instead
 * when the draft could not be published as it is (nothing is written then).
 */
export type TrialSnapshot =
  | { ok: true; testVersionId: string; ownerInstitutionId: string | null; title: string }
  | { ok: false; problems: ErrorDetail[] };

/** `tx` must be a transaction: the test's row is locked while the trial's number is taken. */
export async function snapshotTrialVersion(tx: Queryable, scope: AuthoringScope, testId: string): Promise<TrialSnapshot> {
  const head = await drafts.findTestHead(tx, testId, true);
  if (!head || (scope !== 'all' && head.ownerInstitutionId !== scope.institutionId)) throw notFound('test');
  const view = await getDraftView(tx, scope, testId);
  const { problems, valid } = await draftProblems(tx, view.content, head.ownerInstitutionId);
  if (!valid) return { ok: false, problems };
  const testVersionId = await insertTrialVersion(tx, testId, valid.input, valid.checked);
  return { ok: true, testVersionId, ownerInstitutionId: head.ownerInstitutionId, title: valid.input.title };
}
