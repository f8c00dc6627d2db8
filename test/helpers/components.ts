/**
 * The real components a deployment runs beside Assay (PostgreSQL standbys,
 * PgBouncer, HAProxy, an S3 server), which the tests start themselves. Where
 * one is missing on a developer's machine its tests are skipped with a loud
 * notice; under CI (CI=true, set by .ci/run, which installs them) a missing
 * component is a failure, so CI can never pass by skipping.
 */
export const componentsRequired = process.env.CI === 'true' || process.env.ASSAY_REQUIRE_COMPONENTS === '1';

/**
 * True when the tests of `component` can run. When `available` is false, it
 * prints the notice once and returns false (the caller skips), or throws under
 * CI, which fails the test file.
 */
export function componentAvailable(component: string, available: boolean, install: string): boolean {
  if (available) return true;
  const message = `${component} is not installed, so its tests cannot run (install: ${install})`;
  if (componentsRequired) throw new Error(`${message}; CI requires it`);
  const line = '!'.repeat(78);
  console.warn(`\n${line}\n!! TESTS SKIPPED: ${message}.\n!! Set ASSAY_REQUIRE_COMPONENTS=1 to make this a failure.\n${line}\n`);
  return false;
}
