// float16 and bfloat16 activations (a Uint16Array of bits with dtype; a Float16Array where the
// engine has one): every output equals the float32 path's output on the widened input, rounded to
// the type (asserted for 100% of elements, which holds), and so is within 1 ulp of the exact
// result rounded to the type; results come back as the kind of array given; the resident, tensor,
// statistics and stages entry points agree; and the SIMD and scalar builds are bit-identical.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  float32ToHalfBits,
  halfBitsToFloat32,
  init,
  layerNormReference,
  rmsNormReference,
  type LayerNormRuntime,
} from '../../dist/index.js';
import { bitDifference } from '../helpers/bits.js';
import { gaussian, gpt2Like, hardCases, rng, rowsFor, WIDTHS } from '../helpers/cases.js';

const SEED = 20261204;
const DTYPES = ['float16', 'bfloat16'] as const;
type Half = (typeof DTYPES)[number];
const NORMS = ['layerNorm', 'rmsNorm'] as const;
/** The engine's Float16Array, where it has one. */
const Float16 = (globalThis as { Float16Array?: new (b: ArrayBuffer) => ArrayBufferView }).Float16Array;
const nodeMajor = Number(process.versions.node.split('.')[0]);

// Node 20 and 22 have no Float16Array, so its tests (here and in the error catalogue) are skipped
// there. Node 24 has one: there they must run, and a skip would hide that they did not.
it.skipIf(nodeMajor < 24)('Node 24 and later have Float16Array, so its tests run rather than skip', () => {
  expect(typeof Float16).toBe('function');
});

const runtimes: Record<string, LayerNormRuntime> = {};
beforeAll(async () => {
  runtimes.simd = await init({ backend: 'simd' });
  runtimes.scalar = await init({ backend: 'scalar' });
});

