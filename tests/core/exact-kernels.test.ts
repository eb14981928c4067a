// Both wasm backends against the exact oracle (tests/kit/exact.mjs) on seeded hard rows: every
// output within 6.5 scaled ULP of the exact answer, finite wherever it is finite, NaN exactly on the
// rows holding NaN or ±Infinity — for LayerNorm, the bias-free variant, RMSNorm and the fused
// residual (h = (x + r) + bias in float32) of each. fast-check draws the seeds; a failure prints
// the case's kind, shape and seed (replay: hardCase(seed, { kind, maxD, maxElements })).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { init, type LayerNormRuntime } from '../../dist/index.js';
import { contractViolation } from '../kit/contract.mjs';
import { exactLayerNorm, exactRmsNorm, residualSum } from '../kit/exact.mjs';
import { HARD_KINDS, hardCase, splitResidual, stepAway, type HardCase } from '../kit/hard-rows.mjs';

const SEED = 20261204;
const RUNS = 40;
const SIZE = { maxD: 1024, maxElements: 4096 };

const runtimes: Record<string, LayerNormRuntime> = {};
beforeAll(async () => {
  runtimes.simd = await init({ backend: 'simd' });
  runtimes.scalar = await init({ backend: 'scalar' });
});

type Variant = 'LayerNorm' | 'bias-free LayerNorm' | 'RMSNorm' | 'fused LayerNorm' | 'fused RMSNorm';
const VARIANTS: Variant[] = ['LayerNorm', 'bias-free LayerNorm', 'RMSNorm', 'fused LayerNorm', 'fused RMSNorm'];

/** The exact answer a variant must meet on hard case c, and the variant's call on a backend. */
function run(variant: Variant, c: HardCase) {
  const rms = variant.endsWith('RMSNorm');
  const beta = variant === 'bias-free LayerNorm' || rms ? null : c.beta;
  const options = rms ? { gamma: c.gamma, eps: c.eps } : { gamma: c.gamma, beta, eps: c.eps };
  let x = c.h,
    h = c.h,
    fused = {};
  if (variant.startsWith('fused')) {
    const { x: input, residual, bias } = splitResidual(c.seed, c.h, c.d);
    x = input;
    h = residualSum(input, residual, bias, c.d);
    fused = { residual, bias };
  }
  const exact = rms ? exactRmsNorm(h, c.d, options) : exactLayerNorm(h, c.d, options);
  const call = (rt: LayerNormRuntime) =>
    rms ? rt.rmsNorm(x, c.d, { ...options, ...fused }) : rt.layerNorm(x, c.d, { ...options, ...fused });
  return { beta, exact, call };
}

/** The first backend whose output breaks the contract on case c, with why; null when both meet it. */
function violation(variant: Variant, c: HardCase): string | null {
  const { beta, exact, call } = run(variant, c);
  for (const backend of ['simd', 'scalar']) {
    const why = contractViolation(call(runtimes[backend]!), exact, beta, c.d);
    if (why) return `${backend}, ${variant}, ${c.label} (ε = ${c.eps}): ${why}`;
  }
  return null;
}

describe.each(HARD_KINDS)('%s rows', (kind) => {
  it.each(VARIANTS)(`%s: ≤ 6.5 scaled ULP of the exact answer on both backends (${RUNS} seeds)`, (variant) => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7fffffff }), (seed) => {
        const why = violation(variant, hardCase(seed, { kind, ...SIZE }));
        if (why) throw new Error(why);
      }),
      { seed: SEED + HARD_KINDS.indexOf(kind), numRuns: RUNS, includeErrorInReport: true },
    );
  });
});

