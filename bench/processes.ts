import fs from 'node:fs';
import net from 'node:net';

/** What the benches that run the service as separate processes share: a port, readiness, CPU time. */

/** A TCP port free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Waits until the API process at `url` answers /readyz (up to two minutes). */
export async function untilReady(url: string): Promise<void> {
  for (let i = 0; i < 480; i++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not become ready`);
}

/** CPU time (user + system) a process has used so far, in µs, from /proc (Linux; clock ticks taken as 100 a second); null once it is gone. */
export function processCpuUs(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return null;
  }
}
