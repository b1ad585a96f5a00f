/**
 * Upper bound of the share of rows missing, at 95% confidence, after finding `missing` of `compared`
 * sampled rows missing: the rule of three (3/n) when none was found, else the one-sided Clopper-Pearson
 * bound, the p at which finding `missing` or fewer would have a 5% chance. Null when nothing was compared.
 */
export function missingBound(missing: number, compared: number): number | null {
  if (compared <= 0) return null;
  if (missing === 0) return Math.min(1, 3 / compared);
  if (missing >= compared) return 1;
  let low = missing / compared;
  let high = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2;
    if (binomialCdf(missing, compared, mid) > 0.05) low = mid;
    else high = mid;
  }
  return high;
}

/** P(X <= k) for X ~ Binomial(n, p), summed in log space so large n does not underflow. */
function binomialCdf(k: number, n: number, p: number): number {
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  let logTerm = n * logQ;
  let sum = Math.exp(logTerm);
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log((n - i + 1) / i) + logP - logQ;
    sum += Math.exp(logTerm);
  }
  return Math.min(1, sum);
}
