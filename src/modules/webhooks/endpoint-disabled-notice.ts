import type { Tx } from '../../platform/db.js';
import { appendEvent } from '../lifecycle/append-event.js';
import { ENDPOINT_DISABLED_EVENT_TYPE } from '../lifecycle/event-types.js';
import { enqueueEndpointDisabledMails } from './endpoint-disabled-mail.js';
import type { AutoDisabledReason } from './webhook-statuses.js';

/**
 * Telling an institution that Assay disabled one of its webhook endpoints
 * by itself: it answered 410 Gone, or all its attempts failed for 5 days.
 * (A partner or operator who disables an endpoint knows already: no notice.)
 *
 * The notice is a `webhook_endpoint.disabled` event, appended in the same
 * transaction as the disabling: it is listed by the events API and fanned
 * out like any event, so it reaches the institution's other enabled
 * endpoints that subscribe to it (the disabled one is no longer enabled).
 * The institution's admins are also mailed: see mailAdminsEndpointDisabled.
 */
export interface EndpointDisabledNotice {
  institutionId: string;
  endpointId: string;
  url: string;
  reason: AutoDisabledReason;
  disabledAt: Date;
  /** The first failed attempt of the run that led to it (for a 410 on a healthy endpoint, that attempt itself). */
  failingSince: Date | null;
  /** The endpoint's mode: the notice is an event of that mode. */
  livemode?: boolean;
}

export async function noticeEndpointDisabled(tx: Tx, notice: EndpointDisabledNotice): Promise<void> {
  await appendEvent(tx, {
    institutionId: notice.institutionId,
    assignmentId: null,
    type: ENDPOINT_DISABLED_EVENT_TYPE,
    createdAt: notice.disabledAt,
    livemode: notice.livemode ?? true,
    data: {
      endpointId: notice.endpointId,
      url: notice.url,
      reason: notice.reason,
      disabledAt: notice.disabledAt.toISOString(),
      failingSince: notice.failingSince?.toISOString() ?? null,
    },
  });
  await mailAdminsEndpointDisabled(tx, notice);
}

/**
 * The mail half of the notice: the institution's admins (staff with role
 * admin), by mail, through a durable job per admin written in the
 * disabling's transaction: the mail leaves only if the disabling commits,
 * and an SMTP failure is retried by the queue (see endpoint-disabled-mail.ts).
 */
export async function mailAdminsEndpointDisabled(tx: Tx, notice: EndpointDisabledNotice): Promise<void> {
  await enqueueEndpointDisabledMails(tx, {
    institutionId: notice.institutionId,
    endpointId: notice.endpointId,
    url: notice.url,
    reason: notice.reason,
    disabledAt: notice.disabledAt.toISOString(),
    failingSince: notice.failingSince?.toISOString() ?? null,
  });
}
