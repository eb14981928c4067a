// Both wasm backends against the package's reference (the exact answer rounded once) and the test
// kit's exact statistics and stages, on the hard cases of the numerics contract.
import { beforeAll, describe, expect, it } from 'vitest';
import { compareOutputs, init, layerNormReference, ulp32, type LayerNormRuntime } from '../../dist/index.js';
import { gaussian, gpt2Like, hardCases, rng } from '../helpers/cases.js';
import { exactStages, exactStats } from '../kit/stats.mjs';

const SEED = 20261130;
const runtimes: Record<string, LayerNormRuntime> = {};

/**
 * How far the kernel's float64 mean may be from the exact one: a float64 sum is exact to about
 * d·2^-53 of the row's magnitude (README, Numerics contract).
 */
const meanError = (row: Float32Array) => row.length * 2 ** -52 * Math.max(...row.map(Math.abs));

/**
 * Worst |got − exact| in float32 spacings of |exact|, after `slack(j)` of absolute error. Each
 * float32 rounding adds at most 2^-24 relative, at most one spacing: x − μ takes two roundings
 * (x − μ_hi, then − μ_lo), x̂ two more (rstd to float32, the product), γ·x̂ one: bounds 2, 4, 5.
 */
function worstSpacings(got: Float32Array, exact: Float64Array, slack: (j: number) => number): number {
  let worst = 0;
  for (let j = 0; j < got.length; j++) {
    const excess = Math.max(0, Math.abs(got[j]! - exact[j]!) - slack(j));
    worst = Math.max(worst, excess / ulp32(Math.abs(exact[j]!)));
  }
  return worst;
}

/** The statistics are float64: far closer than float32's 2^-24 to the two-pass values. */
const STATS_RELATIVE = 2 ** -40;

beforeAll(async () => {
  runtimes.simd = await init({ backend: 'simd' });
  runtimes.scalar = await init({ backend: 'scalar' });
});

