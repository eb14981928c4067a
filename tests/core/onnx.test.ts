// layerNormalization has ONNX LayerNormalization's semantics (opset 17): for every axis of rank-2,
// rank-3 and rank-4 inputs, ε 1e-5 and 0.1, and Scale / B of the full normalized shape and of
// broadcast shapes, onnxruntime-node (run offline, models written by web/bench/onnx-model.mjs) and
// layerNormalization give the same Y, Mean and InvStdDev, with the same shapes, up to onnxruntime's
// float32 error against the correctly rounded reference; and our own exact expectations: Y is one layerNorm call
// on the flattened groups (bit for bit, both backends), within 6.5 scaled ULP of the oracle.
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  compareOutputs,
  float32ToHalfBits,
  init,
  layerNormReference,
  type LayerNormRuntime,
  type OnnxTensorInput,
} from '../../dist/index.js';
// @ts-expect-error plain ESM module shared with the benchmark (web/bench/candidates.mjs)
import { layerNormalizationModelBytes } from '../../web/bench/onnx-model.mjs';
import { bitDifference } from '../helpers/bits.js';
import { gaussian, rng } from '../helpers/cases.js';

const SEED = 20261207;
const SHAPES = [
  [6, 10],
  [3, 5, 8],
  [2, 3, 4, 6],
];
const EPSILONS = [1e-5, 0.1];
/**
 * onnxruntime's CPU kernel computes in float32: on these rows (|x| ≲ 8, at most 144 values per
 * group) its Y stays within 5e-7 of the correctly rounded reference, Mean within 2e-7 and InvStdDev within 2e-7
 * relative (measured). These tolerances are 20× that, and far below what any difference in
 * semantics does here: another axis, broadcast or ε moves Y by more than 1e-3.
 */
const ORT_Y = 1e-5,
  ORT_MEAN = 4e-6,
  ORT_INV_STD_DEV = 4e-6;

const product = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);

/**
 * A Scale or B of shape `dims` expanded to the normalized dimensions `norm`, by ONNX's broadcasting
 * rule: align the shapes at the last dimension; a dimension of 1 repeats.
 */
function expand(data: Float32Array, dims: number[], norm: number[]): Float32Array {
  const full = new Float32Array(product(norm));
  for (let flat = 0; flat < full.length; flat++) {
    let rest = flat,
      src = 0,
      stride = 1;
    for (let i = 1; i <= norm.length; i++) {
      const coord = rest % norm[norm.length - i]!;
      rest = Math.floor(rest / norm[norm.length - i]!);
      const dim = i <= dims.length ? dims[dims.length - i]! : 1;
      if (dim !== 1) src += coord * stride;
      stride *= dim;
    }
    full[flat] = data[src]!;
  }
  return full;
}

/** The Scale / B shapes tried for normalized dimensions `norm` of an x of `rank`: [scale, bias]. */
function broadcastShapes(norm: number[], rank: number): [string, number[], number[] | null][] {
  const k = norm.length;
  const middleOne = norm.map((n, i) => (i === 0 && k > 1 ? 1 : n));
  return [
    ['full shapes', norm, norm],
    ['Scale of the last dimension only, no B', [norm[k - 1]!], null],
    [
      'Scale with x’s rank (leading 1s), B with a 1 in the first normalized dimension',
      [...new Array(rank - k).fill(1), ...norm],
      middleOne,
    ],
    ['Scale [1], B of the last dimension', [1], [norm[k - 1]!]],
  ];
}

const runtimes: Record<string, LayerNormRuntime> = {};
beforeAll(async () => {
  runtimes.simd = await init({ backend: 'simd' });
  runtimes.scalar = await init({ backend: 'scalar' });
});

