import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * A real HAProxy (the Debian package) in front of the API processes, as an
 * operator would configure it: round-robin, no stickiness, readiness checked
 * on `/readyz` every second (3 failures mark a server down, 2 successes up),
 * the client address passed on in X-Forwarded-For, long-lived streams (Server-
 * Sent Events) kept open by `timeout tunnel`. Runs in the foreground (`-db`)
 * as a child of the bench; its stats socket answers `show stat`.
 */
export interface HaproxyServer {
  name: string;
  port: number;
}

export interface Haproxy {
  url: string;
  child: ChildProcess;
  /** One row per backend server: its state and how many times a check marked it down. */
  stats(): Promise<Array<{ name: string; status: string; chkdown: number; downtimeS: number }>>;
  /** Bytes HAProxy received from clients for the api backend (its `bin`), every request since it started. */
  bytesIn(): Promise<number>;
  stop(): Promise<void>;
}

export async function startHaproxy(dir: string, port: number, servers: HaproxyServer[]): Promise<Haproxy> {
  const socket = path.join(dir, 'haproxy.sock');
  const cfg = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 9500', // two descriptors a connection: within this machine's limit of 20,000
      `  stats socket ${socket} mode 600 level admin`,
      'defaults',
      '  mode http',
      '  option http-keep-alive',
      '  option forwardfor',
      '  timeout connect 5s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  timeout http-keep-alive 60s',
      '  timeout tunnel 1h',
      'frontend assay',
      `  bind 127.0.0.1:${port}`,
      '  maxconn 9500',
      '  default_backend api',
      'backend api',
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  http-check expect status 200',
      '  default-server inter 1s fall 3 rise 2',
      ...servers.map((s) => `  server ${s.name} 127.0.0.1:${s.port} check`),
      '',
    ].join('\n'),
  );
  const child = spawn('haproxy', ['-f', cfg, '-db'], { stdio: ['ignore', 'ignore', fs.openSync(path.join(dir, 'haproxy.log'), 'a')] });
  for (let i = 0; i < 100 && !fs.existsSync(socket); i++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}): ${fs.readFileSync(path.join(dir, 'haproxy.log'), 'utf8').trim()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!fs.existsSync(socket)) throw new Error('haproxy did not open its stats socket');

  const ask = (command: string) =>
    new Promise<string>((resolve, reject) => {
      const c = net.connect(socket);
      let out = '';
      c.on('data', (d) => (out += d.toString()));
      c.on('end', () => resolve(out));
      c.on('error', reject);
      c.end(`${command}\n`);
    });

  return {
    url: `http://127.0.0.1:${port}`,
    child,
    async stats() {
      const lines = (await ask('show stat')).trim().split('\n');
      const header = lines[0]!.replace(/^# /, '').split(',');
      const col = (name: string) => header.indexOf(name);
      return lines
        .slice(1)
        .map((l) => l.split(','))
        .filter((f) => f[col('pxname')] === 'api' && f[col('svname')] !== 'BACKEND')
        .map((f) => ({ name: f[col('svname')]!, status: f[col('status')]!, chkdown: Number(f[col('chkdown')]), downtimeS: Number(f[col('downtime')]) }));
    },
    async bytesIn() {
      const lines = (await ask('show stat')).trim().split('\n');
      const header = lines[0]!.replace(/^# /, '').split(',');
      const col = (name: string) => header.indexOf(name);
      const backend = lines.slice(1).map((l) => l.split(',')).find((f) => f[col('pxname')] === 'api' && f[col('svname')] === 'BACKEND');
      return Number(backend?.[col('bin')] ?? NaN);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
