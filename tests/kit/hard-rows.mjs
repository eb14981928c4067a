// Seeded generators of the rows a norm finds hard: near-constant rows at offsets of either sign
// (a few elements a float32 step or three away), two- to four-level rows, huge (1e30…3e38) and
// subnormal magnitudes, narrow gaussians far from zero, γ·x̂ beyond float32 where γ·x̂ + β is not,
// β cancelling γ·x̂, GPT-2-like rows, ε = 0. One seed gives one case, the same on every run; its label names the
// seed, so a failure can be replayed with hardCase(seed, options).
import { gaussian, gpt2Like, normal, rng } from './random.mjs';

const F32_MAX = 3.4028234663852886e38;

export const HARD_KINDS = [
  'near-constant',
  'levels',
  'huge',
  'subnormal',
  'narrow',
  'gamma-overflow',
  'cancelling',
  'gpt2',
  'gaussian',
];

/** Widths around the kernels' 4- and 8-float tiles, GPT-2's, and odd ones. */
const WIDTHS = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 127, 768, 769, 1024, 1025, 3001];

const f32 = new Float32Array(1);
const i32 = new Int32Array(f32.buffer);

/** The float32 n steps above v (below for n < 0), clamped to the finite float32s. */
export function stepAway(v, n) {
  f32[0] = v;
  // Ordered integers: the bits of a negative float32 count down as its value goes up.
  const key = i32[0] < 0 ? -(i32[0] & 0x7fffffff) : i32[0];
  const k = Math.max(-0x7f7fffff, Math.min(0x7f7fffff, key + n));
  i32[0] = k < 0 ? -k | 0x80000000 : k;
  return f32[0];
}

const pick = (rand, list) => list[Math.floor(rand() * list.length)];
const uniform = (rand, lo, hi) => lo + (hi - lo) * rand();
const logUniform = (rand, lo, hi) => 10 ** uniform(rand, Math.log10(lo), Math.log10(hi));
const signed = (rand, v) => (rand() < 0.5 ? -v : v);
const clamp = (v) => Math.fround(Math.max(-F32_MAX, Math.min(F32_MAX, v)));

/** All elements at one offset, a few (or all but one, or half) one to three steps away. */
function nearConstantRow(rand, d) {
  const offset =
    rand() < 0.25
      ? signed(rand, 2 ** Math.floor(uniform(rand, -30, 60))) // at a power of two the step below is half the step above
      : Math.fround(signed(rand, logUniform(rand, 1e-3, 1e8)));
  const row = new Float32Array(d).fill(offset);
  const moved = pick(rand, [1, 1, 1, 2, 3, Math.ceil(d / 2), d - 1]);
  const direction = signed(rand, 1);
  for (let i = 0; i < moved; i++) {
    const steps = rand() < 0.8 ? direction : signed(rand, 1 + Math.floor(rand() * 3));
    row[Math.floor(rand() * d)] = stepAway(offset, steps);
  }
  return row;
}

/** Two to four distinct values, one of them often rare, at any scale and offset. */
function levelsRow(rand, d) {
  const scale = logUniform(rand, 1e-30, 1e30);
  const offset = rand() < 0.5 ? 0 : signed(rand, scale * logUniform(rand, 1, 1e6));
  const levels = Array.from({ length: 2 + Math.floor(rand() * 3) }, () => clamp(offset + scale * normal(rand)));
  const weights = levels.map(() => rand() ** 3 + 1e-3);
  const total = weights.reduce((a, b) => a + b, 0);
  const row = new Float32Array(d);
  for (let j = 0; j < d; j++) {
    let t = rand() * total,
      k = 0;
    while (k < levels.length - 1 && t >= weights[k]) t -= weights[k++];
    row[j] = levels[k];
  }
  return row;
}

function rowOf(kind, rand, d) {
  switch (kind) {
    case 'near-constant':
      return nearConstantRow(rand, d);
    case 'levels':
      return levelsRow(rand, d);
    case 'huge': {
      const scale = logUniform(rand, 1e30, 1e38);
      const offset = rand() < 0.5 ? 0 : signed(rand, scale * uniform(rand, 0, 2));
      return gaussian(rand, d, 0, 1).map((v) => clamp(offset + scale * v));
    }
    case 'subnormal': {
      const scale = logUniform(rand, 1e-45, 1e-37);
      const offset = rand() < 0.5 ? 0 : signed(rand, scale * uniform(rand, 0, 10));
      return gaussian(rand, d, 0, 1).map((v) => Math.fround(offset + scale * v));
    }
    case 'narrow': {
      // σ from 10^-7 to 10^-3 of the offset: the centred values keep only the low bits.
      const offset = signed(rand, logUniform(rand, 1, 1e7));
      return gaussian(rand, d, offset, Math.abs(offset) * logUniform(rand, 1e-7, 1e-3));
    }
    case 'gpt2':
      return gpt2Like(rand, 1, d);
    case 'gamma-overflow':
    case 'cancelling':
      return rand() < 0.5 ? levelsRow(rand, d) : gaussian(rand, d, uniform(rand, -2, 2), 1);
    default:
      return gaussian(rand, d, uniform(rand, -2, 2), logUniform(rand, 0.1, 10));
  }
}

