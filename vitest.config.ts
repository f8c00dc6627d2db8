import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Three projects, each runnable alone (`npm run test:unit`, `test:integration`, `test:browser`);
 * `vitest run` runs all three.
 *
 * - unit: the tests beside the code (src/**\/*.test.ts), the documentation check and the module rules (test/architecture). No PostgreSQL,
 *   no browser, no child process, no server: no global setup runs, so it works with no database at all.
 * - integration: test/<module>/**, each file on its own database cloned from a migrated template
 *   (test/helpers/global-setup.ts); child processes and real ports allowed.
 * - browser: test/browser/**, Chromium through playwright-core, on the same kind of database.
 */
/**
 * Test files at once: Vitest's default (one fewer than the cores; one at a time on a 2-core machine) unless
 * ASSAY_TEST_WORKERS says more. Three at once on two cores cut a CI-like run from 56 to 36–43 minutes, but both
 * such runs ended with Vitest's own 60-second RPC timeout ("Timeout calling onTaskUpdate"), which fails the run;
 * until that is understood, CI runs one file at a time (docs/development.md).
 */
const WORKERS = Number(process.env.ASSAY_TEST_WORKERS) || undefined;
const DATABASE_SETUP = ['test/helpers/global-setup.ts'];
/** Checks of the repository itself (docs, install scripts, module rules): files only, so they run with the units. */
// The Citus plan's check (test/architecture/citus-plan.test.ts) reads a migrated database, so it runs with the integration tests.
const REPOSITORY_CHECKS = ['test/docs.test.ts', 'test/docs-examples.test.ts', 'test/docs-first-run.test.ts', 'test/install-scripts.test.ts', 'test/architecture/module-rules.test.ts'];
/**
 * Integration and browser files share one module graph per worker (poolOptions.forks.isolate: false): each file
 * still gets its own database, service and Chromium, but the service's modules are loaded once per worker instead
 * of once per file, which had cost about 2 s a file (docs/development.md). These files read or replace a module's
 * own state (the process's metrics registry, the job kinds defined so far, the fan-out the outbox is connected to,
 * a vi.mock of ids) and run in a project that resets the modules per file.
 */
const ISOLATED = [
  'test/platform/metrics.test.ts',
  'test/platform/job-definitions.test.ts',
  'test/lifecycle/event-outbox.test.ts',
  'test/assignments/answer-bytes.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Whether the pool starts a fresh process per file is the root's setting; each project then says whether its
    // files share the worker's modules (below). Projects are never mixed in one process.
    poolOptions: { forks: { isolate: false } },
    ...(WORKERS ? { maxWorkers: WORKERS, minWorkers: 1 } : {}),
    // Each file gets its own database cloned from a migrated template, so files run in parallel safely.
    fileParallelism: true,
    // project-times adds each project's duration after the summary (read by .ci/run).
    reporters: ['default', './test/helpers/project-times.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', ...REPOSITORY_CHECKS],
          poolOptions: { forks: { isolate: true } },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/browser/**', ...REPOSITORY_CHECKS, ...ISOLATED],
          globalSetup: DATABASE_SETUP,
          poolOptions: { forks: { isolate: false } },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration-isolated',
          include: ISOLATED,
          globalSetup: DATABASE_SETUP,
          poolOptions: { forks: { isolate: true } },
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: DATABASE_SETUP,
          poolOptions: { forks: { isolate: false } },
        },
      },
    ],
  },
});