describe.each(['simd', 'scalar'])('%s backend', (backend) => {
  it('reports its backend and the kernel that runs', () => {
    const rt = runtimes[backend];
    expect(rt.backend).toBe(backend);
    expect(rt.kernel).toBe(`f32_layernorm_ukernel__${backend === 'simd' ? 'wasmsimd' : 'scalar'}_u8`);
  });

  it(`meets the accuracy contract on every hard case (seed ${SEED})`, () => {
    const rt = runtimes[backend];
    for (const c of hardCases()) {
      const y = rt.layerNorm(c.x, c.d, { gamma: c.gamma, beta: c.beta, eps: c.eps });
      const ref = layerNormReference(c.x, c.d, { gamma: c.gamma, beta: c.beta, eps: c.eps });
      const cmp = compareOutputs(y, ref, c.d, c.beta);
      expect(cmp.nonFiniteMismatches, `${c.name}: NaN/Inf pattern`).toBe(0);
      expect(cmp.maxScaledUlp, `${c.name}: scaled ULP error`).toBeLessThanOrEqual(4);
    }
  });

  it('keeps 1e4 + N(0,1) rows within 1e-5 absolute', () => {
    const rt = runtimes[backend];
    const x = gaussian(rng(SEED + 1), 64 * 768, 1e4, 1);
    const cmp = compareOutputs(rt.layerNorm(x, 768), layerNormReference(x, 768), 768);
    expect(cmp.maxAbs).toBeLessThanOrEqual(1e-5);
  });

  it('turns a constant row into exactly beta, for eps = 0 too', () => {
    const rt = runtimes[backend];
    const beta = gaussian(rng(SEED + 2), 37);
    for (const eps of [0, 1e-5]) {
      for (const v of [0, 1, -3.5, 1e6, 3e38, 1e-42]) {
        const y = rt.layerNorm(new Float32Array(2 * 37).fill(v), 37, { beta, eps });
        expect(Array.from(y)).toEqual([...beta, ...beta]);
      }
    }
  });

  it('makes a row with NaN or Inf all NaN and leaves the other rows alone', () => {
    const rt = runtimes[backend];
    const x = gaussian(rng(SEED + 3), 4 * 9);
    const clean = rt.layerNorm(x, 9);
    x[9 + 2] = NaN;
    x[18 + 8] = -Infinity;
    const y = rt.layerNorm(x, 9);
    expect(Array.from(y.subarray(9, 27)).every(Number.isNaN)).toBe(true);
    expect(y.subarray(0, 9)).toEqual(clean.subarray(0, 9));
    expect(y.subarray(27)).toEqual(clean.subarray(27));
  });

  it('gives the same result for gamma = ones / beta = zeros as for none', () => {
    const rt = runtimes[backend];
    const x = gpt2Like(rng(SEED + 4), 3);
    const none = rt.layerNorm(x, 768);
    const explicit = rt.layerNorm(x, 768, { gamma: new Float32Array(768).fill(1), beta: new Float32Array(768) });
    expect(compareOutputs(none, explicit, 768).differingBits).toBe(0);
  });

  it('writes into out, and in place when out is x', () => {
    const rt = runtimes[backend];
    const x = gpt2Like(rng(SEED + 5), 100);
    const gamma = gaussian(rng(1), 768, 1, 0.1),
      beta = gaussian(rng(2), 768, 0, 0.1);
    const expected = rt.layerNorm(x, 768, { gamma, beta });
    const out = new Float32Array(x.length);
    expect(rt.layerNorm(x, 768, { gamma, beta, out })).toBe(out);
    expect(out).toEqual(expected);
    const inPlace = x.slice();
    expect(rt.layerNorm(inPlace, 768, { gamma, beta, out: inPlace })).toBe(inPlace);
    expect(inPlace).toEqual(expected);
  });

  it('handles out overlapping x at an offset (works from a copy)', () => {
    const rt = runtimes[backend];
    const d = 16,
      rows = 40000; // more than one chunk
    const buf = new Float32Array((rows + 1) * d);
    buf.set(gaussian(rng(SEED + 6), rows * d));
    const x = buf.subarray(0, rows * d),
      out = buf.subarray(d);
    const expected = layerNormReference(x.slice(), d);
    rt.layerNorm(x, d, { out });
    expect(compareOutputs(out, expected, d).maxScaledUlp).toBeLessThanOrEqual(4);
  });

  it('normalizes inputs spanning many chunks, and zero rows', () => {
    const rt = runtimes[backend];
    const x = gaussian(rng(SEED + 7), 300 * 1000, 2, 3);
    const cmp = compareOutputs(rt.layerNorm(x, 1000), layerNormReference(x, 1000), 1000);
    expect(cmp.maxScaledUlp).toBeLessThanOrEqual(4);
    expect(rt.layerNorm(new Float32Array(0), 768).length).toBe(0);
  });

  it('normalizes a row wider than a chunk', () => {
    const rt = runtimes[backend];
    const d = 100_000;
    const x = gaussian(rng(SEED + 8), 2 * d, -1, 5);
    expect(compareOutputs(rt.layerNorm(x, d), layerNormReference(x, d), d).maxScaledUlp).toBeLessThanOrEqual(4);
  });

  it('computes per-row statistics', () => {
    const rt = runtimes[backend];
    const s = rt.layerNormStats(new Float32Array([1, 2, 3, 4, 5, 5, 5, 5]), 4, { eps: 0.25 });
    expect(s.mean).toBeInstanceOf(Float64Array);
    expect(Array.from(s.mean)).toEqual([2.5, 5]);
    expect(Array.from(s.variance)).toEqual([1.25, 0]);
    expect(s.rstd[0]).toBe(1 / Math.sqrt(1.5)); // float64, not rounded to float32
    expect(s.rstd[0]).not.toBe(Math.fround(s.rstd[0]));
    expect(s.rstd[1]).toBe(2);
    const big = gpt2Like(rng(SEED + 9), 200);
    const stats = rt.layerNormStats(big, 768);
    const exact = exactStats(big, 768);
    for (const r of [0, 99, 199]) {
      // Float64 sums: within a few float64 spacings of the row's magnitude of the exact values.
      expect(Math.abs(stats.mean[r] - exact.mean[r]!)).toBeLessThan(768 * 2 ** -52 * 3000);
      expect(Math.abs(stats.variance[r] - exact.variance[r]!) / exact.variance[r]!).toBeLessThan(1e-12);
    }
  });

  it('keeps statistics beyond float32 range: rows of subnormals with eps 0', () => {
    const rt = runtimes[backend];
    const x = new Float32Array([1e-40, -1e-40]);
    const s = rt.layerNormStats(x, 2, { eps: 0 });
    const st = rt.layerNormStages(x, 2, 0, { eps: 0 });
    expect(s.variance[0]).toBeGreaterThan(0);
    expect(s.variance[0]).toBe(st.variance);
    expect(s.rstd[0]).toBe(st.rstd);
    expect(s.rstd[0]).toBeCloseTo(1.0000054e40, -34);
    expect(Array.from(rt.layerNorm(x, 2, { eps: 0 }))).toEqual([1, -1]);
  });

  it('exposes every stage of every hard row within its bound of the exact value, ending bit-identical to layerNorm', () => {
    const rt = runtimes[backend];
    for (const c of hardCases()) {
      const opts = { gamma: c.gamma, beta: c.beta, eps: c.eps };
      const y = rt.layerNorm(c.x, c.d, opts);
      const stats = rt.layerNormStats(c.x, c.d, { eps: c.eps });
      for (let row = 0; row < c.x.length / c.d; row++) {
        const st = rt.layerNormStages(c.x, c.d, row, opts);
        const where = `${c.name}, row ${row}`;
        expect(st.row).toBe(row);
        expect(st.input).toEqual(c.x.subarray(row * c.d, (row + 1) * c.d));
        expect(compareOutputs(st.output, y.subarray(row * c.d, (row + 1) * c.d), c.d).differingBits, where).toBe(0);
        expect([st.mean, st.variance, st.rstd], `${where}: statistics`).toEqual([
          stats.mean[row],
          stats.variance[row],
          stats.rstd[row],
        ]);
        if (!st.input.every(Number.isFinite)) continue;
        const e = { ...exactStages(st.input, c.d, 0, { gamma: c.gamma, eps: c.eps }), meanError: meanError(st.input) };
        if (!Number.isFinite(e.rstd)) continue;
        expect(Math.abs(st.mean - e.mean), `${where}: mean`).toBeLessThanOrEqual(e.meanError);
        expect(Math.abs(st.rstd - e.rstd) / e.rstd, `${where}: rstd`).toBeLessThanOrEqual(STATS_RELATIVE);
        const g = (j: number) => (c.gamma ? Math.abs(c.gamma[j]!) : 1);
        expect(
          worstSpacings(st.centered, e.centered, () => e.meanError),
          `${where}: x - mean`,
        ).toBeLessThanOrEqual(2);
        expect(
          worstSpacings(st.normalized, e.normalized, () => e.meanError * e.rstd),
          `${where}: x-hat`,
        ).toBeLessThanOrEqual(4);
        expect(
          worstSpacings(st.scaled, e.scaled, (j) => g(j) * e.meanError * e.rstd),
          `${where}: gamma * x-hat`,
        ).toBeLessThanOrEqual(5);
      }
    }
  });
});

