import type { Reporter, TestModule } from 'vitest/node';

/**
 * A reporter that adds one line per project after vitest's own summary:
 *
 *    Project  unit: 16 files, 404 passed, 0 failed, 0 skipped in 2.1 s (files' own time 3.4 s)
 *
 * The projects share one pool of workers, so "in" is the wall time from the project's first file starting
 * to its last file ending (the global setup before them excluded), and "files' own time" the sum of each
 * file's import and run time. .ci/run repeats these lines in its closing summary.
 */
export default class ProjectTimes implements Reporter {
  private projects = new Map<string, { first: number; last: number; files: number; own: number; passed: number; failed: number; skipped: number }>();

  // Watch mode reruns: each run's lines count that run only.
  onTestRunStart(): void {
    this.projects.clear();
  }

  private project(module: TestModule) {
    const now = performance.now();
    let p = this.projects.get(module.project.name);
    if (!p) this.projects.set(module.project.name, (p = { first: now, last: now, files: 0, own: 0, passed: 0, failed: 0, skipped: 0 }));
    return p;
  }

  onTestModuleStart(module: TestModule): void {
    const p = this.project(module);
    p.first = Math.min(p.first, performance.now());
  }

  onTestModuleEnd(module: TestModule): void {
    // A file that fails before it starts (a syntax error, say) still ends, and still counts.
    const p = this.project(module);
    p.last = Math.max(p.last, performance.now());
    p.files++;
    const d = module.diagnostic();
    p.own += d.collectDuration + d.duration;
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') p.passed++;
      else if (state === 'failed') p.failed++;
      else p.skipped++;
    }
  }

  // onFinished, not onTestRunEnd: the default reporter prints its summary in onFinished, and these lines go after it.
  onFinished(): void {
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const order = ['unit', 'integration', 'integration-isolated', 'browser'];
    const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
    const lines = [...this.projects].sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b)).map(
      ([name, p]) =>
        `   Project  ${name}: ${p.files} files, ${p.passed} passed, ${p.failed} failed, ${p.skipped} skipped in ${s(p.last - p.first)} (files' own time ${s(p.own)})`,
    );
    if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n\n`);
  }
}