describe.each(SHAPES)('x of shape %j', (...shape) => {
  const rank = shape.length;
  const axes = Array.from({ length: 2 * rank }, (_, i) => i - rank);
  describe.each(axes)('axis %i', (axis) => {
    const first = axis < 0 ? axis + rank : axis;
    const norm = shape.slice(first);
    const d = product(norm),
      rows = product(shape.slice(0, first));
    const statsShape = [...shape.slice(0, first), ...norm.map(() => 1)];

    it.each(EPSILONS)(
      'epsilon %f: Y, Mean and InvStdDev as onnxruntime-node gives them, for full and broadcast Scale and B',
      async (epsilon) => {
        const x = gaussian(rng(SEED + rank * 100 + first * 10), product(shape), 0.5, 2);
        for (const [what, scaleDims, biasDims] of broadcastShapes(norm, rank)) {
          const where = `${what}, Scale ${JSON.stringify(scaleDims)}, B ${JSON.stringify(biasDims)}`;
          const scale = { data: gaussian(rng(SEED + 1), product(scaleDims), 1, 0.3), shape: scaleDims };
          const bias = biasDims && { data: gaussian(rng(SEED + 2), product(biasDims), 0, 0.5), shape: biasDims };
          const gamma = expand(scale.data, scaleDims, norm),
            beta = bias && expand(bias.data, biasDims!, norm);
          const model = layerNormalizationModelBytes({
            shape,
            axis,
            epsilon,
            scale: { data: scale.data, dims: scaleDims },
            bias: bias && { data: bias.data, dims: biasDims },
            stats: true,
          });
          const session = await ort.InferenceSession.create(model, {
            executionProviders: ['cpu'],
            intraOpNumThreads: 1,
          });
          const o = await session.run({ X: new ort.Tensor('float32', x, shape) });
          await session.release();

          const rt = runtimes.simd!;
          const got = rt.layerNormalization(x, shape, { axis, gamma: scale, beta: bias, epsilon });
          expect(got.shape).toEqual(shape);
          expect(got.statsShape).toEqual(statsShape);
          expect([...o.Y.dims], where).toEqual(shape);
          expect([...o.Mean!.dims], where).toEqual(got.statsShape);
          expect([...o.InvStdDev!.dims], where).toEqual(got.statsShape);

          // Our Y: one layerNorm call on the flattened groups, within 6.5 scaled ULP of the oracle.
          const ref = layerNormReference(x, d, { gamma, beta, eps: epsilon });
          expect(bitDifference(got.y, rt.layerNorm(x, d, { gamma, beta, eps: epsilon })), where).toBeNull();
          expect(compareOutputs(got.y, ref, d, beta).maxScaledUlp, where).toBeLessThanOrEqual(4);
          // onnxruntime's Y: the same oracle, up to its float32 error.
          expect(
            compareOutputs(o.Y.data as Float32Array, ref, d).maxAbs,
            `${where}: onnxruntime Y`,
          ).toBeLessThanOrEqual(ORT_Y);

          const stats = rt.layerNormStats(x, d, { eps: epsilon });
          expect(bitDifference(got.mean, stats.mean), where).toBeNull();
          expect(bitDifference(got.invStdDev, stats.rstd), where).toBeNull();
          expect(got.mean.length).toBe(rows);
          const ortMean = o.Mean!.data as Float32Array,
            ortInv = o.InvStdDev!.data as Float32Array;
          for (let r = 0; r < rows; r++) {
            expect(Math.abs(ortMean[r]! - got.mean[r]!), `${where}: Mean[${r}]`).toBeLessThanOrEqual(ORT_MEAN);
            expect(
              Math.abs(ortInv[r]! - got.invStdDev[r]!) / got.invStdDev[r]!,
              `${where}: InvStdDev[${r}]`,
            ).toBeLessThanOrEqual(ORT_INV_STD_DEV);
          }
        }
      },
    );
  });
});

