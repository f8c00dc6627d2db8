import type { RequestOptions, Send } from '../transport.js';
import type { AssayEvent, EventList, EventWithDeliveries, ListEventsParams, Redelivered, RedeliverParams } from '../types.js';
import { cursorPages } from './paging.js';

const path = (id: string, rest = '') => `/api/partner/v1/events/${encodeURIComponent(id)}${rest}`;

/** Events of the last 30 days (`/events`): the same bodies your webhook endpoint receives. */
export class Events {
  constructor(private readonly send: Send) {}

  /** One page, newest first: `{ data, hasMore }`; pass the last id as `startingAfter` for the next. */
  list(params: ListEventsParams = {}, options?: RequestOptions): Promise<EventList> {
    return this.send({ method: 'GET', path: '/api/partner/v1/events', query: params, options });
  }

  /** Every matching event, newest first, following the cursor as the loop asks for more. */
  listAll(params: ListEventsParams = {}, options?: RequestOptions): AsyncIterableIterator<AssayEvent> {
    const { startingAfter, ...rest } = params;
    return cursorPages((cursor) => this.list({ limit: 100, ...rest, startingAfter: cursor }, options), startingAfter);
  }

  /** The event with its delivery to each endpoint and every attempt. */
  get(eventId: string, options?: RequestOptions): Promise<EventWithDeliveries> {
    return this.send({ method: 'GET', path: path(eventId), options });
  }

  /** Sends the event again now: to `endpointId`, or to every enabled endpoint subscribed to its type. */
  redeliver(eventId: string, params: RedeliverParams = {}, options?: RequestOptions): Promise<Redelivered> {
    return this.send({ method: 'POST', path: path(eventId, '/redeliver'), ...(params.endpointId ? { body: params } : {}), options });
  }
}
