import type { RequestOptions, Send } from '../transport.js';
import type { ListTestsParams, Test, TestList } from '../types.js';
import { offsetPages } from './paging.js';

/** The tests published to your institution (`/tests`). */
export class Tests {
  constructor(private readonly send: Send) {}

  /** One page: `{ data, total, limit, offset }`. */
  list(params: ListTestsParams = {}, options?: RequestOptions): Promise<TestList> {
    return this.send({ method: 'GET', path: '/api/partner/v1/tests', query: params, options });
  }

  /** Every test, fetching page after page (`limit` per request, default 100) as the loop asks for more. */
  listAll(params: Omit<ListTestsParams, 'offset'> = {}, options?: RequestOptions): AsyncIterableIterator<Test> {
    return offsetPages((offset) => this.list({ limit: 100, ...params, offset }, options));
  }
}
