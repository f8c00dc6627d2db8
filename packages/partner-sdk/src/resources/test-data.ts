import type { RequestOptions, Send } from '../transport.js';
import type { TestDataWiped } from '../types.js';

/** Test mode only (`/test-data`): 404 with a live key. */
export class TestData {
  constructor(private readonly send: Send) {}

  /** Deletes every test-mode assignment and event of your institution (live data is never touched). */
  delete(options?: RequestOptions): Promise<TestDataWiped> {
    return this.send({ method: 'DELETE', path: '/api/partner/v1/test-data', options });
  }
}