describe('rows the issues name', () => {
  /** Rows of `offset` with one element one float32 step above (issue 18 item 2). */
  function oneStepAbove(d: number, offset: number): Float32Array {
    const row = new Float32Array(d).fill(offset);
    row[d >> 1] = stepAway(offset, 1);
    return row;
  }

  it.each([
    [768, 1e-5],
    [3001, 1e-5],
    [60_000, 0],
    [200_000, 0],
  ])('near-constant rows at ±1e4, one element a step above, d = %i, ε = %d', (d, eps) => {
    for (const offset of [1e4, -1e4]) {
      const h = oneStepAbove(d, offset);
      const c = { d, h, gamma: null, beta: null, eps, label: `offset ${offset}, d = ${d}` } as HardCase;
      expect(violation('LayerNorm', c), c.label).toBeNull();
    }
  });

  it('γ·x̂ beyond float32 where γ·x̂ + β is not: γ = 3e38, β = −3e38, x = [−1, −1, −1, 3], ε = 0', () => {
    const gamma = new Float32Array(4).fill(3e38),
      beta = new Float32Array(4).fill(-3e38);
    const h = new Float32Array([-1, -1, -1, 3]);
    const exact = exactLayerNorm(h, 4, { gamma, beta, eps: 0 });
    expect(exact[3]).toBeCloseTo(2.196e38, -35);
    for (const backend of ['simd', 'scalar']) {
      const y = runtimes[backend]!.layerNorm(h, 4, { gamma, beta, eps: 0 });
      expect(contractViolation(y, exact, beta, 4), backend).toBeNull();
    }
  });

  it('subnormal x̂ times a large γ: RMSNorm of a subnormal row with ε = 1e-5 (LayerNorm meets it)', () => {
    // x̂ = x / √ε is subnormal in float32; rounded there, its error of up to 2^-150 times |γ| ≈ 1000
    // is hundreds of spacings of the output.
    const h = new Float32Array([8 * 2 ** -149, 0, 3 * 2 ** -149, -5 * 2 ** -149]);
    const gamma = new Float32Array([-680, 1000, 999, 777]);
    const c = { d: 4, h, gamma, beta: null, eps: 1e-5, label: 'subnormal row, γ ≈ 1000' } as HardCase;
    expect(violation('LayerNorm', c), c.label).toBeNull();
    expect(violation('RMSNorm', c), c.label).toBeNull();
  });

  it('an element equal to the mean centres to exactly 0: a row of 98 whose mean is one of its values', () => {
    // Pairs 0.75 ± k/64 and 0.75 twice: the sum is exact, and the mean, 0.75, is a value of the row.
    const h = new Float32Array(98);
    for (let k = 0; k < 48; k++) [h[2 * k], h[2 * k + 1]] = [0.75 + (k + 1) / 64, 0.75 - (k + 1) / 64];
    h[96] = h[97] = 0.75;
    for (const eps of [0, 1e-5]) {
      const c = { d: 98, h, gamma: null, beta: null, eps, label: `mean 0.75, ε = ${eps}` } as HardCase;
      expect(violation('LayerNorm', c), c.label).toBeNull();
      for (const backend of ['simd', 'scalar'])
        expect(runtimes[backend]!.layerNorm(h, 98, { eps })[96], backend).toBe(0);
    }
  });

  it('one element far below the others times a large γ: RMSNorm of [1, 1, 1, 1e-40], γ = 1000', () => {
    // The row is normal, so it takes the fast path; x̂ of the last element is subnormal there.
    const h = new Float32Array([1, 1, 1, 1e-40]);
    const gamma = new Float32Array(4).fill(1000);
    const c = { d: 4, h, gamma, beta: null, eps: 1e-5, label: 'a subnormal x̂ on a fast row' } as HardCase;
    expect(violation('RMSNorm', c), c.label).toBeNull();
    expect(violation('fused RMSNorm', c), c.label).toBeNull();
  });

  it('a gain so large that the fast path could not hold it: RMSNorm with γ = 3e38 on a row of 768', () => {
    const h = Float32Array.from({ length: 768 }, (_, j) => (j % 7) - 3 + 2 ** -20 * j);
    const gamma = new Float32Array(768).fill(3e38);
    gamma[5] = 1e-3;
    const c = { d: 768, h, gamma, beta: null, eps: 1e-5, label: 'RMSNorm, γ = 3e38' } as HardCase;
    expect(violation('RMSNorm', c), c.label).toBeNull();
  });

  it.each(HARD_KINDS)('%s: one row of 10^6', (kind) => {
    const c = hardCase(SEED, { kind, d: 1_000_000, rows: 1 });
    expect(violation('LayerNorm', c)).toBeNull();
  });
});
