/** Seeded sample data: GPT-2-like residual activations and synthetic demo weights. */

import { rng } from '../../../shared/rng.mjs';

/** Standard normal samples (Box–Muller) from a uniform source. */
export function normal(u: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    let a = u();
    while (a === 0) a = u();
    const b = u();
    const r = Math.sqrt(-2 * Math.log(a));
    spare = r * Math.sin(2 * Math.PI * b);
    return r * Math.cos(2 * Math.PI * b);
  };
}

/** Channels of GPT-2 small's residual stream known for massive activations. */
export const MASSIVE = { positive: [447], negative: [138, 378] } as const;

/**
 * A [B, T, d] sample shaped like GPT-2's final residual stream: N(0, 1) noise, plus massive
 * channels. Channel 447 carries +100…3000 (largest on the first token, as in GPT-2), channels 138
 * and 378 carry −100…−1000.
 */
export function gpt2LikeActivations(B: number, T: number, d: number, seed: number): Float32Array {
  const u = rng(seed);
  const n = normal(u);
  const x = new Float32Array(B * T * d);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const base = (b * T + t) * d;
      for (let j = 0; j < d; j++) x[base + j] = n();
      // Log-uniform magnitudes; the first position gets the top of the range.
      const big = t === 0 ? 0.8 + 0.2 * u() : u() * 0.6;
      const pos = 100 * Math.pow(30, big); // 100 … 3000
      const neg = 100 * Math.pow(10, big); // 100 … 1000
      for (const c of MASSIVE.positive) if (c < d) x[base + c] = pos * (0.9 + 0.2 * u());
      for (const c of MASSIVE.negative) if (c < d) x[base + c] = -neg * (0.9 + 0.2 * u());
    }
  }
  return x;
}

/** Clearly synthetic weights with GPT-2-ish statistics: γ ≈ 1.4 ± 0.3, β ≈ 0 ± 0.05. */
export function syntheticWeights(d: number, seed: number): { gamma: Float32Array; beta: Float32Array } {
  const n = normal(rng(seed ^ 0x9e3779b9));
  const gamma = new Float32Array(d);
  const beta = new Float32Array(d);
  for (let j = 0; j < d; j++) {
    gamma[j] = 1.4 + 0.3 * n();
    beta[j] = 0.05 * n();
  }
  for (const c of [...MASSIVE.positive, ...MASSIVE.negative]) if (c < d) gamma[c] = 0.25 + 0.05 * n();
  return { gamma, beta };
}
