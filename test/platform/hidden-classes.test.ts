import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';
import type { HiddenClassesServer } from '../fixtures/hidden-classes/serve.js';

/**
 * No hot request makes V8 hidden classes of its own. An object that gets a
 * hidden class nobody shares (a spread given keys its source lacks, an
 * object built from `{}` once `{}`'s transitions are full, an object keyed
 * by an id) costs a map in the old generation, outlives the next young
 * collection and is promoted (docs/performance.md, "A hidden class full of
 * transitions"). The app runs in a child with `--log-maps`; each route is
 * sent 30 requests to warm up, then 60 between two marks, and every map V8
 * made between the marks is counted. Normalisations are not: an object
 * turned into a dictionary gets a map from V8's shared cache of them, not
 * one of its own (through tsx, esbuild's keepNames renames a few functions
 * per request, which V8 logs as normalisations, cached or, after a full
 * collection has emptied the cache, not).
 */
const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/hidden-classes/serve.ts');
const DISPATCH = path.resolve(import.meta.dirname, '../fixtures/hidden-classes/dispatch.ts');
const WARM = 30;
const MEASURED = 60;
/** A WebM-looking segment: the EBML magic, then a Tracks element's id. */
const SEGMENT = Buffer.alloc(2048, 7);
Buffer.from([0x1a, 0x45, 0xdf, 0xa3]).copy(SEGMENT);
Buffer.from([0x16, 0x54, 0xae, 0x6b]).copy(SEGMENT, 8);

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let tmp: string;
const children: ChildProcess[] = [];
const made = new Map<string, string[]>();

/** A fixture in a child with `--log-maps`, its log in `tmp`; and a mark in that log, sent as `{ mark }`. */
async function startLogged<T>(fixture: string, name: string) {
  const log = path.join(tmp, `${name}.log`);
  const child = fork(fixture, [db.url], {
    execArgv: ['--expose-gc', '--log-maps', '--no-log-maps-details', `--logfile=${log}`, '--no-logfile-per-isolate', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  const [ready] = (await once(child, 'message')) as [T];
  const ask = async (m: object): Promise<unknown> => {
    const reply = once(child, 'message');
    child.send(m);
    return (await reply)[0];
  };
  const mark = (label: string) => ask({ mark: label });
  const stop = async () => {
    child.send('stop');
    await once(child, 'exit');
    await readMarks(log);
  };
  return { ready, ask, mark, stop };
}

/** Every map V8 logged between a `__maps_start_<label>` and its `__maps_end_<label>`, normalisations aside, into `made`. */
async function readMarks(log: string): Promise<void> {
  // A map event: map,<event>,<time>,<from>,<to>,<pc>,<line>,<column>,<reason>,<name>
  let current: string[] | null = null;
  for await (const line of createInterface({ input: fs.createReadStream(log) })) {
    if (!line.startsWith('map,')) continue;
    const f = line.split(',');
    const name = f.slice(9).join(',');
    if (name.startsWith('__maps_start_')) {
      current = [];
      made.set(name.slice('__maps_start_'.length), current);
    } else if (name.startsWith('__maps_end_')) {
      current = null;
    } else if (current && !f[1]!.startsWith('Normalize')) {
      current.push(`${f[1]} ${f[8]} ${name}`);
    }
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-maps-'));
  const server = await startLogged<HiddenClassesServer>(FIXTURE, 'server');
  const ready = server.ready;
  const send = async (label: string, go: (n: number) => Promise<{ statusCode: number; body: { text(): Promise<string> } }>, status: number) => {
    for (let n = 0; n < WARM + MEASURED; n++) {
      if (n === WARM) await server.mark(`__maps_start_${label}`);
      const res = await go(n);
      const text = await res.body.text();
      if (res.statusCode !== status) throw new Error(`${label} answered ${res.statusCode}: ${text}`);
    }
    await server.mark(`__maps_end_${label}`);
  };
  const partner = { authorization: `Bearer ${ready.apiKey}` };
  const student = ready.student;
  await send('partner read', () => request(`${ready.url}/api/partner/v1/assignments/${ready.readId}`, { headers: partner }), 200);
  await send('partner listing', () => request(`${ready.url}/api/partner/v1/tests?limit=20`, { headers: partner }), 200);
  await send('partner create', (n) =>
    request(`${ready.url}/api/partner/v1/assignments`, {
      method: 'POST',
      headers: { ...partner, 'content-type': 'application/json' },
      body: JSON.stringify({ externalUserId: `maps-${n}`, testId: ready.testId, user: { email: `maps-${n}@maps.example` }, callbackUrl: 'https://maps.example/back' }),
    }), 201);
  await send('student page', () => request(`${ready.url}/a/${student.assignmentId}`, { headers: { cookie: student.cookie } }), 200);
  await send('student autosave', (n) =>
    request(`${ready.url}/a/${student.assignmentId}/answers`, {
      method: 'POST',
      headers: { cookie: student.cookie, 'x-csrf-token': student.csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ answers: [{ questionId: student.questionId, value: `five ${n}`, version: n + 1 }] }),
    }), 200);
  // A proctored candidate's page beats every few seconds and sends a recorded segment every few more: the
  // requests go round the seated students, each session's within its limit.
  const seatOf = (n: number) => ready.proctored[n % ready.proctored.length]!;
  await send('proctoring heartbeat', (n) =>
    request(`${ready.url}/a/${seatOf(n).assignmentId}/proctoring/heartbeat`, {
      method: 'POST',
      headers: { cookie: seatOf(n).cookie, 'x-csrf-token': seatOf(n).csrf, 'content-type': 'application/json' },
      body: JSON.stringify({ signals: [], cameraActive: true, fullscreen: true }),
    }), 200);
  await send('proctoring segment', (n) =>
    request(`${ready.url}/a/${seatOf(n).assignmentId}/proctoring/segments/${Math.floor(n / ready.proctored.length)}`, {
      method: 'POST',
      headers: {
        cookie: seatOf(n).cookie,
        'x-csrf-token': seatOf(n).csrf,
        'content-type': 'video/webm;codecs=vp8',
        'x-segment-started-at': new Date().toISOString(),
        'x-segment-duration-ms': '10000',
      },
      body: SEGMENT,
    }), 201);
  await server.stop();

  // The worker's webhook dispatcher: events appended one per transaction, each claimed, signed, sent and recorded.
  const dispatcher = await startLogged<{ ready: true }>(DISPATCH, 'dispatcher');
  const deliver = async (n: number) => {
    const answer = (await dispatcher.ask({ events: n })) as { delivered?: number; error?: string };
    if (answer.error) throw new Error(`webhook delivery: ${answer.error}`);
  };
  await deliver(WARM);
  await dispatcher.mark('__maps_start_webhook delivery');
  await deliver(MEASURED);
  await dispatcher.mark('__maps_end_webhook delivery');
  await dispatcher.stop();
}, 240_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill();
  await db?.drop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('hidden classes made per request or delivery', () => {
  it.each(['partner read', 'partner listing', 'partner create', 'student page', 'student autosave', 'proctoring heartbeat', 'proctoring segment', 'webhook delivery'])('%s: none once warm', (label) => {
    const events = made.get(label);
    expect(events, `no marks for ${label} in the log`).toBeDefined();
    // One-offs still come after the warm-up, up to a dozen seen: a pool connection's first use of a named
    // statement (a key of that connection's statements), a timer's first run (the heartbeats' flush), a
    // transition made again after a full collection cleared it. A hidden class per request makes 60 or more.
    expect(events!.length, events!.slice(0, 20).join('\n')).toBeLessThanOrEqual(MEASURED / 3);
  });
});
