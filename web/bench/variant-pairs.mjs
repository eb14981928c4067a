// The variant ratios of the target lines (norm-candidates.mjs's normTargets: rmsNorm, mean/rstd,
// the fused residual, float16 and bfloat16 against the plain call), measured as the same-run A/B
// measures builds (ab/paired.mjs's timePaired): per round, 9 pairs of ~1 ms samples of the two
// calls back to back, each side's fastest, their ratio; 21 rounds. A one-row sample of the main
// rounds lasts ~30 ms and the two calls' samples are seconds apart, so a neighbour that slows the
// machine for a second moves one side only: Chromium's one-row ratios had 95% intervals 0.15–0.4
// wide from those samples. Browser-compatible.

import { timePaired } from './ab/paired.mjs';
import { normTargets } from './norm-candidates.mjs';
import { now } from './timing.mjs';

export const PAIRED_ROUNDS = 21;

/** The [a, b] candidate id pairs normTargets compares at [rows × d]. */
export function variantPairs(rows, d) {
  const pairs = [];
  normTargets((label, shape, a, b) => {
    if (shape[0] === rows && shape[1] === d) pairs.push([a, b]);
  });
  return pairs;
}

/** A candidate's timing loop for timePaired: sample(iters) → ms. */
function sampler(c) {
  const run = c.run;
  return {
    sample(iters) {
      const t0 = now();
      for (let i = 0; i < iters; i++) run();
      return now() - t0;
    },
  };
}

/**
 * For each pair of this shape whose candidates are both live and synchronous (a peer's async call
 * keeps the main rounds' samples): the per-round ratios a / b, keyed `${a}|${b}`.
 */
export async function measureVariantPairs(live, rows, d, gc) {
  const byId = new Map(live.map(({ c }) => [c.id, c]));
  const paired = {};
  for (const [a, b] of variantPairs(rows, d)) {
    const ca = byId.get(a);
    const cb = byId.get(b);
    if (!ca || !cb || ca.async || cb.async) continue;
    const r = await timePaired(sampler(ca), sampler(cb), { rounds: PAIRED_ROUNDS, gc });
    paired[`${a}|${b}`] = r.ratios;
  }
  return paired;
}
