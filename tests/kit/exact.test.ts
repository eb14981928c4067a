// The exact oracle on rows whose exact answers are known by hand: representable results, ties
// between two float32s (to even), the overflow threshold, subnormal results and the sign of zero,
// near-constant rows at offsets of either sign up to d = 10^6; and its first guess against its
// exact comparisons alone on random hard rows. Its statistics: stats.test.ts.
import { describe, expect, it } from 'vitest';
import { stepAway } from './hard-rows.mjs';
import { rng } from './random.mjs';
import { compareToExact, exactLayerNorm, exactRmsNorm, F32_MAX, residualSum, sulp } from './exact.mjs';

/** A row of k values `high` and d − k values `low`: x̂ = ±√((d − k) / k)^±1, rational for the right k. */
function twoLevel(d: number, k: number, low: number, high: number): Float32Array {
  const x = new Float32Array(d).fill(low);
  x.fill(high, 0, k);
  return x;
}

/** 4096 ones and one zero: μ = 4096/4097, σ = 64/4097, so x̂ is exactly 1/64 and −64 (ε = 0). */
const ROW_64 = twoLevel(4097, 4096, 0, 1);
/** γ = 1 and β = 0 except at the last column (the zero, x̂ = −64). */
function lastColumn(g: number, b: number): { gamma: Float32Array; beta: Float32Array } {
  const gamma = new Float32Array(4097).fill(1),
    beta = new Float32Array(4097);
  gamma[4096] = g;
  beta[4096] = b;
  return { gamma, beta };
}

