// The package's references, layerNormReference and rmsNormReference, are the exact answer rounded
// once: bit for bit the exact oracle's (tests/kit/exact.mjs, which shares no code with them) on
// every kind of hard row of the test kit, for LayerNorm, bias-free, RMSNorm, the fused residual and
// 16-bit activations; on ties, the overflow threshold, subnormal results and the sign of zero; on
// rows of 10^6. A failure prints the case's kind, shape and seed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { float32ToHalfBits, halfBitsToFloat32, layerNormReference, rmsNormReference } from '../../dist/index.js';
import { exactLayerNorm, exactRmsNorm, F32_MAX, residualSum } from '../kit/exact.mjs';
import { HARD_KINDS, hardCase, splitResidual, stepAway, type HardCase } from '../kit/hard-rows.mjs';

const SEED = 20261205;
const RUNS = 30;
const SIZE = { maxD: 1024, maxElements: 4096 };

/** null when a and b hold the same bits, else the first element where they differ. */
function bitDifference(a: Float32Array, b: Float32Array): string | null {
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length),
    ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  if (a.length !== b.length) return `length ${a.length} vs ${b.length}`;
  for (let i = 0; i < a.length; i++)
    if (ua[i] !== ub[i])
      return `[${i}]: ${a[i]} (0x${ua[i]!.toString(16)}) vs exact ${b[i]} (0x${ub[i]!.toString(16)})`;
  return null;
}

type Variant = 'LayerNorm' | 'bias-free LayerNorm' | 'RMSNorm' | 'fused LayerNorm' | 'fused RMSNorm';
const VARIANTS: Variant[] = ['LayerNorm', 'bias-free LayerNorm', 'RMSNorm', 'fused LayerNorm', 'fused RMSNorm'];

function difference(variant: Variant, c: HardCase): string | null {
  const rms = variant.endsWith('RMSNorm');
  const beta = variant === 'bias-free LayerNorm' || rms ? null : c.beta;
  const options = rms ? { gamma: c.gamma, eps: c.eps } : { gamma: c.gamma, beta, eps: c.eps };
  let got: Float32Array, h: Float32Array;
  if (variant.startsWith('fused')) {
    const { x, residual, bias } = splitResidual(c.seed, c.h, c.d);
    h = residualSum(x, residual, bias, c.d);
    const o = { ...options, residual, bias };
    got = rms ? rmsNormReference(x, c.d, o) : layerNormReference(x, c.d, o);
  } else {
    h = c.h;
    got = rms ? rmsNormReference(h, c.d, options) : layerNormReference(h, c.d, options);
  }
  const exact = rms ? exactRmsNorm(h, c.d, options) : exactLayerNorm(h, c.d, options);
  const why = bitDifference(got, exact);
  return why && `${variant}, ${c.label} (ε = ${c.eps}): ${why}`;
}

describe.each(HARD_KINDS)('%s rows', (kind) => {
  it.each(VARIANTS)(`%s: the exact answer rounded once, bit for bit (${RUNS} seeds)`, (variant) => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7fffffff }), (seed) => {
        const why = difference(variant, hardCase(seed, { kind, ...SIZE }));
        if (why) throw new Error(why);
      }),
      { seed: SEED + HARD_KINDS.indexOf(kind), numRuns: RUNS, includeErrorInReport: true },
    );
  });
});

it.each(['float16', 'bfloat16'] as const)('%s activations: the exact answer for the values the bits hold', (dtype) => {
  for (let seed = 0; seed < 40; seed++) {
    const c = hardCase(seed, SIZE);
    const bits = float32ToHalfBits(c.h, dtype);
    const held = halfBitsToFloat32(bits, dtype);
    const o = { gamma: c.gamma, eps: c.eps };
    expect(
      bitDifference(
        layerNormReference(bits, c.d, { ...o, beta: c.beta, dtype }),
        exactLayerNorm(held, c.d, { ...o, beta: c.beta }),
      ),
      c.label,
    ).toBeNull();
    expect(bitDifference(rmsNormReference(bits, c.d, { ...o, dtype }), exactRmsNorm(held, c.d, o)), c.label).toBeNull();
    // Fused: h = (x + r) + bias in float32, rounded once to the activations' type.
    const { x, residual, bias } = splitResidual(seed, held, c.d);
    const [xb, rb] = [float32ToHalfBits(x, dtype), float32ToHalfBits(residual, dtype)];
    const h = halfBitsToFloat32(
      float32ToHalfBits(residualSum(halfBitsToFloat32(xb, dtype), halfBitsToFloat32(rb, dtype), bias, c.d), dtype),
      dtype,
    );
    expect(
      bitDifference(rmsNormReference(xb, c.d, { ...o, residual: rb, bias, dtype }), exactRmsNorm(h, c.d, o)),
      `${c.label}, fused`,
    ).toBeNull();
  }
});