/** The position of a 16-bit pattern on the number line (sign-magnitude to a signed integer). */
const ordinal = (h: number) => (h & 0x8000 ? -(h & 0x7fff) : h);
const isNaNBits = (h: number, dtype: Half) =>
  dtype === 'float16' ? (h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0 : (h & 0x7f80) === 0x7f80 && (h & 0x7f) !== 0;

/**
 * Checks a 16-bit output against (a) the float32 path's output rounded to the type, which must be
 * identical, and (b) the correctly rounded reference's result rounded to the type, from which it may be at most
 * 1 ulp away (NaN where the oracle has NaN, and only there).
 */
function checkHalf(y: Uint16Array, float32Path: Float32Array, oracle: Float32Array, dtype: Half, where: string) {
  expect(bitDifference(y, float32ToHalfBits(float32Path, dtype)), `${where}: rounding the float32 path`).toBeNull();
  const exact = float32ToHalfBits(oracle, dtype);
  let worst = 0,
    at = -1,
    nanMismatch = -1;
  for (let i = 0; i < y.length; i++) {
    const nan = isNaNBits(y[i]!, dtype);
    if (nan !== Number.isNaN(oracle[i])) nanMismatch = i;
    if (nan) continue;
    const distance = Math.abs(ordinal(y[i]!) - ordinal(exact[i]!));
    if (distance > worst) [worst, at] = [distance, i];
  }
  expect(nanMismatch, `${where}: NaN in one of the output and the oracle only, at this index`).toBe(-1);
  expect(worst, `${where}: ulps from the exact result at ${at}`).toBeLessThanOrEqual(1);
}

describe.each(['simd', 'scalar'])('%s backend', (backend) => {
  describe.each(DTYPES)('%s', (dtype) => {
    describe.each(NORMS)('%s', (norm) => {
      const oracle = norm === 'layerNorm' ? layerNormReference : rmsNormReference;

      it.each(WIDTHS)('d = %i: the float32 path rounded, within 1 ulp of exact; new, caller and in-place out', (d) => {
        const rt = runtimes[backend]!;
        const rows = rowsFor(d);
        const bits = float32ToHalfBits(gpt2Like(rng(SEED + d), rows, d), dtype);
        const gamma = gaussian(rng(SEED + d + 1), d, 1, 0.2),
          beta = gaussian(rng(SEED + d + 2), d, 0, 0.1);
        const options = norm === 'layerNorm' ? { gamma, beta } : { gamma };
        const y = rt[norm](bits, d, { ...options, dtype });
        expect(y).toBeInstanceOf(Uint16Array);
        expect(y.length).toBe(bits.length);
        const widened = halfBitsToFloat32(bits, dtype);
        checkHalf(y, rt[norm](widened, d, options), oracle(bits, d, { ...options, dtype }), dtype, `d = ${d}`);
        const out = new Uint16Array(bits.length);
        expect(rt[norm](bits, d, { ...options, dtype, out })).toBe(out);
        expect(bitDifference(out, y)).toBeNull();
        const inPlace = bits.slice();
        expect(rt[norm](inPlace, d, { ...options, dtype, out: inPlace })).toBe(inPlace);
        expect(bitDifference(inPlace, y)).toBeNull();
      });

      it('the hard cases rounded to the type (huge values overflow float16 to Inf: those rows are NaN)', () => {
        const rt = runtimes[backend]!;
        for (const c of hardCases()) {
          const bits = float32ToHalfBits(c.x, dtype);
          const options =
            norm === 'layerNorm' ? { gamma: c.gamma, beta: c.beta, eps: c.eps } : { gamma: c.gamma, eps: c.eps };
          const y = rt[norm](bits, c.d, { ...options, dtype });
          const f32 = rt[norm](halfBitsToFloat32(bits, dtype), c.d, options);
          checkHalf(y, f32, oracle(bits, c.d, { ...options, dtype }), dtype, c.name);
        }
      });
    });

    it('layerNormStats and layerNormStages read the values the bits hold; stages end in the output', () => {
      const rt = runtimes[backend]!;
      const d = 769;
      const bits = float32ToHalfBits(gpt2Like(rng(SEED + 3), 6, d), dtype);
      const widened = halfBitsToFloat32(bits, dtype);
      const stats = rt.layerNormStats(bits, d, { dtype, eps: 1e-3 });
      const f32Stats = rt.layerNormStats(widened, d, { eps: 1e-3 });
      for (const k of ['mean', 'variance', 'rstd'] as const) expect(bitDifference(stats[k], f32Stats[k]), k).toBeNull();
      const y = rt.layerNorm(bits, d, { dtype, eps: 1e-3 });
      const st = rt.layerNormStages(bits, d, 4, { dtype, eps: 1e-3 });
      const f32 = rt.layerNormStages(widened, d, 4, { eps: 1e-3 });
      expect(st.dtype).toBe(dtype);
      expect(bitDifference(st.input, widened.subarray(4 * d, 5 * d))).toBeNull();
      for (const k of ['centered', 'normalized', 'scaled'] as const) expect(bitDifference(st[k], f32[k]), k).toBeNull();
      // The output stage holds the 16-bit output's value exactly.
      expect(bitDifference(st.output, halfBitsToFloat32(y.subarray(4 * d, 5 * d), dtype))).toBeNull();
      const rms = rt.rmsNormStages(bits, d, 4, { dtype });
      expect(
        bitDifference(rms.output, halfBitsToFloat32(rt.rmsNorm(bits, d, { dtype }).subarray(4 * d, 5 * d), dtype)),
      ).toBeNull();
    });

    it('createLayerNorm / createRmsNorm with the dtype, and allocate with the dtype: the same bits', () => {
      const rt = runtimes[backend]!;
      for (const d of [768, 70_000]) {
        const bits = float32ToHalfBits(gaussian(rng(SEED + 4), 2 * d, 1, 3), dtype);
        const gamma = gaussian(rng(SEED + 5), d, 1, 0.2),
          beta = gaussian(rng(SEED + 6), d);
        using ln = rt.createLayerNorm(d, { gamma, beta, dtype });
        using rms = rt.createRmsNorm(d, { gamma, dtype });
        expect([ln.dtype, rms.dtype, rms.norm]).toEqual([dtype, dtype, 'rmsnorm']);
        const expectedLn = rt.layerNorm(bits, d, { gamma, beta, dtype });
        const expectedRms = rt.rmsNorm(bits, d, { gamma, dtype });
        expect(bitDifference(ln.forward(bits), expectedLn)).toBeNull();
        expect(bitDifference(rms.forward(bits), expectedRms)).toBeNull();
        const out = new Uint16Array(bits.length);
        expect(ln.forward(bits, out)).toBe(out);
        expect(bitDifference(out, expectedLn)).toBeNull();
        using input = rt.allocate(2, d, { dtype });
        using output = rt.allocate(2, d, { dtype });
        expect([input.dtype, input.length]).toEqual([dtype, 2 * d]);
        expect(input.view).toBeInstanceOf(Uint16Array);
        expect(Array.from(input.view.subarray(0, 4))).toEqual([0, 0, 0, 0]); // zeroed
        input.set(bits);
        ln.forwardTensor(input, output);
        expect(bitDifference(output.toArray(), expectedLn)).toBeNull();
        rms.forwardTensor(input, input);
        expect(bitDifference(input.toArray(), expectedRms)).toBeNull();
      }
    });
  });

  // Skipped (and reported as skipped) where the engine has no Float16Array (Node 20, 22); it runs
  // on Node 24+. Chromium's is checked by tests/browser/float16.spec.ts.
  it.skipIf(!Float16)('a Float16Array: the same bits as its Uint16Array, back in a Float16Array', () => {
    const rt = runtimes[backend]!;
    const bits = float32ToHalfBits(gaussian(rng(SEED + 7), 3 * 768), 'float16');
    const x = new Float16!(bits.slice().buffer);
    const y = rt.layerNorm(x as never, 768) as unknown as ArrayBufferView;
    expect(y).toBeInstanceOf(Float16!);
    const yBits = new Uint16Array(y.buffer, y.byteOffset, 3 * 768);
    expect(bitDifference(yBits, rt.layerNorm(bits, 768, { dtype: 'float16' }))).toBeNull();
    const out = new Float16!(new ArrayBuffer(2 * 3 * 768));
    expect(rt.rmsNorm(x as never, 768, { out: out as never })).toBe(out);
  });
});

it('the SIMD and scalar builds are bit-identical for 16-bit activations', () => {
  const { simd, scalar } = runtimes as { simd: LayerNormRuntime; scalar: LayerNormRuntime };
  for (const dtype of DTYPES) {
    const cases = hardCases().map((c) => ({ ...c, bits: float32ToHalfBits(c.x, dtype) }));
    for (const d of WIDTHS) {
      const x = gpt2Like(rng(SEED + 8 + d), Math.min(rowsFor(d), 100), d);
      cases.push({ name: `d = ${d}`, d, eps: 1e-5, x, gamma: null, beta: null, bits: float32ToHalfBits(x, dtype) });
    }
    for (const c of cases) {
      for (const norm of NORMS) {
        const options =
          norm === 'layerNorm'
            ? { gamma: c.gamma, beta: c.beta, eps: c.eps, dtype }
            : { gamma: c.gamma, eps: c.eps, dtype };
        expect(
          bitDifference(simd[norm](c.bits, c.d, options), scalar[norm](c.bits, c.d, options)),
          `${dtype} ${norm} ${c.name}`,
        ).toBeNull();
      }
    }
  }
});
