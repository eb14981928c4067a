// Paired, interleaved timing of one call in two builds, the statistics of the per-round ratios, and
// the gate's decision. Browser-compatible: no Node built-ins.
//
// Each round times one sample of each build back to back (A then B, B then A the next round), so
// whatever load the machine has in that moment weighs on both, and the round's ratio A / B cancels
// it; the median of the ratios over the rounds is robust to the rounds a neighbour spoiled.

import { quantile } from '../timing.mjs';

/**
 * Calls per sample so that a sample lasts about targetMs (at least one call), after a warm-up long
 * enough for the engine to have optimized the call (the first calls into fresh code are many times
 * slower, and a count calibrated on them would make each sample too short to time).
 */
function calibrate(sample, targetMs, warmupMs = 60) {
  for (let t0 = performance.now(), n = 1; performance.now() - t0 < warmupMs; n = Math.min(2 * n, 4096)) sample(n);
  let iters = 1;
  let t = sample(iters);
  for (let k = 0; k < 12 && t < targetMs / 2; k++) {
    iters = Math.max(iters + 1, Math.ceil((targetMs * iters) / Math.max(t, 0.02)));
    t = sample(iters);
  }
  return iters;
}

const yieldToLoop = () => new Promise((r) => setTimeout(r, 0));

/**
 * `rounds` paired measurements of two calls, each given as its timing loop (sample(iters) → ms;
 * ab/calls.mjs): { ratios (a / b, one per round), a, b (each side's time per call in the round) }.
 * A round is `perRound` pairs of short samples (~sampleMs each; A then B, then B then A), and each
 * side's time in the round is its fastest sample: on a shared machine, being descheduled, a
 * neighbour on the same core or a garbage collection only ever add time, and the two sides'
 * fastest samples are a few milliseconds apart, so slower changes in the machine's load weigh on
 * both alike. Each round starts with both calls made again on inputs at new addresses (renew(),
 * ab/calls.mjs says why), and gc, when given, runs then: both outside the timed region.
 */
export async function timePaired(a, b, { rounds, sampleMs = 1, perRound = 9, gc = null }) {
  const ia = calibrate(a.sample, sampleMs);
  const ib = calibrate(b.sample, sampleMs);
  const out = { ratios: [], a: [], b: [] };
  for (let r = 0; r < rounds; r++) {
    a.renew?.();
    b.renew?.();
    gc?.();
    let ta = Infinity,
      tb = Infinity;
    for (let k = 0; k < perRound; k++) {
      if ((r + k) % 2 === 0) {
        ta = Math.min(ta, a.sample(ia) / ia);
        tb = Math.min(tb, b.sample(ib) / ib);
      } else {
        tb = Math.min(tb, b.sample(ib) / ib);
        ta = Math.min(ta, a.sample(ia) / ia);
      }
    }
    out.a.push(ta);
    out.b.push(tb);
    out.ratios.push(ta / tb);
    if (r % 8 === 7) await yieldToLoop();
  }
  return out;
}

/** P(X <= k) for X ~ Binomial(n, 1/2). */
function binomialCdf(k, n) {
  let p = 0;
  let term = 0.5 ** n; // P(X = 0)
  for (let i = 0; i <= k; i++) {
    p += term;
    term = (term * (n - i)) / (i + 1);
  }
  return p;
}

/**
 * The median of the ratios, their interquartile range, and a distribution-free 95% confidence
 * interval of the median (the order statistics k and n + 1 − k, k the largest with
 * P(Binomial(n, 1/2) < k) ≤ 2.5%): { n, median, q1, q3, lo, hi }.
 */
export function summarize(ratios) {
  const s = [...ratios].sort((p, q) => p - q);
  const n = s.length;
  let k = 0;
  while (k < n && binomialCdf(k, n) <= 0.025) k++;
  // k: the number of order statistics left out on each side (at least one kept)
  const lo = k > 0 ? s[k - 1] : s[0];
  const hi = k > 0 ? s[n - k] : s[n - 1];
  return { n, median: quantile(s, 0.5), q1: quantile(s, 0.25), q3: quantile(s, 0.75), lo, hi };
}

/**
 * The gate: rows [{ id, ratios } | { id, missing: 'head' | 'ref' }] of the first measurement;
 * remeasure(ids) → { [id]: ratios } measures those rows again (as many processes, twice the rounds).
 * A row passes at once when the upper end of its median's 95% interval is within the limit; any
 * other is measured again and is over the limit when the median of all its ratios (both
 * measurements) is. Noise alone seldom puts the interval's end over 1.05 and almost never the median
 * of three measurements' worth of rounds, while a real regression of more than 5% moves the median
 * itself. A row over the limit is then measured a third time (confirm(ids), which ab/run.mjs makes
 * remeasure after a pause) and fails only when that median is over the limit too: on a loaded machine
 * (CI right after the fuzzers, load average 4) the one-row calls of an unchanged build measured
 * 1.054x and then 1.103x, and 1.015x in a quiet minute after. A real regression is over the limit
 * in every measurement. A call HEAD lacks fails; one the baseline lacks is skipped (and shown).
 * Returns, per row, { id, verdict: 'pass' | 'fail' | 'skipped', ...summary, first?, remeasured?,
 * confirmed? }, and whether any row failed.
 */
export async function gate(rows, remeasure, limit, confirm = remeasure) {
  const judged = rows.map((r) =>
    r.missing ? { ...r, verdict: r.missing === 'head' ? 'fail' : 'skipped' } : { ...r, ...summarize(r.ratios) },
  );
  const suspects = judged.filter((r) => !r.missing && r.hi > limit);
  const again = suspects.length ? await remeasure(suspects.map((r) => r.id)) : {};
  for (const r of judged) {
    if (r.missing) continue;
    if (r.id in again) {
      r.first = summarize(r.ratios);
      r.remeasured = summarize(again[r.id]);
      Object.assign(r, summarize([...r.ratios, ...again[r.id]]));
    }
    r.verdict = r.median > limit ? 'fail' : 'pass';
  }
  const over = judged.filter((r) => !r.missing && r.verdict === 'fail');
  const third = over.length ? await confirm(over.map((r) => r.id)) : {};
  for (const r of over) {
    r.confirmed = summarize(third[r.id]);
    if (r.confirmed.median <= limit) r.verdict = 'pass';
  }
  return { rows: judged, failed: judged.some((r) => r.verdict === 'fail') };
}
