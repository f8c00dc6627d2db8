import { Pool as HttpPool } from 'undici';

/**
 * Partner reads at a fixed rate (open loop), in a process of their own: the
 * latencies measured are the server's, not the event-loop delay of a load
 * generator that is also driving hundreds of simulated students.
 * Started by a benchmark with fork(): argv = base URL, path, API key, reads
 * per second, and optionally the request's headers as JSON, sent instead of
 * the API key (a student page's session cookie, say). Sends `'ready'`,
 * reads until it is sent `'stop'`, then sends
 * `{ latencies, errors, starts, ids }` (each read's start in epoch
 * milliseconds and its number, sent as `X-Bench-Read` so a server's trace can
 * name it, in the order of `latencies`) and exits. `'take'` sends the same
 * for the reads finished so far and goes on reading: one reader, warmed up,
 * can measure several phases (its own start-up, compiling and first reads
 * otherwise fall into the first phase it measures).
 */
const [url, readPath, apiKey, rate, headersJson] = process.argv.slice(2);
if (!url || !readPath || !apiKey || !rate || !process.send) throw new Error('bench/partner-reader.ts is started by a benchmark');
const readsPerS = Number(rate);
const headers: Record<string, string> = headersJson ? (JSON.parse(headersJson) as Record<string, string>) : { authorization: `Bearer ${apiKey}` };

const http = new HttpPool(url, { connections: 32, pipelining: 1 });
const latencies: number[] = [];
const starts: number[] = [];
const ids: number[] = [];
const errors: string[] = [];
const inFlight = new Set<Promise<void>>();
let running = true;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function read(id: number): Promise<void> {
  const t0 = performance.now();
  try {
    const res = await http.request({ method: 'GET', path: readPath!, headers: { 'x-bench-read': String(id), ...headers } });
    await res.body.text();
    if (res.statusCode !== 200) errors.push(`read HTTP ${res.statusCode}`);
  } catch (err) {
    errors.push(`read ${(err as Error).message}`);
  }
  latencies.push(performance.now() - t0);
  starts.push(performance.timeOrigin + t0);
  ids.push(id);
}

const taken = () => ({ latencies: latencies.splice(0), errors: errors.splice(0), starts: starts.splice(0), ids: ids.splice(0) });
process.on('message', (m) => {
  if (m === 'stop') running = false;
  if (m === 'take') process.send!(taken());
});
process.send('ready');
const start = performance.now();
for (let n = 0; running; n++) {
  const wait = start + (n * 1000) / readsPerS - performance.now();
  if (wait > 0) await sleep(wait);
  if (!running) break;
  const p = read(n);
  inFlight.add(p);
  void p.finally(() => inFlight.delete(p));
}
await Promise.all([...inFlight]);
await http.close();
process.send(taken(), () => process.exit(0));
