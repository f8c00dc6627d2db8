import { spawn, type ChildProcess } from 'node:child_process';
import { ADMIN_TOKEN } from './harness.js';

/**
 * `npm run worker` as a real process (`npx tsx src/worker-main.ts`) on a
 * test database, with the harness's secrets so it can open endpoint secrets.
 * Started in its own process group so that SIGKILL reaches npx, tsx and the
 * node process under them at once, as when a machine dies.
 */
export const HARNESS_SECRET = 'test-secret-0123456789abcdef0123456789abcdef';

export interface WorkerProcess {
  child: ChildProcess;
  output: string[];
  kill(signal: NodeJS.Signals): void;
  exited: Promise<number | null>;
}

export async function spawnWorker(databaseUrl: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const child = spawn('npx', ['tsx', 'src/worker-main.ts'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: databaseUrl,
      ASSAY_ADMIN_TOKEN: ADMIN_TOKEN,
      ASSAY_SECRET: HARNESS_SECRET,
      ASSAY_ALLOW_INSECURE_URLS: '1',
      ASSAY_WEBHOOK_RETRY_SCHEDULE: '0,100ms,200ms,300ms,400ms,500ms,1s,1s',
      ASSAY_WEBHOOK_TIMEOUT_MS: '1000',
      ASSAY_WEBHOOK_LEASE_MS: '2000',
      // info: the helper waits for the 'worker started' line.
      LOG_LEVEL: 'info',
      ...env,
    },
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      if (output.join('').includes('worker started')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => output.push(c.toString()));
    void exited.then((code) => reject(new Error(`worker exited (${code}) before starting:\n${output.join('')}`)));
    setTimeout(() => reject(new Error(`worker did not start in 30 s:\n${output.join('')}`)), 30_000).unref();
  });
  await started;
  return {
    child,
    output,
    exited,
    kill(signal) {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        /* already gone */
      }
    },
  };
}