/** x̂ of a row in float64: good enough to aim β at γ·x̂ (the oracle decides the answer). */
function roughNormalized(row) {
  const mean = row.reduce((a, v) => a + v, 0) / row.length;
  const variance = row.reduce((a, v) => a + (v - mean) ** 2, 0) / row.length;
  return row.map((v) => (variance > 0 ? (v - mean) / Math.sqrt(variance) : 0));
}

function gammaOf(rand, d) {
  const kind = pick(rand, ['none', 'ones', 'near-one', 'near-one', 'wide']);
  if (kind === 'none') return null;
  if (kind === 'ones') return new Float32Array(d).fill(1);
  if (kind === 'near-one') return gaussian(rand, d, 1, 0.2);
  return new Float32Array(d).map(() => signed(rand, logUniform(rand, 1e-3, 1e3)));
}

function betaOf(rand, d) {
  const kind = pick(rand, ['none', 'none', 'small', 'large']);
  if (kind === 'none') return null;
  if (kind === 'small') return gaussian(rand, d, 0, 0.1);
  return new Float32Array(d).map(() => signed(rand, logUniform(rand, 1, 1e4)));
}

/**
 * One hard case from a seed: { kind, seed, d, rows, h, gamma, beta, eps, label }. Options fix the
 * kind, the width d (else one of WIDTHS up to maxD, or any width up to it) and the rows (else 1…6,
 * at most maxElements in all).
 */
export function hardCase(seed, { kind, d, rows, maxD = 4096, maxElements = 1 << 16 } = {}) {
  const rand = rng(seed);
  kind ??= pick(rand, HARD_KINDS);
  if (!HARD_KINDS.includes(kind)) throw new TypeError(`hardCase: no kind ${kind}; the kinds are ${HARD_KINDS}`);
  const widths = WIDTHS.filter((w) => w <= maxD);
  d ??= rand() < 0.7 && widths.length ? pick(rand, widths) : 1 + Math.floor(rand() * maxD);
  // γ·x̂ is aimed at β column by column, which one row at a time allows.
  rows ??=
    kind === 'gamma-overflow' ? 1 : 1 + Math.floor(rand() * Math.max(1, Math.min(6, Math.floor(maxElements / d))));
  const h = new Float32Array(rows * d);
  for (let r = 0; r < rows; r++) h.set(rowOf(kind, rand, d), r * d);
  let gamma = gammaOf(rand, d),
    beta = betaOf(rand, d);
  if (kind === 'gamma-overflow') {
    // |γ| near F32_MAX and β cancelling most of γ·x̂: the sum is often finite where γ·x̂ is not.
    const xhat = roughNormalized(h);
    gamma = new Float32Array(d).map(() => signed(rand, uniform(rand, 1e38, F32_MAX)));
    beta = new Float32Array(d).map((_, j) => clamp(-gamma[j] * xhat[j] * uniform(rand, 0.3, 1.1)));
  }
  if (kind === 'cancelling') {
    // β = −γ·x̂ rounded, now and then a step or two off: y is what the roundings leave, far below
    // |β|, often 0 or a tie — the outputs a reference must settle exactly.
    const xhat = roughNormalized(h);
    gamma ??= gaussian(rand, d, 1, 0.5);
    beta = new Float32Array(d).map((_, j) =>
      stepAway(clamp(-gamma[j] * xhat[j]), rand() < 0.7 ? 0 : Math.floor(uniform(rand, -2, 3))),
    );
  }
  const eps = kind === 'subnormal' && rand() < 0.7 ? 0 : pick(rand, [0, 0, 1e-12, 1e-6, 1e-5, 1e-5, 0.1]);
  return { kind, seed, d, rows, h, gamma, beta, eps, label: `${kind} d = ${d}, ${rows} row(s), seed ${seed}` };
}

/**
 * A fused residual call's inputs for rows near h: x + r + bias ≈ h, each split at random, so that
 * the float32 sums the kernel forms land on (or a rounding beside) the hard row. The exact answer
 * is the oracle's on residualSum(x, residual, bias, d).
 */
export function splitResidual(seed, h, d) {
  const rand = rng(seed);
  const bias = rand() < 0.3 ? null : gaussian(rand, d, 0, 0.5);
  const residual = new Float32Array(h.length),
    x = new Float32Array(h.length);
  for (let i = 0; i < h.length; i++) {
    const r = clamp(h[i] * uniform(rand, -0.5, 0.5));
    residual[i] = r;
    x[i] = clamp(h[i] - r - (bias ? bias[i % d] : 0));
  }
  return { x, residual, bias };
}