describe('exactLayerNorm on rows with known answers', () => {
  it('a row whose exact x̂ is 1/64 gives exactly 0.015625 and −64', () => {
    const y = exactLayerNorm(ROW_64, 4097, { eps: 0 });
    expect(y[0]).toBe(0.015625);
    expect(y[4095]).toBe(0.015625);
    expect(y[4096]).toBe(-64);
    const scaled = exactLayerNorm(ROW_64, 4097, {
      eps: 0,
      gamma: new Float32Array(4097).fill(3),
      beta: new Float32Array(4097).fill(0.25),
    });
    expect(scaled[7]).toBe(0.296875);
    expect(scaled[4096]).toBe(-191.75);
  });

  it('the same at an offset of either sign, one float32 step apart (near-constant rows)', () => {
    for (const offset of [1e4, -1e4, 3e38, -1e-38, 1e6].map(Math.fround)) {
      const step = stepAway(offset, 1) - offset;
      const row = twoLevel(4097, 4096, offset, offset + step);
      const y = exactLayerNorm(row, 4097, { eps: 0 });
      expect([y[0], y[4096]], `offset ${offset}`).toEqual([0.015625, -64]);
      const flipped = twoLevel(4097, 4096, offset + step, offset);
      expect([...exactLayerNorm(flipped, 4097, { eps: 0 }).subarray(4095)], `offset ${offset}`).toEqual([
        -0.015625, 64,
      ]);
    }
  });

  it('d = 10^6: 980,000 elements one step above 20,000 at ±1e4 give x̂ = ±1/7 and ∓7; with γ = 7, ±1 and ∓49', () => {
    for (const sign of [1, -1]) {
      const low = sign * 1e4;
      const row = twoLevel(1_000_000, 980_000, low, stepAway(low, 1));
      const y = exactLayerNorm(row, 1_000_000, { eps: 0, gamma: new Float32Array(1_000_000).fill(7) });
      expect([y[0], y[979_999], y[980_000], y[999_999]]).toEqual([1, 1, -49, -49]);
      expect(y.every((v, j) => v === (j < 980_000 ? 1 : -49))).toBe(true);
    }
  });

  it('ties go to the even float32: 1 + 2^-6 + 2^-24 down, 1 + 2^-6 + 3·2^-24 up', () => {
    // γ·(1/64) + 1 with γ = 1 + 2^-18 is 1 + 2^-6 + 2^-24, halfway between 1 + 2^-6 (even) and the next.
    const at = (g: number) => {
      const gamma = new Float32Array(4097).fill(g);
      return exactLayerNorm(ROW_64, 4097, { eps: 0, gamma, beta: new Float32Array(4097).fill(1) })[0];
    };
    expect(at(1 + 2 ** -18)).toBe(1 + 2 ** -6);
    expect(at(1 + 2 ** -17 + 2 ** -18)).toBe(1 + 2 ** -6 + 2 ** -22);
    // Just beside the ties: not a tie, so the nearest.
    expect(at(Math.fround(1 + 2 ** -18 + 2 ** -23))).toBe(1 + 2 ** -6 + 2 ** -23);
  });

  it('overflow as IEEE rounds: 2^128 − 2^103 (the midpoint above F32_MAX) is +Infinity, F32_MAX stays', () => {
    // At the last column x̂ = −64: y = −64·γ + β = 2^127 + β.
    const y = (b: number) => exactLayerNorm(ROW_64, 4097, { eps: 0, ...lastColumn(-(2 ** 121), b) })[4096];
    expect(y(2 ** 127 - 2 ** 103)).toBe(Infinity);
    expect(y(2 ** 127 - 2 ** 104)).toBe(F32_MAX);
    expect(y(-(2 ** 127))).toBe(0);
  });

  it('γ·x̂ beyond float32 while γ·x̂ + β is not: finite (issue 18 item 4)', () => {
    const gamma = new Float32Array(4).fill(3e38),
      beta = new Float32Array(4).fill(-3e38);
    const y = exactLayerNorm(new Float32Array([-1, -1, -1, 3]), 4, { eps: 0, gamma, beta });
    // x̂ = −1/√3 three times and √3: y = 3e38 (√3 − 1) and 3e38 (−1/√3 − 1), which overflows.
    const estimate = Math.fround(3e38) * (Math.sqrt(3) - 1); // within 2^-50 relative
    expect(Math.abs(y[3]! - estimate)).toBeLessThanOrEqual(2 ** (127 - 24) * 1.001); // half a spacing
    expect(y[3]).toBeCloseTo(2.196e38, -35);
    expect(y[0]).toBe(-Infinity);
  });

  it('subnormal results, their ties and the sign of zero', () => {
    const y = (g: number) => exactLayerNorm(ROW_64, 4097, { eps: 0, gamma: new Float32Array(4097).fill(g) })[0];
    expect(y(2 ** -140)).toBe(2 ** -146);
    expect(y(3 * 2 ** -144)).toBe(2 ** -148); // 1.5·2^-149: the tie goes to 2·2^-149
    expect(Object.is(y(2 ** -144), 0)).toBe(true); // 2^-150: the tie goes to +0
    expect(Object.is(y(-(2 ** -144)), -0)).toBe(true); // −2^-150 rounds to −0
    // An exact zero is +0 whatever the signs that produced it.
    const zero = exactLayerNorm(ROW_64, 4097, { eps: 0, ...lastColumn(2 ** -10, 2 ** -4) })[4096];
    expect(Object.is(zero, 0)).toBe(true);
  });

  it('constant rows give β, for ε = 0 too; rows with NaN or ±Infinity give NaN and leave the others alone', () => {
    const beta = new Float32Array([0.5, -2, 0]);
    for (const eps of [0, 1e-5]) {
      for (const v of [0, 1e6, -3e38, 1e-45]) {
        expect([...exactLayerNorm(new Float32Array(3).fill(v), 3, { eps, beta })]).toEqual([0.5, -2, 0]);
      }
    }
    const y = exactLayerNorm(new Float32Array([1, NaN, 3, 1, 2, 3, Infinity, 0, 0]), 3, { eps: 0 });
    expect([...y.subarray(0, 3)].every(Number.isNaN)).toBe(true);
    expect([...y.subarray(6)].every(Number.isNaN)).toBe(true);
    expect(y[4]).toBe(0);
    expect(y[5]).toBe(Math.fround(Math.sqrt(1.5)));
  });

  it('ε and subnormal rows: ε = 0 normalizes a subnormal row to ±1; ε = 1e-5 crushes it', () => {
    expect([...exactLayerNorm(new Float32Array([1e-40, -1e-40]), 2, { eps: 0 })]).toEqual([1, -1]);
    const y = exactLayerNorm(new Float32Array([1e-40, -1e-40]), 2, { eps: 1e-5 });
    expect(y[0]).toBe(Math.fround(Math.fround(1e-40) / Math.sqrt(1e-5 + Math.fround(1e-40) ** 2)));
    // Every element of ±1 rows with ε = 3: x̂ = ±1/2.
    expect([...exactLayerNorm(new Float32Array([1, -1, 1, -1]), 4, { eps: 3 })]).toEqual([0.5, -0.5, 0.5, -0.5]);
  });
});

describe('exactRmsNorm', () => {
  it('rows with known answers: ±1 rows, scaled rows, zero rows (also with ε = 0), NaN rows', () => {
    expect([...exactRmsNorm(new Float32Array([1, -1, 1, -1]), 4, { eps: 0 })]).toEqual([1, -1, 1, -1]);
    expect([...exactRmsNorm(new Float32Array([3e38, -3e38]), 2, { eps: 0 })]).toEqual([1, -1]);
    expect([
      ...exactRmsNorm(new Float32Array([2, 2, 2, 2]), 4, { eps: 12, gamma: new Float32Array([1, 2, 3, -4]) }),
    ]).toEqual([0.5, 1, 1.5, -2]);
    // x = 1 once and 0 sixty-three times more than 4095: mean(x²) = 1/4096, x̂ = 64 and 0.
    const row = new Float32Array(4096);
    row[9] = 1;
    const y = exactRmsNorm(row, 4096, { eps: 0 });
    expect(y[9]).toBe(64);
    expect(y.every((v, j) => v === (j === 9 ? 64 : 0))).toBe(true);
    for (const eps of [0, 1e-6]) expect([...exactRmsNorm(new Float32Array(5), 5, { eps })]).toEqual([0, 0, 0, 0, 0]);
    expect([...exactRmsNorm(new Float32Array([1, -Infinity]), 2)].every(Number.isNaN)).toBe(true);
  });

  it('takes no β', () => {
    const y = exactRmsNorm(new Float32Array([1, -1]), 2, { eps: 0, beta: new Float32Array([5, 5]) } as object);
    expect([...y]).toEqual([1, -1]);
  });
});

