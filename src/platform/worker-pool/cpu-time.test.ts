import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cpuMsOf, ownThreadId, processStatPath, threadStatPath } from './cpu-time.js';

describe('cpuMsOf', () => {
  it('reads utime + stime (fields 14 and 15, in ticks of 10 ms), whatever the command name holds', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-stat-'));
    const file = path.join(dir, 'stat');
    // A name with spaces and parentheses of its own, as a thread may be given.
    fs.writeFileSync(file, '4242 (a) (b c)) S 1 4242 4242 0 -1 4194560 1000 0 0 0 123 45 0 0 20 0 9 0 100 0 0\n');
    expect(cpuMsOf(file)).toBe((123 + 45) * 10);
    fs.writeFileSync(file, '4242 (x) S 1 4242');
    expect(cpuMsOf(file)).toBeNull();
    fs.rmSync(dir, { recursive: true });
    expect(cpuMsOf(path.join(dir, 'stat'))).toBeNull();
  });

  it.skipIf(process.platform !== 'linux')("reads a thread's and a process's own time from /proc, which grows as they run", () => {
    const tid = ownThreadId()!;
    expect(tid).toBeGreaterThan(0);
    const before = cpuMsOf(threadStatPath(tid))!;
    // Run until /proc counts 50 ms more (on a busy machine that takes longer on the wall clock), for at most 5 s.
    const until = performance.now() + 5_000;
    while (cpuMsOf(threadStatPath(tid))! - before < 50 && performance.now() < until) {
      // run
    }
    expect(cpuMsOf(threadStatPath(tid))! - before).toBeGreaterThanOrEqual(50);
    expect(cpuMsOf(processStatPath(process.pid))!).toBeGreaterThanOrEqual(cpuMsOf(threadStatPath(tid))!);
  });
});