describe('rows whose exact answer is known', () => {
  /** 4096 ones and one zero: x̂ is exactly 1/64 and −64 (ε = 0). */
  const row64 = new Float32Array(4097).fill(1);
  row64[4096] = 0;
  const fill = (v: number) => new Float32Array(4097).fill(v);

  it('x̂ = 1/64 comes out as 0.015625, not 0.015624999 (issue 18 item 3)', () => {
    const y = layerNormReference(row64, 4097, { eps: 0 });
    expect([y[0], y[4096]]).toEqual([0.015625, -64]);
    expect(rmsNormReference(new Float32Array([1, -1, 1, -1]), 4, { eps: 0 })).toEqual(new Float32Array([1, -1, 1, -1]));
  });

  it('ties go to even: 1 + 2^-6 + 2^-24 down to 1 + 2^-6, 1 + 2^-6 + 3·2^-24 up to 1 + 2^-6 + 2^-22', () => {
    const at = (g: number) => layerNormReference(row64, 4097, { eps: 0, gamma: fill(g), beta: fill(1) })[0];
    expect(at(1 + 2 ** -18)).toBe(1 + 2 ** -6);
    expect(at(1 + 2 ** -17 + 2 ** -18)).toBe(1 + 2 ** -6 + 2 ** -22);
  });

  it('the overflow threshold 2^128 − 2^103 is +Infinity; just below it, F32_MAX', () => {
    const y = (b: number) => {
      const gamma = fill(1),
        beta = fill(0);
      gamma[4096] = -(2 ** 121); // y = −64·γ + β = 2^127 + β at the last column
      beta[4096] = b;
      return layerNormReference(row64, 4097, { eps: 0, gamma, beta })[4096];
    };
    expect(y(2 ** 127 - 2 ** 103)).toBe(Infinity);
    expect(y(2 ** 127 - 2 ** 104)).toBe(F32_MAX);
  });

  it('γ·x̂ beyond float32 where γ·x̂ + β is not: finite, as exact (issue 18 item 4)', () => {
    const o = { gamma: new Float32Array(4).fill(3e38), beta: new Float32Array(4).fill(-3e38), eps: 0 };
    const h = new Float32Array([-1, -1, -1, 3]);
    const y = layerNormReference(h, 4, o);
    expect(bitDifference(y, exactLayerNorm(h, 4, o))).toBeNull();
    expect(y[3]).toBeCloseTo(2.196e38, -35);
  });

  it('subnormal results and their ties; an exact zero is +0, a negative that rounds to zero −0', () => {
    const y = (g: number) => layerNormReference(row64, 4097, { eps: 0, gamma: fill(g) })[0];
    expect(y(3 * 2 ** -144)).toBe(2 ** -148);
    expect(Object.is(y(2 ** -144), 0)).toBe(true);
    expect(Object.is(y(-(2 ** -144)), -0)).toBe(true);
    const cancel = layerNormReference(row64, 4097, { eps: 0, gamma: fill(2 ** -10), beta: fill(-(2 ** -16)) });
    expect(Object.is(cancel[0], 0)).toBe(true); // 2^-10 / 64 − 2^-16
  });

  it('near-constant rows of 10^6 at ±1e4, one element a step above, equal the exact answer', () => {
    for (const offset of [1e4, -1e4]) {
      const h = new Float32Array(1_000_000).fill(offset);
      h[123_456] = stepAway(offset, 1);
      const exact = exactLayerNorm(h, 1_000_000, { eps: 0 });
      expect(bitDifference(layerNormReference(h, 1_000_000, { eps: 0 }), exact), `offset ${offset}`).toBeNull();
    }
  });

  it('a γ or β that is NaN or infinite has no real answer: double arithmetic’s NaN or ±Infinity there', () => {
    const h = new Float32Array([1, 3, 2, 3, 3, 3]); // x̂ of the first row: −1.22, 1.22, 0
    const y = layerNormReference(h, 3, {
      eps: 0,
      gamma: new Float32Array([NaN, Infinity, 1]),
      beta: new Float32Array([0, 0, -Infinity]),
    });
    expect([...y]).toEqual([NaN, Infinity, -Infinity, NaN, NaN, -Infinity]); // the constant row: 0 · ∞
  });
});
