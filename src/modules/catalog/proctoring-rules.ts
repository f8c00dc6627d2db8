import type { Static } from '@sinclair/typebox';
import type { ProctoringRulesView } from './schemas.js';

/**
 * A proctored test's settings as the catalog stores them: its mode and its
 * severity thresholds (docs/proctoring.md), the defaults and the overrides.
 * What the thresholds mean for a flag is proctoring's (proctoring/rules.ts).
 */
/** A test's thresholds, every one resolved: the type of the catalog's ProctoringRulesView. */
export type ProctoringRules = Static<typeof ProctoringRulesView>;

export const DEFAULT_RULES: Readonly<ProctoringRules> = Object.freeze({
  noFaceSeconds: 10,
  multipleFacesSeconds: 3,
  leftTestSeconds: 10,
  leftTestCount: 3,
  heartbeatTimeoutSeconds: 60,
});

/** The test's thresholds: its overrides over the defaults. */
export function resolveRules(overrides: Partial<ProctoringRules> | null | undefined): ProctoringRules {
  const out = { ...DEFAULT_RULES };
  for (const key of Object.keys(DEFAULT_RULES) as Array<keyof ProctoringRules>) {
    const v = overrides?.[key];
    if (typeof v === 'number' && Number.isFinite(v)) out[key] = v;
  }
  return out;
}

