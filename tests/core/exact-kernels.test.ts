// Both wasm kernels against the exact oracle (tests/kit/exact.mjs: BigInt arithmetic, no float64
// formula) on a few hundred seeded hard rows (issue 18 items 2 and 4): nearly constant rows at
// offsets of either sign with one element a step away, two- and few-level rows, huge and subnormal
// magnitudes, a gain that overflows float32 before its bias brings the answer back, eps = 0,
// widths up to 10^6; LayerNorm with and without bias, RMSNorm, the fused residual, and float16 /
// bfloat16 activations. The contract: every output within 4 float32 spacings of the exact answer
// (16-bit: within 1 spacing of the type), and finite wherever the exact answer is.
import { beforeAll, describe, expect, it } from 'vitest';
import { float32ToHalfBits, halfBitsToFloat32, init, type LayerNormRuntime } from '../../dist/index.js';
import { compareToExact, exactLayerNorm, exactRmsNorm, residualSum } from '../kit/exact.mjs';
import { rng } from '../../web/shared/rng.mjs';

const SEED = 20261218;
const backends = ['simd', 'scalar'] as const;
const runtimes: Partial<Record<(typeof backends)[number], LayerNormRuntime>> = {};

beforeAll(async () => {
  for (const b of backends) runtimes[b] = await init({ backend: b });
});

interface HardRow {
  what: string;
  d: number;
  x: Float32Array;
  gamma: Float32Array | null;
  beta: Float32Array | null;
  eps: number;
}

const f32 = new Float32Array(1),
  u32 = new Uint32Array(f32.buffer);
/** The float32 `steps` steps away from v (by bit pattern: across binades and through zero). */
function stepAway(v: number, steps: number): number {
  f32[0] = v;
  const key = u32[0]! >= 0x80000000 ? -(u32[0]! - 0x80000000) : u32[0]!;
  const k = key + steps;
  u32[0] = k < 0 ? 0x80000000 - k : k;
  return f32[0]!;
}

function params(r: () => number, d: number, kind: 'both' | 'gain' | 'none') {
  const gamma = kind === 'none' ? null : Float32Array.from({ length: d }, () => 0.25 + 1.5 * r());
  const beta = kind === 'both' ? Float32Array.from({ length: d }, () => (r() - 0.5) * 0.2) : null;
  return { gamma, beta };
}

/** Seeded hard rows, each with its seed and kind in `what`. */
function hardRows(): HardRow[] {
  const rows: HardRow[] = [];
  const r = rng(SEED);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)]!;
  const kinds = ['both', 'gain', 'none'] as const;
  for (let i = 0; i < 120; i++) {
    // Nearly constant: d − k values L and k a step or two away (up or down), at any offset.
    const d = pick([2, 3, 7, 8, 9, 768, 769, 3001]);
    const offset = Math.fround(pick([1, -1]) * 10 ** (r() * 12 - 6) * pick([1, 1e4, 1e-4]));
    const x = new Float32Array(d).fill(offset);
    const k = 1 + Math.floor(r() * Math.min(3, d - 1));
    for (let j = 0; j < k; j++) x[Math.floor(r() * d)] = stepAway(offset, pick([1, -1, 2, -2]));
    rows.push({ what: `near-constant ${i}`, d, x, ...params(r, d, pick(kinds)), eps: pick([0, 1e-5, 1e-12]) });
  }
  for (let i = 0; i < 60; i++) {
    // Two and few levels, at magnitudes from subnormal to huge.
    const d = pick([4, 16, 100, 768]);
    const scale = 10 ** (r() * 70 - 40);
    const levels = Array.from({ length: pick([2, 3, 4]) }, () => Math.fround((r() - 0.3) * scale));
    const x = Float32Array.from({ length: d }, () => pick(levels));
    rows.push({ what: `few-level ${i}`, d, x, ...params(r, d, pick(kinds)), eps: pick([0, 1e-5]) });
  }
  for (let i = 0; i < 40; i++) {
    // Gaussian rows at an offset of either sign, some huge, some subnormal.
    const d = pick([31, 768, 1600]);
    const offset = pick([0, 1, -1]) * 10 ** (r() * 8);
    const spread = 10 ** (r() * 60 - 45);
    const x = Float32Array.from({ length: d }, () => offset + spread * (r() + r() + r() - 1.5));
    rows.push({ what: `offset gaussian ${i}`, d, x, ...params(r, d, pick(kinds)), eps: pick([0, 1e-5]) });
  }
  for (let i = 0; i < 20; i++) {
    // A gain that overflows float32 in γ·x̂ while the bias brings the answer back into range.
    const d = pick([4, 9, 64]);
    const x = Float32Array.from({ length: d }, () => (r() < 0.8 ? -1 : 3));
    const gamma = Float32Array.from({ length: d }, () => Math.fround(2e38 + r() * 1.3e38));
    const beta = Float32Array.from({ length: d }, (_, j) => Math.fround(-gamma[j]! * (0.5 + 0.5 * r())));
    rows.push({ what: `gain overflow ${i}`, d, x, gamma, beta, eps: 0 });
  }
  // Widths up to 10^6: one element a step away (the row one double for the mean failed on most).
  for (const [d, offset] of [
    [60000, 1e4],
    [200000, -1e4],
    [1000000, 3e5],
  ] as const) {
    const x = new Float32Array(d).fill(offset);
    x[Math.floor(d / 3)] = stepAway(offset, 1);
    rows.push({ what: `near-constant d=${d}`, d, x, gamma: null, beta: null, eps: 0 });
  }
  return rows;
}

