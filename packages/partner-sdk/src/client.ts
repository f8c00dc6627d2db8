import { Assignments } from './resources/assignments.js';
import { Events } from './resources/events.js';
import { TestData } from './resources/test-data.js';
import { Tests } from './resources/tests.js';
import { WebhookEndpoints } from './resources/webhook-endpoints.js';
import { createTransport } from './transport.js';

export const SDK_VERSION = '0.1.0';

export interface AssayOptions {
  /** Your API key, `ak_live_…` or `ak_test_…`. Server-side only: never ship it to a browser or an app. */
  apiKey: string;
  /** The service's address, e.g. `https://assay.example.com` (no `/api/…` part). */
  baseUrl: string;
  /** Milliseconds to wait for each attempt's answer. Default 30 000. */
  timeoutMs?: number;
  /** Retries after a failed first attempt (network error, timeout, 429, 5xx). Default 2; 0 turns retries off. */
  maxRetries?: number;
  /** A Fetch implementation; default the global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * The Assay Partner API client. One instance per key; it holds no
 * connection state of its own and can be shared by concurrent requests.
 *
 *     const assay = new Assay({ apiKey: process.env.ASSAY_API_KEY!, baseUrl: 'https://assay.example.com' });
 *     const { data } = await assay.tests.list();
 */
export class Assay {
  readonly tests: Tests;
  readonly assignments: Assignments;
  readonly events: Events;
  readonly webhookEndpoints: WebhookEndpoints;
  /** Test mode only. */
  readonly testData: TestData;

  constructor(options: AssayOptions) {
    if (!options?.apiKey) throw new TypeError('Assay: apiKey is required');
    if (!options.baseUrl || !/^https?:\/\//.test(options.baseUrl)) throw new TypeError('Assay: baseUrl must be an http(s) URL');
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') throw new TypeError('Assay: no fetch implementation (Node 20 or later has one built in)');
    const send = createTransport({
      apiKey: options.apiKey,
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 2,
      fetch: fetchImpl,
      userAgent: `assay-partner-sdk/${SDK_VERSION} node/${globalThis.process?.versions?.node ?? 'unknown'}`,
    });
    this.tests = new Tests(send);
    this.assignments = new Assignments(send);
    this.events = new Events(send);
    this.webhookEndpoints = new WebhookEndpoints(send);
    this.testData = new TestData(send);
  }
}