describe('the first guess agrees with exact comparisons alone', () => {
  /** Rows where rounding is delicate: cancellation between γ·x̂ and β, offsets, huge and tiny values. */
  function delicate(seed: number, d: number) {
    const rand = rng(seed);
    const pick = <T>(a: T[]): T => a[Math.floor(rand() * a.length)]!;
    const scale = pick([1, 1e-40, 1e-20, 1e19, 1e30, 3e37]);
    const offset = pick([0, 1e4, -1e4, 1e6 * scale]);
    const x = new Float32Array(d).map(() => offset + scale * (rand() - 0.5) * (rand() < 0.2 ? 1e-6 : 1));
    const gamma = new Float32Array(d).map(() => pick([1, -3, 1e30, 2 ** -140]) * (0.5 + rand()));
    // β chosen to cancel γ·x̂ where it can: the rounding then needs more than the guess holds.
    const plain = exactLayerNorm(x, d, { eps: 0, gamma });
    const beta = new Float32Array(d).map((_, j) => (rand() < 0.5 ? -plain[j]! : rand() - 0.5));
    for (let j = 0; j < d; j++) if (!Number.isFinite(beta[j]!)) beta[j] = 0;
    return { x, gamma, beta, eps: pick([0, 1e-5, 1e-300]) };
  }

  // About a third of these elements need the exact comparisons (measured by hand with a counter).
  it('40 delicate rows (seeds 1…40): LayerNorm and RMSNorm, bit for bit, signs of zero included', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const d = [1, 2, 3, 17, 64][seed % 5]!;
      const c = delicate(seed * 7919, d);
      const options = { gamma: c.gamma, beta: c.beta, eps: c.eps };
      const guessed = exactLayerNorm(c.x, d, options);
      const exact = exactLayerNorm(c.x, d, { ...options, guessless: true });
      expect(sameBits(guessed, exact), `seed ${seed}`).toBe(true);
      const rms = exactRmsNorm(c.x, d, { gamma: c.gamma, eps: c.eps });
      const rmsExact = exactRmsNorm(c.x, d, { gamma: c.gamma, eps: c.eps, guessless: true });
      expect(sameBits(rms, rmsExact), `seed ${seed}: RMSNorm`).toBe(true);
    }
  });
});

describe('the helpers', () => {
  it('sulp is the error in float32 spacings of max(|e − β|, |β|); compareToExact counts what differs', () => {
    const exact = new Float32Array([1, 1, 0, NaN]);
    const y = new Float32Array([1 + 2 ** -23, 1, 2 ** -149, NaN]);
    expect(sulp(y, exact, null, 4)).toBe(1);
    // Beside β = 1024 an error of 2^-149 is measured in the spacing of 1024; beside β = 3 with
    // e = 7 (γ·x̂ = 4), in the spacing of 4, not of |e − β| + |β| = 7.
    expect(sulp(new Float32Array([2 ** -149]), new Float32Array([0]), new Float32Array([1024]), 1)).toBe(
      2 ** -149 / 2 ** -13,
    );
    expect(sulp(new Float32Array([7 + 2 ** -21]), new Float32Array([7]), new Float32Array([3]), 1)).toBe(1);
    const lost = compareToExact(new Float32Array([Infinity, NaN, -0]), new Float32Array([1, NaN, 0]), null, 3);
    expect(lost).toEqual({ maxSulp: 0, worst: 2, lost: 1, nonFinite: 1, differing: 1 });
  });

  it('residualSum forms (x + r) + bias in float32, each sum rounded', () => {
    // In float64, (2^24 + 1) + 1 would be 2^24 + 2; in float32 each + rounds back to 2^24 (ties to even).
    const h = residualSum(
      new Float32Array([1, 2 ** 24]),
      new Float32Array([2 ** -24, 1]),
      new Float32Array([2 ** -24, 1]),
      2,
    );
    expect([...h]).toEqual([1, 2 ** 24]);
  });

  it('refuses what it cannot answer exactly', () => {
    expect(() => exactLayerNorm(new Float32Array(3), 2)).toThrow(
      new RangeError('exactLayerNorm: h.length 3 is not a multiple of d = 2'),
    );
    expect(() => exactLayerNorm([0.1, 0.2], 2)).toThrow(
      new TypeError('exactLayerNorm: h[0] = 0.1 is not a float32 value'),
    );
    expect(() => exactLayerNorm(new Float32Array(2), 2, { eps: -1 })).toThrow(
      new RangeError('exactLayerNorm: eps must be a finite number >= 0, got -1'),
    );
    expect(() => exactLayerNorm(new Float32Array(2), 2, { gamma: new Float32Array([1, Infinity]) })).toThrow(
      new RangeError('exactLayerNorm: gamma[1] = Infinity is not finite'),
    );
  });
});

const sameBits = (a: Float32Array, b: Float32Array) => Buffer.from(a.buffer).equals(Buffer.from(b.buffer));
