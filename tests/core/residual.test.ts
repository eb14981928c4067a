// The fused residual add: layerNorm / rmsNorm(x, d, { residual: r, bias?, sumOut? }) normalizes
// h = fl32(fl32(x + r) + bias) (rounded once more to a 16-bit activation type), bit-identical to the
// plain call on h, and writes h to sumOut — on both backends, every width (wide rows included),
// row counts across chunk boundaries, every in-place arrangement the API allows, and its stages.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  compareOutputs,
  float32ToHalfBits,
  halfBitsToFloat32,
  init,
  layerNormReference,
  rmsNormReference,
  type LayerNormRuntime,
} from '../../dist/index.js';
import { bitDifference } from '../helpers/bits.js';
import { gaussian, gpt2Like, hardCases, rng, rowsFor, WIDTHS } from '../helpers/cases.js';
import { residualSum } from '../kit/exact.mjs';

const SEED = 20261202;
const NORMS = ['layerNorm', 'rmsNorm'] as const;

const runtimes: Record<string, LayerNormRuntime> = {};
beforeAll(async () => {
  runtimes.simd = await init({ backend: 'simd' });
  runtimes.scalar = await init({ backend: 'scalar' });
});

function data(d: number, seed: number) {
  const rows = rowsFor(d);
  return {
    rows,
    x: gpt2Like(rng(seed), rows, d),
    r: gaussian(rng(seed + 1), rows * d, 0, 2),
    bias: gaussian(rng(seed + 2), d, 0, 0.1),
    gamma: gaussian(rng(seed + 3), d, 1, 0.2),
    beta: gaussian(rng(seed + 4), d, 0, 0.1),
  };
}

/** Options of a norm: RMSNorm has no beta. */
const withBeta = (norm: (typeof NORMS)[number], beta: Float32Array) => (norm === 'layerNorm' ? { beta } : {});