describe('our own exact expectations', () => {
  it('statsShape: x’s dimensions up to axis, then 1s; shape is a copy of the one given', () => {
    const rt = runtimes.simd!;
    const x = gaussian(rng(SEED + 3), 24);
    const given = [2, 3, 4];
    const cases: [number, number[]][] = [
      [0, [1, 1, 1]],
      [1, [2, 1, 1]],
      [2, [2, 3, 1]],
      [-1, [2, 3, 1]],
      [-2, [2, 1, 1]],
      [-3, [1, 1, 1]],
    ];
    for (const [axis, statsShape] of cases) {
      const r = rt.layerNormalization(x, given, { axis });
      expect(r.statsShape, `axis ${axis}`).toEqual(statsShape);
      expect(r.mean.length).toBe(product(statsShape));
      expect(r.invStdDev.length).toBe(product(statsShape));
      expect(r.shape).toEqual(given);
      expect(r.shape).not.toBe(given);
    }
    expect(rt.layerNormalization(x, given).statsShape).toEqual([2, 3, 1]); // axis -1 by default
  });

  it('Scale and B as bare Float32Arrays: of the normalized size they take its shape; shorter ones are vectors', () => {
    const rt = runtimes.simd!;
    const x = gaussian(rng(SEED + 4), 2 * 3 * 4);
    const full = gaussian(rng(SEED + 5), 12, 1, 0.3),
      last = gaussian(rng(SEED + 6), 4);
    const asTensor = rt.layerNormalization(x, [2, 3, 4], {
      axis: 1,
      gamma: { data: full, shape: [3, 4] },
      beta: { data: last, shape: [4] },
    });
    const bare = rt.layerNormalization(x, [2, 3, 4], { axis: 1, gamma: full, beta: last });
    expect(bitDifference(bare.y, asTensor.y)).toBeNull();
    expect(bitDifference(bare.y, rt.layerNorm(x, 12, { gamma: full, beta: expand(last, [4], [3, 4]) }))).toBeNull();
  });

  it('epsilon defaults to 1e-5; the arrays given are only read', () => {
    const rt = runtimes.simd!;
    const x = gaussian(rng(SEED + 7), 30);
    const gamma = gaussian(rng(SEED + 8), 5);
    const copies = [x.slice(), gamma.slice()];
    const r = rt.layerNormalization(x, [6, 5], { gamma });
    expect(bitDifference(r.y, rt.layerNorm(x, 5, { gamma, eps: 1e-5 }))).toBeNull();
    expect(bitDifference(x, copies[0]!)).toBeNull();
    expect(bitDifference(gamma, copies[1]!)).toBeNull();
  });

  it('zero groups (a leading 0 dimension) give empty results of the right shapes', () => {
    const rt = runtimes.simd!;
    const r = rt.layerNormalization(new Float32Array(0), [0, 3, 4], { axis: 1, gamma: new Float32Array(12) });
    expect([r.y.length, r.mean.length, r.invStdDev.length]).toEqual([0, 0, 0]);
    expect([r.shape, r.statsShape]).toEqual([
      [0, 3, 4],
      [0, 1, 1],
    ]);
  });

  it('float16 and bfloat16 x: Y of the same type, the layerNorm call on the bits; both backends alike', () => {
    for (const dtype of ['float16', 'bfloat16'] as const) {
      const bits = float32ToHalfBits(gaussian(rng(SEED + 9), 2 * 3 * 8, 1, 2), dtype);
      const scale: OnnxTensorInput = { data: gaussian(rng(SEED + 10), 8, 1, 0.2), shape: [1, 8] };
      const results = ['simd', 'scalar'].map((b) =>
        runtimes[b]!.layerNormalization(bits, [2, 3, 8], { axis: 1, gamma: scale, dtype }),
      );
      const y = results[0]!.y;
      expect(y).toBeInstanceOf(Uint16Array);
      const gamma = expand(scale.data, [1, 8], [3, 8]);
      expect(bitDifference(y, runtimes.simd!.layerNorm(bits, 24, { gamma, dtype }))).toBeNull();
      expect(bitDifference(results[1]!.y, y)).toBeNull();
      expect(bitDifference(results[1]!.invStdDev, results[0]!.invStdDev)).toBeNull();
    }
  });

  it('both backends give the same bits for every axis', () => {
    const x = gaussian(rng(SEED + 11), 2 * 3 * 4 * 6, 3, 5);
    for (let axis = -4; axis < 4; axis++) {
      const [a, b] = ['simd', 'scalar'].map((k) =>
        runtimes[k]!.layerNormalization(x, [2, 3, 4, 6], { axis, epsilon: 0.1 }),
      );
      expect(bitDifference(a!.y, b!.y), `axis ${axis}`).toBeNull();
      expect(bitDifference(a!.mean, b!.mean), `axis ${axis}`).toBeNull();
    }
  });
});
