/**
 * Agreement between the model and reviewers on the items both marked, pure.
 *
 * - exactAgreement: the share of items where the reviewer's points equal the
 *   model's (to 4 decimals, the precision marks are stored with).
 * - meanAbsoluteDifference: the mean of |reviewer − model| in points.
 * - quadraticWeightedKappa: Cohen's kappa with quadratic weights over integer
 *   categories 0..K, K = the question's points rounded: both marks are
 *   rounded to the nearest integer (clamped into 0..K) first. 1 is perfect
 *   agreement, 0 is what chance gives, below 0 worse than chance. Null when
 *   it is undefined: no pair, or every mark of both sides in one category
 *   (no variation to agree on).
 */
export interface MarkPair {
  model: number;
  reviewer: number;
}

export interface AgreementFigures {
  n: number;
  exactAgreement: number | null;
  meanAbsoluteDifference: number | null;
  quadraticWeightedKappa: number | null;
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

export function quadraticWeightedKappa(pairs: readonly MarkPair[], maxPoints: number): number | null {
  const k = Math.max(1, Math.round(maxPoints));
  const categories = k + 1;
  const n = pairs.length;
  if (n === 0) return null;
  const cat = (x: number) => Math.min(k, Math.max(0, Math.round(x)));
  const observed = Array.from({ length: categories }, () => new Array<number>(categories).fill(0));
  const modelHist = new Array<number>(categories).fill(0);
  const reviewerHist = new Array<number>(categories).fill(0);
  for (const p of pairs) {
    const i = cat(p.model);
    const j = cat(p.reviewer);
    observed[i]![j]!++;
    modelHist[i]!++;
    reviewerHist[j]!++;
  }
  let weightedObserved = 0;
  let weightedExpected = 0;
  for (let i = 0; i < categories; i++) {
    for (let j = 0; j < categories; j++) {
      const w = ((i - j) * (i - j)) / ((categories - 1) * (categories - 1));
      weightedObserved += w * observed[i]![j]!;
      weightedExpected += (w * modelHist[i]! * reviewerHist[j]!) / n;
    }
  }
  if (weightedExpected === 0) return null;
  return 1 - weightedObserved / weightedExpected;
}

export function agreementFigures(pairs: readonly MarkPair[], maxPoints: number): AgreementFigures {
  const n = pairs.length;
  if (n === 0) return { n: 0, exactAgreement: null, meanAbsoluteDifference: null, quadraticWeightedKappa: null };
  const exact = pairs.filter((p) => round4(p.model) === round4(p.reviewer)).length;
  const mad = pairs.reduce((s, p) => s + Math.abs(p.model - p.reviewer), 0) / n;
  const kappa = quadraticWeightedKappa(pairs, maxPoints);
  return {
    n,
    exactAgreement: round4(exact / n),
    meanAbsoluteDifference: round4(mad),
    quadraticWeightedKappa: kappa === null ? null : round4(kappa),
  };
}
