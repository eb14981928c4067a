// Timing: iterations per sample calibrated per candidate, interleaved rounds in a rotating order,
// and the median and spread over the rounds.

export const now = () => performance.now();

/** Milliseconds for `iters` back-to-back calls of candidate c (awaited one by one when c.async). */
export async function timeIters(c, iters) {
  const run = c.run;
  let t0;
  if (c.async) {
    t0 = now();
    for (let i = 0; i < iters; i++) await run();
  } else {
    t0 = now();
    for (let i = 0; i < iters; i++) run();
  }
  return now() - t0;
}

async function calibrate(c, minMs, targetMs) {
  let iters = 1;
  let t = await timeIters(c, iters);
  for (let k = 0; k < 12 && t < minMs; k++) {
    const per = Math.max(t, 0.02) / iters;
    iters = Math.max(iters + 1, Math.ceil(targetMs / per));
    t = await timeIters(c, iters);
  }
  return iters;
}

/** Quantile q of an ascending array, interpolating linearly between neighbours. */
export function quantile(sorted, q) {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

const yieldToLoop = () => new Promise((r) => setTimeout(r, 0));
/**
 * After the GC before a sample: Chromium frees the collected array buffers on other threads, and
 * a sample taken at once paid for it. A candidate that follows an allocating one in the rotation
 * (the resident forward after "new array") measured 1.0-2.4 µs per one-row call with a spread of
 * 20-80%, where 30 ms later it measures 0.43-0.45 µs with 2-4%.
 */
const settle = () => new Promise((r) => setTimeout(r, 30));

/**
 * Times candidates [{ c, row }]: calibrates each to ~targetMs per sample (at least minMs, or one
 * call), then runs a warm-up round and `rounds` rounds of one sample each, and sets row.median, row.spread (IQR over
 * median), row.iters and row.samples (ms per call, in round order, for paired ratios).
 */
export async function timeCandidates(candidates, { rounds, minMs, targetMs, gc }) {
  const live = candidates.map(({ c, row }) => ({ c, row, samples: [] }));
  for (const l of live) {
    l.iters = await calibrate(l.c, minMs, targetMs);
    await yieldToLoop();
  }
  // Interleaved rounds, rotating the order each round. A full GC (when the runner exposes one)
  // before each sample, and the time for its freeing to finish (settle), keep one candidate's
  // garbage from being collected on another's clock.
  // The first round is a warm-up, not kept: in Chromium its first sample of a one-row call measured
  // 7.2 µs where the following rounds measured 0.60 µs, and the float32-statistics kernel's 0.63 µs
  // where they measured 0.20 µs (code still being optimized after the calibration).
  gc ??= () => {};
  for (let r = -1; r < rounds; r++) {
    for (let k = 0; k < live.length; k++) {
      const l = live[(k + r + 1) % live.length];
      gc();
      await settle();
      const t = await timeIters(l.c, l.iters);
      if (r >= 0) l.samples.push(t / l.iters);
    }
    await yieldToLoop();
  }
  for (const l of live) {
    const s = [...l.samples].sort((a, b) => a - b);
    l.row.median = quantile(s, 0.5);
    l.row.spread = (quantile(s, 0.75) - quantile(s, 0.25)) / l.row.median;
    l.row.iters = l.iters;
    l.row.samples = l.samples;
  }
}
