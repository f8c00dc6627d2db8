import { invalid, notFound } from '../../platform/errors.js';
import type { Queryable } from '../../platform/db.js';
import type { AssignmentListFilter } from '../assignments/list-assignments.js';
import type { AssignmentStatus } from '../lifecycle/state-machine.js';
import { getInstitution } from '../institutions/institutions.js';

const DAY_MS = 24 * 60 * 60 * 1000;

function day(raw: string | undefined, field: string): Date | undefined {
  if (!raw) return undefined;
  const d = new Date(`${raw}T00:00:00Z`);
  if (!Number.isFinite(d.getTime()) || !d.toISOString().startsWith(raw)) throw invalid(field, 'Must be a calendar date, YYYY-MM-DD.');
  return d;
}

/** The operator API's export query as the listing's filter; an unknown institution is not found. */
export async function exportFilter(
  db: Queryable,
  institutionId: string,
  q: { status?: AssignmentStatus | undefined; testId?: string | undefined; externalUserId?: string | undefined; createdFrom?: string | undefined; createdTo?: string | undefined; livemode?: boolean | undefined },
): Promise<AssignmentListFilter> {
  if (!(await getInstitution(db, institutionId))) throw notFound('institution');
  const from = day(q.createdFrom, 'createdFrom');
  const to = day(q.createdTo, 'createdTo');
  if (from && to && from.getTime() > to.getTime()) throw invalid('createdTo', 'Must be on or after createdFrom.');
  return {
    institutionId,
    status: q.status,
    testId: q.testId,
    externalUserId: q.externalUserId,
    createdFrom: from,
    createdTo: to ? new Date(to.getTime() + DAY_MS) : undefined,
    livemode: q.livemode ?? true,
  };
}
