// Both wasm backends against the float64 reference on the hard cases of the numerics contract.
import { beforeAll, describe, expect, it } from 'vitest';
import { compareOutputs, init, layerNormReference, type LayerNormRuntime } from '../../dist/index.js';
import { gaussian, gpt2Like, hardCases, rng } from '../helpers/cases.js';

const SEED = 20261130;
const runtimes: Record<string, LayerNormRuntime> = {};

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
    for (const c of hardCases(SEED)) {
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
    for (const r of [0, 99, 199]) {
      const row = Array.from(big.subarray(r * 768, (r + 1) * 768));
      const mean = row.reduce((a, b) => a + b, 0) / 768;
      const variance = row.reduce((a, b) => a + (b - mean) ** 2, 0) / 768;
      // Float64 sums in another order: agree to a few float64 spacings of the row's magnitude.
      expect(Math.abs(stats.mean[r] - mean)).toBeLessThan(768 * 2 ** -52 * 3000);
      expect(Math.abs(stats.variance[r] - variance) / variance).toBeLessThan(1e-12);
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

  it('exposes every stage of a row, ending bit-identical to layerNorm', () => {
    const rt = runtimes[backend];
    const x = gpt2Like(rng(SEED + 10), 5);
    const gamma = gaussian(rng(3), 768, 1, 0.1),
      beta = gaussian(rng(4), 768, 0, 0.1);
    const y = rt.layerNorm(x, 768, { gamma, beta });
    const st = rt.layerNormStages(x, 768, 3, { gamma, beta });
    expect(st.row).toBe(3);
    expect(st.input).toEqual(x.subarray(3 * 768, 4 * 768));
    expect(st.output).toEqual(y.subarray(3 * 768, 4 * 768));
    const stats = rt.layerNormStats(x, 768);
    expect(st.mean).toBe(stats.mean[3]);
    expect(st.variance).toBe(stats.variance[3]);
    expect(st.rstd).toBe(stats.rstd[3]);
    for (const j of [0, 138, 447, 767]) {
      expect(st.centered[j]).toBeCloseTo(x[3 * 768 + j] - st.mean, 3);
      expect(st.normalized[j]).toBe(Math.fround(st.centered[j] * Math.fround(st.rstd)));
      expect(st.scaled[j]).toBe(Math.fround(st.normalized[j] * gamma[j]));
      expect(st.output[j]).toBe(Math.fround(st.scaled[j] + beta[j]));
    }
  });
});

it('the SIMD and scalar builds are bit-identical', () => {
  const cases = hardCases(SEED + 11);
  cases.push({ name: 'gpt2 x 257', d: 768, eps: 1e-5, x: gpt2Like(rng(5), 257), gamma: null, beta: null });
  for (const c of cases) {
    const opts = { gamma: c.gamma, beta: c.beta, eps: c.eps };
    const a = runtimes.simd.layerNorm(c.x, c.d, opts);
    const b = runtimes.scalar.layerNorm(c.x, c.d, opts);
    expect(compareOutputs(a, b, c.d).differingBits, c.name).toBe(0);
  }
});
