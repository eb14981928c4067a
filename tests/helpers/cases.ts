/** Seeded generators for the hard cases of the numerics contract, shared by the JS suites. */
import { rng } from './rng.mjs';

export { rng };

export function gaussian(rand: () => number, n: number, mean = 0, std = 1): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const u = 1 - rand(),
      v = rand();
    out[i] = mean + std * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
  return out;
}

/** GPT-2-like residual rows: N(0,1) with massive channels 447 (+100…3000), 138 and 378 (−100…−1000). */
export function gpt2Like(rand: () => number, rows: number, d = 768): Float32Array {
  const x = gaussian(rand, rows * d);
  for (let r = 0; r < rows; r++) {
    if (d > 447) x[r * d + 447] = 100 + 2900 * rand();
    if (d > 138) x[r * d + 138] = -(100 + 900 * rand());
    if (d > 378) x[r * d + 378] = -(100 + 900 * rand());
  }
  return x;
}

export interface Case {
  name: string;
  d: number;
  eps: number;
  x: Float32Array;
  gamma: Float32Array | null;
  beta: Float32Array | null;
}

export function hardCases(seed: number): Case[] {
  const rand = rng(seed);
  const cases: Case[] = [];
  const add = (name: string, d: number, eps: number, x: Float32Array) => {
    const gamma = gaussian(rand, d, 1, 0.2),
      beta = gaussian(rand, d, 0, 0.1);
    cases.push({ name, d, eps, x, gamma, beta });
    cases.push({ name: `${name}-nobias`, d, eps, x, gamma, beta: null });
  };
  add('gpt2-act', 768, 1e-5, gpt2Like(rand, 16));
  add('offset-1e4', 768, 1e-5, gaussian(rand, 8 * 768, 1e4, 1));
  add('offset-1e6', 768, 1e-5, gaussian(rand, 8 * 768, 1e6, 0.5));
  add('tinyvar', 768, 1e-5, gaussian(rand, 8 * 768, 3, 1e-3));
  add(
    'constant',
    768,
    1e-5,
    new Float32Array(4 * 768).map((_, i) => [1e6, -3.5, 0, 7.25e-3][Math.floor(i / 768)]),
  );
  add('huge-1e19', 768, 1e-5, gaussian(rand, 4 * 768, 0, 1e19));
  add('huge-1e30', 768, 1e-5, gaussian(rand, 4 * 768, 3e30, 1e30));
  add('tiny-1e-40', 768, 1e-5, gaussian(rand, 4 * 768, 0, 1e-40));
  add('tiny-1e-40-eps0', 768, 0, gaussian(rand, 4 * 768, 2e-40, 1e-40));
  add('tiny-1e-20-eps0', 768, 0, gaussian(rand, 4 * 768, 0, 1e-20));
  add('eps-0.1', 768, 0.1, gaussian(rand, 4 * 768, 0, 0.3));
  for (const d of [1, 2, 3, 5, 7, 15, 17, 33, 767, 769, 1025, 4096])
    add(`dim-${d}`, d, 1e-5, gaussian(rand, 5 * d, 0.5, 2));
  const nonfinite = gaussian(rand, 6 * 768);
  nonfinite[768 + 5] = NaN;
  nonfinite[3 * 768 + 700] = Infinity;
  nonfinite[4 * 768] = -Infinity;
  add('nonfinite', 768, 1e-5, nonfinite);
  return cases;
}
