// The benchmark's inputs and what a correct output is: shapes, ε, the deterministic activation-like
// data, and the tolerance against the package's correctly rounded reference (the variants: forms.mjs).

import { rng } from '../shared/rng.mjs';

export const FULL_SHAPES = [
  [1, 768],
  [64, 768],
  [1024, 768],
  [16384, 768],
  [1024, 1600],
  [1024, 4096],
];
export const QUICK_SHAPES = [
  [1, 768],
  [64, 768],
  [1024, 768],
];

export const EPS = 1e-5;
/** Largest |candidate − reference| accepted before a candidate is reported WRONG. */
export const TOLERANCE = 1e-4;

export function makeData(rows, d, seed = 1234) {
  const rnd = rng(seed ^ (rows * 7919) ^ (d * 104729));
  const x = new Float32Array(rows * d);
  // Activation-like rows: a per-row offset and scale plus noise.
  for (let r = 0; r < rows; r++) {
    const off = (rnd() - 0.5) * 2;
    const sc = 0.5 + rnd() * 2;
    for (let i = 0, o = r * d; i < d; i++) x[o + i] = off + sc * (rnd() + rnd() + rnd() - 1.5);
  }
  // γ and β depend on d only (onnxruntime sessions, which embed them, are reused across shapes).
  const prm = rng(seed ^ (d * 31337));
  const gamma = new Float32Array(d);
  const beta = new Float32Array(d);
  for (let i = 0; i < d; i++) {
    gamma[i] = 0.5 + prm();
    beta[i] = (prm() - 0.5) * 0.2;
  }
  return { x, gamma, beta };
}

export function maxAbsError(out, ref) {
  if (!out || out.length !== ref.length) return Infinity;
  let m = 0;
  for (let i = 0; i < ref.length; i++) {
    const e = Math.abs(out[i] - ref[i]);
    if (!(e <= m)) m = Number.isNaN(e) ? Infinity : e;
  }
  return m;
}