describe.each(['simd', 'scalar'])('%s backend', (backend) => {
  describe.each(NORMS)('%s', (norm) => {
    it.each(WIDTHS)(
      'd = %i: bit-identical to the plain call on fl32(x + r) + bias, and sumOut receives that sum',
      (d) => {
        const rt = runtimes[backend]!;
        const { x, r, bias, gamma, beta } = data(d, SEED + d);
        for (const b of [bias, null]) {
          const h = residualSum(x, r, b, d);
          const options = { gamma, ...withBeta(norm, beta) };
          const expected = rt[norm](h, d, options);
          const sumOut = new Float32Array(x.length);
          const y = rt[norm](x, d, { ...options, residual: r, bias: b, sumOut });
          expect(bitDifference(y, expected)).toBeNull();
          expect(bitDifference(sumOut, h)).toBeNull();
          // Without sumOut, and into a caller's out: the same bits.
          expect(bitDifference(rt[norm](x, d, { ...options, residual: r, bias: b }), expected)).toBeNull();
          const out = new Float32Array(x.length);
          expect(rt[norm](x, d, { ...options, residual: r, bias: b, out })).toBe(out);
          expect(bitDifference(out, expected)).toBeNull();
          // x and r are only read.
          expect(bitDifference(x, data(d, SEED + d).x)).toBeNull();
        }
      },
    );

    it('the hard cases as x, with a residual: bit-identical to the plain call on h, and within 6.5 scaled ULP of the oracle', () => {
      const rt = runtimes[backend]!;
      const oracle = norm === 'layerNorm' ? layerNormReference : rmsNormReference;
      for (const c of hardCases()) {
        const r = gaussian(rng(SEED + c.x.length), c.x.length);
        const bias = gaussian(rng(SEED + c.d), c.d, 0, 0.5);
        const options = { gamma: c.gamma, ...(norm === 'layerNorm' ? { beta: c.beta } : {}), eps: c.eps };
        const h = residualSum(c.x, r, bias, c.d);
        const y = rt[norm](c.x, c.d, { ...options, residual: r, bias });
        expect(bitDifference(y, rt[norm](h, c.d, options)), c.name).toBeNull();
        const ref = oracle(c.x, c.d, { ...options, residual: r, bias });
        // The oracle forms h as the kernels do: its answer on (x, r, bias) is its answer on h.
        expect(bitDifference(ref, oracle(h, c.d, options)), `${c.name}: oracle`).toBeNull();
        const cmp = compareOutputs(y, ref, c.d, norm === 'layerNorm' ? c.beta : null);
        expect(cmp.nonFiniteMismatches, c.name).toBe(0);
        expect(cmp.maxScaledUlp, c.name).toBeLessThanOrEqual(4);
      }
    });

    it('in place: out = x, out = residual, sumOut = x, sumOut = residual, and both at once', () => {
      const rt = runtimes[backend]!;
      const d = 768;
      const { x, r, bias, gamma, beta } = data(d, SEED + 9);
      const options = { gamma, ...withBeta(norm, beta), bias };
      const h = residualSum(x, r, bias, d);
      const y = rt[norm](h, d, { gamma, ...withBeta(norm, beta) });
      const arrangements: [
        string,
        (a: Float32Array, b: Float32Array) => Record<string, Float32Array>,
        string,
        string,
      ][] = [
        // name, options from (x copy, r copy), what the x copy holds after, what the r copy holds after
        ['out = x', (a, b) => ({ out: a, residual: b }), 'y', 'r'],
        ['out = residual', (a, b) => ({ out: b, residual: b }), 'x', 'y'],
        ['sumOut = x', (a, b) => ({ sumOut: a, residual: b }), 'h', 'r'],
        ['sumOut = residual (the residual stream updated in place)', (a, b) => ({ sumOut: b, residual: b }), 'x', 'h'],
        ['out = x and sumOut = residual', (a, b) => ({ out: a, sumOut: b, residual: b }), 'y', 'h'],
        ['out = residual and sumOut = x', (a, b) => ({ out: b, sumOut: a, residual: b }), 'h', 'y'],
      ];
      const values: Record<string, Float32Array> = { x, r, h, y };
      for (const [name, arrays, afterX, afterR] of arrangements) {
        const a = x.slice(),
          b = r.slice();
        const result = rt[norm](a, d, { ...options, ...arrays(a, b) });
        expect(bitDifference(result, y), name).toBeNull();
        expect(bitDifference(a, values[afterX]!), `${name}: x`).toBeNull();
        expect(bitDifference(b, values[afterR]!), `${name}: residual`).toBeNull();
      }
    });

    it('outputs that partly overlap the inputs give what separate arrays give', () => {
      const rt = runtimes[backend]!;
      const d = 16,
        rows = 10_000; // several chunks
      const x = gaussian(rng(SEED + 10), rows * d, 1, 2),
        r = gaussian(rng(SEED + 11), rows * d);
      const h = residualSum(x, r, null, d);
      const y = rt[norm](h, d);
      // out starts one row into the residual, sumOut one row into x.
      const xs = new Float32Array((rows + 1) * d),
        rs = new Float32Array((rows + 1) * d);
      xs.set(x);
      rs.set(r);
      rt[norm](xs.subarray(0, rows * d), d, {
        residual: rs.subarray(0, rows * d),
        out: rs.subarray(d),
        sumOut: xs.subarray(d),
      });
      expect(bitDifference(rs.subarray(d), y)).toBeNull();
      expect(bitDifference(xs.subarray(d), h)).toBeNull();
    });

    it('float16 and bfloat16: h is rounded to the type once, as sumOut shows, and normalized as that type', () => {
      const rt = runtimes[backend]!;
      for (const dtype of ['float16', 'bfloat16'] as const) {
        for (const d of [7, 768, 70_000]) {
          const { x, r, bias, gamma, beta } = data(d, SEED + 12 + d);
          const xb = float32ToHalfBits(x, dtype),
            rb = float32ToHalfBits(r, dtype);
          const hb = float32ToHalfBits(
            residualSum(halfBitsToFloat32(xb, dtype), halfBitsToFloat32(rb, dtype), bias, d),
            dtype,
          );
          const options = { gamma, ...withBeta(norm, beta), dtype };
          const sumOut = new Uint16Array(x.length);
          const y = rt[norm](xb, d, { ...options, residual: rb, bias, sumOut });
          expect(y).toBeInstanceOf(Uint16Array);
          expect(bitDifference(sumOut, hb), `${dtype} d = ${d}: sumOut`).toBeNull();
          expect(bitDifference(y, rt[norm](hb, d, options)), `${dtype} d = ${d}`).toBeNull();
        }
      }
    });
  });

  it('layerNormStages and rmsNormStages show the add: input, residual, sum, then the stages of the sum', () => {
    const rt = runtimes[backend]!;
    const d = 769;
    const { x, r, bias, gamma, beta } = data(d, SEED + 13);
    const h = residualSum(x, r, bias, d);
    const row = 5;
    const slice = (a: Float32Array) => a.subarray(row * d, (row + 1) * d);
    const fused = rt.layerNormStages(x, d, row, { gamma, beta, residual: r, bias });
    const plain = rt.layerNormStages(h, d, row, { gamma, beta });
    expect(bitDifference(fused.input, slice(x))).toBeNull();
    expect(bitDifference(fused.residual!, slice(r))).toBeNull();
    expect(bitDifference(fused.sum!, slice(h))).toBeNull();
    expect([fused.mean, fused.variance, fused.rstd]).toEqual([plain.mean, plain.variance, plain.rstd]);
    for (const k of ['centered', 'normalized', 'scaled', 'output'] as const)
      expect(bitDifference(fused[k], plain[k]), k).toBeNull();
    expect(bitDifference(fused.output, slice(rt.layerNorm(x, d, { gamma, beta, residual: r, bias })))).toBeNull();

    const rms = rt.rmsNormStages(x, d, row, { gamma, residual: r, bias });
    const rmsPlain = rt.rmsNormStages(h, d, row, { gamma });
    expect(bitDifference(rms.residual!, slice(r))).toBeNull();
    expect(bitDifference(rms.sum!, slice(h))).toBeNull();
    expect([rms.meanSquare, rms.rstd]).toEqual([rmsPlain.meanSquare, rmsPlain.rstd]);
    expect(bitDifference(rms.output, slice(rt.rmsNorm(x, d, { gamma, residual: r, bias })))).toBeNull();

    // float16: residual and sum hold the type's values exactly.
    const xb = float32ToHalfBits(x, 'float16'),
      rb = float32ToHalfBits(r, 'float16');
    const sumOut = new Uint16Array(x.length);
    const yb = rt.layerNorm(xb, d, { gamma, beta, residual: rb, bias, sumOut, dtype: 'float16' });
    const half = rt.layerNormStages(xb, d, row, { gamma, beta, residual: rb, bias, dtype: 'float16' });
    const widen = (a: Uint16Array) => halfBitsToFloat32(a.subarray(row * d, (row + 1) * d), 'float16');
    expect(half.dtype).toBe('float16');
    expect(bitDifference(half.residual!, widen(rb))).toBeNull();
    expect(bitDifference(half.sum!, widen(sumOut))).toBeNull();
    expect(bitDifference(half.output, widen(yb))).toBeNull();
  });
});

it('the SIMD and scalar builds are bit-identical with a residual, bias and sumOut', () => {
  const { simd, scalar } = runtimes as { simd: LayerNormRuntime; scalar: LayerNormRuntime };
  for (const d of WIDTHS) {
    const { x, r, bias, gamma, beta } = data(d, SEED + 14 + d);
    for (const norm of NORMS) {
      const options = { gamma, ...withBeta(norm, beta), residual: r, bias };
      const [sa, sb] = [new Float32Array(x.length), new Float32Array(x.length)];
      const ya = simd[norm](x, d, { ...options, sumOut: sa }),
        yb = scalar[norm](x, d, { ...options, sumOut: sb });
      expect(bitDifference(ya, yb), `${norm} d = ${d}`).toBeNull();
      expect(bitDifference(sa, sb), `${norm} d = ${d}: sumOut`).toBeNull();
      for (const dtype of ['float16', 'bfloat16'] as const) {
        const xb = float32ToHalfBits(x, dtype),
          rb = float32ToHalfBits(r, dtype);
        const o = { ...options, residual: rb, dtype };
        expect(bitDifference(simd[norm](xb, d, o), scalar[norm](xb, d, o)), `${norm} ${dtype} d = ${d}`).toBeNull();
      }
    }
  }
});
