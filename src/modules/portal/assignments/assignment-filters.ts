import type { ErrorDetail } from '../../../platform/errors.js';
import type { AssignmentListFilter } from '../../assignments/list-assignments.js';
import { isAssignmentStatus } from '../../lifecycle/state-machine.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { portalTranslator } from '../ui/portal-text.js';

/**
 * The mode filter, like a payment dashboard's "view test data" switch: live
 * assignments by default, test-mode ones (made with an `ak_test_` key) on
 * request, or both.
 */
export const ASSIGNMENT_MODES = ['live', 'test', 'all'] as const;
export type AssignmentMode = (typeof ASSIGNMENT_MODES)[number];

/** The mode asked for; anything else (or nothing) is live. */
export function modeOf(raw: string | undefined): AssignmentMode {
  return (ASSIGNMENT_MODES as readonly string[]).includes(raw ?? '') ? (raw as AssignmentMode) : 'live';
}

export interface FilterQuery {
  mode?: string | undefined;
  q?: string | undefined;
  status?: string | undefined;
  testId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

const DAY_MS = 24 * 60 * 60 * 1000;

function parseDay(raw: string | undefined): Date | null | undefined {
  if (!raw) return undefined;
  if (!/^\d{4}-\d\d-\d\d$/.test(raw)) return null;
  const d = new Date(`${raw}T00:00:00Z`);
  return Number.isFinite(d.getTime()) && d.toISOString().startsWith(raw) ? d : null;
}

/**
 * The Assignments page's query as a service filter. Dates are whole UTC
 * days, both inclusive ("to 3 May" includes assignments created on 3 May).
 * Unknown statuses and modes are ignored (a mode other than test or all is
 * live); malformed dates are reported.
 */
export function parseFilters(
  institutionId: string,
  q: FilterQuery,
  t: Translator = portalTranslator(),
): { filter: AssignmentListFilter; errors: ErrorDetail[] } {
  const errors: ErrorDetail[] = [];
  const from = parseDay(q.from);
  const to = parseDay(q.to);
  if (from === null) errors.push({ field: 'from', message: t.t('portal.assignments.error.from') });
  if (to === null) errors.push({ field: 'to', message: t.t('portal.assignments.error.to') });
  if (from && to && from.getTime() > to.getTime()) errors.push({ field: 'to', message: t.t('portal.assignments.error.order') });
  const status = isAssignmentStatus(q.status) ? q.status : undefined;
  const search = q.q?.trim();
  const mode = modeOf(q.mode);
  return {
    errors,
    filter: {
      institutionId,
      status,
      testId: q.testId || undefined,
      externalUserId: search || undefined,
      createdFrom: from ?? undefined,
      createdTo: to ? new Date(to.getTime() + DAY_MS) : undefined,
      livemode: mode === 'all' ? undefined : mode === 'live',
    },
  };
}
