import { expect } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { seedScoredAttempts, type SeedAttempt } from '../../scripts/seed-results.js';
import type { Harness, Tenant } from './harness.js';
import { createPublishedTest } from './student.js';

/** A test created through the operator API and published to the tenant, with its version's id for seeding. */
export async function publishedVersion(h: Harness, tenant: Tenant, input: TestInput): Promise<{ testId: string; testVersionId: string }> {
  const testId = await createPublishedTest(h, tenant, input);
  const { rows } = await h.pool.query<{ id: string }>('SELECT id FROM test_versions WHERE test_id = $1 ORDER BY version DESC LIMIT 1', [testId]);
  return { testId, testVersionId: rows[0]!.id };
}

/** Completed, finally scored attempts of the test for the tenant (live unless said otherwise). */
export function seedAttempts(
  h: Harness,
  tenant: Tenant,
  test: { testId: string; testVersionId: string },
  maxPoints: number,
  attempts: SeedAttempt[],
  opts: { livemode?: boolean; passPercent?: number | null; rollUp?: boolean } = {},
): Promise<string[]> {
  return seedScoredAttempts(
    h.pool,
    { institutionId: tenant.institutionId, ...test, livemode: opts.livemode ?? true, maxPoints, passPercent: opts.passPercent ?? 50, rollUp: opts.rollUp ?? true },
    attempts,
  );
}

/** Asserts two numbers (or nulls) agree to `tolerance`, naming the figure on failure. */
export function expectClose(actual: number | null, expected: number | null, what: string, tolerance = 1e-9): void {
  if (expected === null) return void expect(actual, what).toBeNull();
  expect(actual, what).not.toBeNull();
  expect(Math.abs(actual! - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(tolerance);
}
