// Seeded random data for every test: the project's one generator (web/shared/rng.mjs) and the one
// normal sampler. Plain ESM, so that Vitest suites, the fuzzer and tests/data/generate.mjs share it.
import { rng } from '../../web/shared/rng.mjs';

export { rng };

/** One standard normal sample (Box–Muller, cosine branch) from two draws of rand. */
export function normal(rand) {
  const u = 1 - rand(),
    v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** n float32 samples of N(mean, std²). */
export function gaussian(rand, n, mean = 0, std = 1) {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = mean + std * normal(rand);
  return out;
}

/** GPT-2-like residual rows: N(0,1) with massive channels 447 (+100…3000), 138 and 378 (−100…−1000). */
export function gpt2Like(rand, rows, d = 768) {
  const x = gaussian(rand, rows * d);
  for (let r = 0; r < rows; r++) {
    if (d > 447) x[r * d + 447] = 100 + 2900 * rand();
    if (d > 138) x[r * d + 138] = -(100 + 900 * rand());
    if (d > 378) x[r * d + 378] = -(100 + 900 * rand());
  }
  return x;
}