const ROWS = hardRows();

function expectWithin(y: Float32Array, exact: Float32Array, beta: Float32Array | null, d: number, what: string) {
  const c = compareToExact(y, exact, beta, d);
  expect(c.lost, `${what}: non-finite where the exact answer is finite (element ${c.worst})`).toBe(0);
  expect(c.nonFinite, `${what}: NaN/±Infinity of another kind than the exact answer's`).toBe(0);
  expect(c.maxSulp, `${what}: worst element ${c.worst}`).toBeLessThanOrEqual(4);
}

describe.each(backends)('%s kernel against the exact oracle', (backend) => {
  it(`LayerNorm on ${ROWS.length} hard rows (seed ${SEED})`, () => {
    const rt = runtimes[backend]!;
    for (const row of ROWS) {
      const { d, x, gamma, beta, eps } = row;
      const y = rt.layerNorm(x, d, { gamma, beta, eps });
      expectWithin(y, exactLayerNorm(x, d, { gamma, beta, eps }), beta, d, `${row.what} (seed ${SEED})`);
    }
  });

  it('RMSNorm on the same rows', () => {
    const rt = runtimes[backend]!;
    for (const row of ROWS) {
      const { d, x, gamma, eps } = row;
      const y = rt.rmsNorm(x, d, { gamma, eps });
      expectWithin(y, exactRmsNorm(x, d, { gamma, eps }), null, d, `${row.what} (seed ${SEED})`);
    }
  });

  it('the fused residual, its sum forming the hard rows', () => {
    const rt = runtimes[backend]!;
    const r = rng(SEED + 1);
    for (const row of ROWS) {
      if (row.d > 3001) continue;
      const { d, x, gamma, beta, eps } = row;
      // x = h − r for a small r, so that h = x + r in float32 is (nearly) the hard row again.
      const residual = Float32Array.from(x, (v) => (r() < 0.5 ? 0 : Math.fround(v * 2 ** -30)));
      const h = residualSum(x, residual, null, d);
      const y = rt.layerNorm(x, d, { gamma, beta, eps, residual });
      expectWithin(y, exactLayerNorm(h, d, { gamma, beta, eps }), beta, d, `${row.what} + residual`);
    }
  });

  it('float16 and bfloat16 rows: within 1 spacing of the type', () => {
    const rt = runtimes[backend]!;
    for (const dtype of ['float16', 'bfloat16'] as const) {
      const spacing = dtype === 'float16' ? 10 : 7;
      for (const row of ROWS) {
        if (row.d > 3001 || row.what.startsWith('gain overflow')) continue;
        const { d, gamma, beta, eps } = row;
        // The row as the type holds it, so the oracle sees the values the kernel widens.
        const xh = halfBitsToFloat32(toBits(row.x, dtype), dtype);
        if (!xh.every(Number.isFinite)) continue;
        const y = halfBitsToFloat32(rt.layerNorm(toBits(xh, dtype), d, { gamma, beta, eps, dtype }), dtype);
        const exact = exactLayerNorm(xh, d, { gamma, beta, eps });
        for (let i = 0; i < y.length; i++) {
          const e = exact[i]!;
          if (!Number.isFinite(e)) continue;
          const b = beta ? beta[i % d]! : 0;
          const s = Math.abs(e - b) + Math.abs(b);
          const unit = typeUlp(s, spacing, dtype === 'float16' ? -14 : -126);
          const beyond = Math.abs(e) > (dtype === 'float16' ? 65504 : 3.3895e38); // Inf is its rounding
          const ok = Number.isFinite(y[i]!) ? Math.abs(y[i]! - e) <= unit : beyond;
          if (!ok) expect.fail(`${dtype} ${row.what} element ${i}: ${y[i]} vs exact ${e} (more than 1 spacing)`);
        }
      }
    }
  });
});

/** The type's spacing at magnitude s (mantissa bits, smallest normal exponent). */
function typeUlp(s: number, mantissa: number, minExponent: number) {
  return s >= 2 ** minExponent ? 2 ** (Math.floor(Math.log2(s)) - mantissa) : 2 ** (minExponent - mantissa);
}

/** Values rounded to the type's bits (as the package rounds them). */
function toBits(v: Float32Array, dtype: 'float16' | 'bfloat16'): Uint16Array {
  return float32ToHalfBits(v, dtype);
}