it('the SIMD and scalar builds are bit-identical: outputs, statistics and stages', () => {
  const cases = hardCases();
  cases.push({ name: 'gpt2 x 257', d: 768, eps: 1e-5, x: gpt2Like(rng(5), 257), gamma: null, beta: null });
  for (const c of cases) {
    const opts = { gamma: c.gamma, beta: c.beta, eps: c.eps };
    const a = runtimes.simd.layerNorm(c.x, c.d, opts);
    const b = runtimes.scalar.layerNorm(c.x, c.d, opts);
    expect(compareOutputs(a, b, c.d).differingBits, c.name).toBe(0);
    const sa = runtimes.simd.layerNormStats(c.x, c.d, { eps: c.eps });
    const sb = runtimes.scalar.layerNormStats(c.x, c.d, { eps: c.eps });
    for (const k of ['mean', 'variance', 'rstd'] as const) expect(sameBits(sa[k], sb[k]), `${c.name} ${k}`).toBe(true);
    const rows = c.x.length / c.d;
    for (const row of rows > 0 ? [0, rows - 1] : []) {
      const ta = runtimes.simd.layerNormStages(c.x, c.d, row, opts);
      const tb = runtimes.scalar.layerNormStages(c.x, c.d, row, opts);
      expect([ta.mean, ta.variance, ta.rstd], `${c.name} row ${row}`).toEqual([tb.mean, tb.variance, tb.rstd]);
      for (const k of ['centered', 'normalized', 'scaled', 'output'] as const) {
        expect(sameBits(ta[k], tb[k]), `${c.name} row ${row} ${k}`).toBe(true);
      }
    }
  }
});

/** Same bits, element by element (NaN payloads included). */
function sameBits(a: Float32Array | Float64Array, b: Float32Array | Float64Array): boolean {
  const ua = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const ub = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  return ua.length === ub.length && ua.every((v, i) => v === ub[i]);
}
