import { monitorEventLoopDelay } from 'node:perf_hooks';
import { assignmentBody, type Harness } from './harness.js';

/**
 * How long a partner's read waits while a hostile request is served: the
 * availability check of the outside review (one request must never hold the
 * one event loop that every tenant shares).
 *
 * The app listens on a real port; the hostile request goes over a real
 * socket, and meanwhile two loops each keep one `GET /assignments/{id}` in
 * flight back to back, so a read is always waiting whenever the loop stalls
 * and its wall-clock latency includes the stall. The event loop's longest
 * delay over the same time is reported beside it.
 */
export interface ReadsDuring<T> {
  /** What the hostile request returned. */
  result: T;
  /** Partner reads answered while it ran (at least one). */
  reads: number;
  /** The slowest of them, ms (issue to answer). */
  maxReadMs: number;
  /** The longest event-loop delay seen meanwhile, ms. */
  maxLoopDelayMs: number;
  /** How long the hostile request took, ms. */
  hostileMs: number;
}

/** The app's base URL on a real port, listening once per harness. */
export async function baseUrlOf(h: Harness): Promise<string> {
  const address = h.app.server.address();
  if (address && typeof address === 'object') return `http://127.0.0.1:${address.port}`;
  return h.app.listen({ host: '127.0.0.1', port: 0 });
}

export async function partnerReadsDuring<T>(h: Harness, hostile: (baseUrl: string) => Promise<T>): Promise<ReadsDuring<T>> {
  const baseUrl = await baseUrlOf(h);
  const created = await h.partner(h.a, 'POST', '/api/partner/v1/assignments', assignmentBody(h.a, { externalUserId: `reader-${Date.now()}` }));
  if (created.statusCode !== 201) throw new Error(`could not create the assignment to read: ${created.statusCode} ${created.body}`);
  const url = `${baseUrl}/api/partner/v1/assignments/${created.json().assignmentId}`;
  const headers = { authorization: `Bearer ${h.a.apiKey}` };
  // Warm: the first read pays for the key cache and the prepared statements.
  await (await fetch(url, { headers })).arrayBuffer();

  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let done = false;
  let reads = 0;
  let maxReadMs = 0;
  const reader = async () => {
    while (!done) {
      const t0 = performance.now();
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`partner read answered ${res.status}`);
      reads++;
      maxReadMs = Math.max(maxReadMs, performance.now() - t0);
    }
  };
  const readers = [reader(), reader()];
  const t0 = performance.now();
  let result: T;
  try {
    result = await hostile(baseUrl);
  } finally {
    done = true;
  }
  const hostileMs = performance.now() - t0;
  await Promise.all(readers);
  delay.disable();
  return { result, reads, maxReadMs, maxLoopDelayMs: delay.max / 1e6, hostileMs };
}
