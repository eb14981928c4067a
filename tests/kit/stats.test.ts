// The oracle's statistics and stages on rows whose values are known, beyond float32's range and
// where float64 sums would cancel.
import { describe, expect, it } from 'vitest';
import { exactLayerNorm } from './exact.mjs';
import { exactReference, exactStages, exactStats } from './stats.mjs';

describe('exactStats', () => {
  it('mean, variance and rstd of LayerNorm; mean square and rstd of RMSNorm', () => {
    const s = exactStats(new Float32Array([1, 2, 3, 4, 5, 5, 5, 5]), 4, { eps: 0.25 });
    expect([...s.mean]).toEqual([2.5, 5]);
    expect([...s.variance]).toEqual([1.25, 0]);
    expect(Math.abs(s.rstd[0]! * Math.sqrt(1.5) - 1)).toBeLessThan(2 ** -51);
    expect(s.rstd[1]).toBe(2);
    const r = exactStats(new Float32Array([3, 4]), 2, { norm: 'rmsnorm', eps: 0 });
    expect(r.meanSquare[0]).toBe(12.5);
    expect(Math.abs(r.rstd[0]! * Math.sqrt(12.5) - 1)).toBeLessThan(2 ** -51);
  });

  it('beyond float32 range; exact where float64 sums are not; NaN rows; 1/0 where σ² + ε is 0', () => {
    const tiny = exactStats(new Float32Array([1e-40, -1e-40]), 2, { eps: 0 });
    expect(tiny.variance[0]).toBe(Math.fround(1e-40) ** 2);
    expect(Math.abs(tiny.rstd[0]! * Math.fround(1e-40) - 1)).toBeLessThan(2 ** -51);
    // 2^24 + 1 cannot be a float32, but the mean of 2^24 and 2^24 + 2 is 2^24 + 1, and float64
    // holds it; with 2^60 beside, a float64 running sum loses the 1 and the ±2^60 cancel.
    const s = exactStats(new Float32Array([2 ** 60, 2 ** 24, -(2 ** 60), 2 ** 24 + 2]), 4, { eps: 0 });
    expect(s.mean[0]).toBe((2 ** 25 + 2) / 4);
    const z = exactStats(new Float32Array([7, 7, NaN, 1]), 2, { eps: 0 });
    expect([z.mean[0], z.variance[0], z.rstd[0]]).toEqual([7, 0, Infinity]);
    expect([z.mean[1], z.variance[1], z.rstd[1]].every(Number.isNaN)).toBe(true);
  });
});

describe('exactReference and exactStages', () => {
  it('the exact output with its statistics in one call', () => {
    const h = new Float32Array([1, 2, 3, 4, 1, 1, 1, 1]);
    const gamma = new Float32Array([1, 2, 3, 4]);
    const r = exactReference(h, 4, { gamma, eps: 0 });
    expect(r.y).toEqual(exactLayerNorm(h, 4, { gamma, eps: 0 }));
    expect([...r.mean]).toEqual([2.5, 1]);
    expect([...r.variance]).toEqual([1.25, 0]);
    expect(r.rstd[1]).toBe(Infinity);
    const rms = exactReference(h, 4, { norm: 'rmsnorm', eps: 0 });
    expect([...rms.meanSquare]).toEqual([7.5, 1]);
    expect(rms.y.subarray(4)).toEqual(new Float32Array([1, 1, 1, 1]));
  });

  it('the stages of one row: centred values exact where float64 would round them, x̂, γ ⊙ x̂', () => {
    // 2^24 and 2^24 + 2 around a mean of 2^24 + 1 beside ±2^60: x − μ is ±1 exactly.
    const h = new Float32Array([2 ** 60, 2 ** 24, -(2 ** 60), 2 ** 24 + 2]);
    const s = exactStages(h, 4, 0, { eps: 0, gamma: new Float32Array([1, 2, 3, 4]) });
    expect(s.mean).toBe((2 ** 25 + 2) / 4);
    expect([...s.centered]).toEqual([
      2 ** 60 - 2 ** 23 - 0.5,
      2 ** 24 - 2 ** 23 - 0.5,
      -(2 ** 60) - 2 ** 23 - 0.5,
      2 ** 23 + 1.5,
    ]);
    const t = exactStages(new Float32Array([0, 0, 4, 0, 0, 0, 0, 0]), 4, 0, {
      eps: 0,
      gamma: new Float32Array([1, 2, 3, 4]),
    });
    // x = [0, 0, 4, 0]: μ = 1, σ² = 3, x̂ = [−1, −1, 3, −1] / √3.
    expect(Math.abs(t.normalized[2]! - Math.sqrt(3))).toBeLessThan(4e-16);
    expect(Math.abs(t.scaled[1]! + 2 / Math.sqrt(3))).toBeLessThan(4e-16);
    const r = exactStages(new Float32Array([3, 4]), 2, 0, { norm: 'rmsnorm', eps: 0 });
    expect(r.meanSquare).toBe(12.5);
    expect('centered' in r).toBe(false);
    expect(() => exactStages(new Float32Array([1, NaN]), 2, 0)).toThrow(
      new RangeError('exactStages: row 0 holds NaN or ±Infinity'),
    );
  });
});
