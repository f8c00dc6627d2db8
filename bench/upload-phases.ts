import type { UploadTrace } from './upload-trace.js';

/**
 * The upload bench's breakdown (bench/upload-load.ts): each round cut into
 * its start (first request arrived → every upload checked and streaming), its
 * middle (→ the first file stored whole) and its end (→ the last answer
 * sent); then, per phase, the partner reads that began in it, how many were
 * slow, the event loop's delay and the waits for a pool connection; and each
 * upload's steps. All times are epoch milliseconds.
 */
export interface Round {
  from: number;
  to: number;
}
export interface Read {
  start: number;
  latency: number;
  /** The reader's number for it, as the server's trace names it. */
  id: number;
}

const pick = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const ms = (x: number) => (Number.isNaN(x) ? '–' : x >= 100 ? x.toFixed(0) : x.toFixed(1));

type Phase = 'start' | 'middle' | 'end' | 'between';
const PHASES: Phase[] = ['start', 'middle', 'end', 'between'];

/** The phase windows of each round, from the uploads' own phase marks. */
function windows(trace: UploadTrace, rounds: Round[]): Array<{ phase: Phase; from: number; to: number }> {
  const out: Array<{ phase: Phase; from: number; to: number }> = [];
  let previousEnd = -Infinity;
  for (const r of rounds) {
    const inRound = trace.phases.filter(([, , at]) => at >= r.from && at <= r.to + 1);
    const first = (p: string) => Math.min(...inRound.filter(([, x]) => x === p).map(([, , at]) => at));
    const last = (p: string) => Math.max(...inRound.filter(([, x]) => x === p).map(([, , at]) => at));
    const s0 = Math.min(r.from, first('arrive'));
    const s1 = last('checked');
    const s2 = Math.max(s1, first('received'));
    const s3 = Math.max(s2, last('finish'), r.to);
    if (previousEnd > -Infinity) out.push({ phase: 'between', from: previousEnd, to: s0 });
    out.push({ phase: 'start', from: s0, to: s1 }, { phase: 'middle', from: s1, to: s2 }, { phase: 'end', from: s2, to: s3 });
    previousEnd = s3;
  }
  return out;
}

export function uploadPhaseReport(trace: UploadTrace, base: UploadTrace, reads: Read[], rounds: Round[], slowMs: number): string {
  const ws = windows(trace, rounds);
  const phaseOf = (at: number): Phase | null => ws.find((w) => at >= w.from && at < w.to)?.phase ?? null;
  const lines: string[] = [];
  const baseLoop = base.loop.map(([, d]) => d);
  lines.push(`Where the partner reads were slow (slow: over ${ms(slowMs)} ms, 1.5 × the unloaded p99)`);
  lines.push(
    `  ${'phase'.padEnd(10)} ${'time'.padStart(7)} ${'reads'.padStart(6)} ${'slow'.padStart(5)} ${'read p99'.padStart(9)}  ${'loop delay p99 / max'.padStart(20)}  ${'loop thread: runs / waits for a CPU'.padStart(35)}  ${'GC / s, longest'.padStart(16)}  ${'pool wait p99 / max, by whom (max)'}`,
  );
  /** The share of `within`'s wall time the loop's thread ran, and waited runnable for a CPU (schedstat deltas). */
  const sched = (t: UploadTrace, within: (at: number) => boolean) => {
    let wall = 0;
    let ran = 0;
    let waited = 0;
    for (let i = 1; i < t.sched.length; i++) {
      const [a0, r0, w0] = t.sched[i - 1]!;
      const [a1, r1, w1] = t.sched[i]!;
      if (!within((a0 + a1) / 2)) continue;
      wall += a1 - a0;
      ran += r1 - r0;
      waited += w1 - w0;
    }
    return wall > 0 ? `${((100 * ran) / wall).toFixed(0)}% / ${((100 * waited) / wall).toFixed(0)}%` : '–';
  };
  /** Garbage collection per second of `within`'s wall time, and the longest pause. */
  const gcOf = (t: UploadTrace, within: (at: number) => boolean, wall: number) => {
    const pauses = t.gc.filter(([at]) => within(at)).map(([, d]) => d);
    return wall > 0 ? `${ms((1000 * pauses.reduce((x, y) => x + y, 0)) / wall)} ms, ${ms(Math.max(0, ...pauses))}` : '–';
  };
  const row = (name: string, time: number | null, rs: Read[], loop: number[], pool: Array<[number, number, string, number]>, cpu: string, gc: string) => {
    const by = new Map<string, number>();
    for (const [, w, who] of pool) by.set(who, Math.max(by.get(who) ?? 0, w));
    const whom = [...by].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${ms(v)}`).join(', ');
    const waits = pool.map(([, w]) => w);
    lines.push(
      `  ${name.padEnd(10)} ${(time === null ? '–' : `${(time / 1000).toFixed(1)} s`).padStart(7)} ${String(rs.length).padStart(6)} ${String(rs.filter((r) => r.latency > slowMs).length).padStart(5)} ${`${ms(pick(rs.map((r) => r.latency), 99))} ms`.padStart(9)}  ${`${ms(pick(loop, 99))} / ${ms(Math.max(0, ...loop))} ms`.padStart(20)}  ${cpu.padStart(35)}  ${gc.padStart(16)}  ${waits.length ? `${ms(pick(waits, 99))} / ${ms(Math.max(...waits))} ms (${whom}), up to ${Math.max(...pool.map(([, , , q]) => q))} waiting` : 'none'}`,
    );
  };
  const baseWall = base.loop.length > 1 ? base.loop[base.loop.length - 1]![0] - base.loop[0]![0] : 0;
  row('unloaded', null, [], baseLoop, base.pool, sched(base, () => true), gcOf(base, () => true, baseWall));
  for (const p of PHASES) {
    const mine = ws.filter((w) => w.phase === p);
    if (mine.length === 0) continue;
    const within = (at: number) => mine.some((w) => at >= w.from && at < w.to);
    const wall = mine.reduce((s, w) => s + (w.to - w.from), 0);
    row(
      p,
      wall,
      reads.filter((r) => phaseOf(r.start) === p),
      trace.loop.filter(([at]) => within(at)).map(([, d]) => d),
      trace.pool.filter(([at]) => within(at)),
      sched(trace, within),
      gcOf(trace, within, wall),
    );
  }
  const outside = reads.filter((r) => phaseOf(r.start) === null);
  if (outside.length) lines.push(`  (${outside.length} reads before the first round or after the last, ${outside.filter((r) => r.latency > slowMs).length} slow)`);

  // Where a slow read's time went: before the server saw its request (the loop busy, or the reader's process or the
  // kernel waiting for a CPU), in the server (arrival to the response sent), after (back to the reader).
  const served = new Map(trace.reads.map(([arrivedAt, answeredAt, id]) => [id, { arrivedAt, answeredAt }]));
  lines.push('Where the slow reads’ time went (medians: before the server had the request / in the server / after it answered)');
  for (const p of PHASES) {
    const slow = reads.filter((r) => phaseOf(r.start) === p && r.latency > slowMs && served.has(r.id));
    if (slow.length === 0) continue;
    const split = (f: (r: Read, s: { arrivedAt: number; answeredAt: number }) => number) => ms(pick(slow.map((r) => f(r, served.get(r.id)!)), 50));
    lines.push(
      `  ${p.padEnd(10)} ${String(slow.length).padStart(4)} slow reads: ${split((r, s) => s.arrivedAt - r.start)} / ${split((_r, s) => s.answeredAt - s.arrivedAt)} / ${split((r, s) => r.start + r.latency - s.answeredAt)} ms`,
    );
  }

  // Each upload's steps, from its own marks (an upload is one assignment in one round).
  const steps: Array<[string, string, string]> = [
    ['arrive', 'handler', 'hooks: rate limit, session (before the body)'],
    ['handler', 'checked', 'attempt, test version, delivery'],
    ['checked', 'received', 'the body, stored and renamed'],
    ['received', 'hashed', 'sniffed, hash digest'],
    ['hashed', 'recording', 'waiting its turn to record'],
    ['recording', 'committed', 'transaction (pool wait included)'],
    ['committed', 'done', 'replaced file deleted'],
    ['done', 'finish', 'answer sent'],
  ];
  const spans = new Map<string, number[]>();
  for (const r of rounds) {
    const byUpload = new Map<string, Map<string, number>>();
    for (const [id, p, at] of trace.phases) {
      if (at < r.from || at > r.to + 1) continue;
      if (!byUpload.has(id)) byUpload.set(id, new Map());
      byUpload.get(id)!.set(p, at);
    }
    for (const marks of byUpload.values()) {
      for (const [a, b] of steps) {
        const ta = marks.get(a);
        const tb = marks.get(b);
        if (ta !== undefined && tb !== undefined) spans.set(`${a}→${b}`, [...(spans.get(`${a}→${b}`) ?? []), tb - ta]);
      }
    }
  }
  lines.push('Each upload’s steps (ms: p50 / p99 / max over every upload)');
  for (const [a, b, what] of steps) {
    const xs = spans.get(`${a}→${b}`) ?? [];
    lines.push(`  ${`${a} → ${b}`.padEnd(22)} ${`${ms(pick(xs, 50))} / ${ms(pick(xs, 99))} / ${ms(Math.max(...xs))}`.padStart(22)}   ${what}`);
  }
  const slowest = [...reads].sort((a, b) => b.latency - a.latency).slice(0, 8);
  const at = (t: number) => {
    const w = ws.find((x) => t >= x.from && t < x.to);
    return w ? `${w.phase} +${ms(t - w.from)} ms` : 'outside';
  };
  lines.push(`Slowest reads: ${slowest.map((r) => `${ms(r.latency)} ms (${at(r.start)})`).join(', ')}`);
  return lines.join('\n');
}
