// The quick checks of the one-token path (web/src/checks/quick-check.ts) against the full checks
// (web/src/checks/call.ts): on generated calls, good and bad, every call the quick checks accept the full
// checks accept the same way (the same CheckedNorm, field by field), and the common calls are
// accepted quickly. Seeded; a failure prints the call.
import { describe, expect, it } from 'vitest';
import { checkNormCall } from '../../dist/checks/call.js';
import { quickCheck } from '../../dist/checks/quick-check.js';
import { rng } from '../../web/shared/rng.mjs';

const SEED = 20261219;
const d = 4;
const rows = 3;
const n = rows * d;

/** One argument slot's candidates: right ones and every kind of wrong one. */
function candidates() {
  const shared = new ArrayBuffer(4 * n * 4);
  const f32 = (len: number) => new Float32Array(len);
  const u16 = (len: number) => new Uint16Array(len);
  return {
    x: [
      f32(n),
      u16(n),
      f32(n + 1),
      new Float64Array(n),
      f32(0),
      new Float32Array(shared, 0, n),
      [1, 2, 3, 4],
      new Proxy(f32(n), {}),
      Object.create(Float32Array.prototype),
    ],
    d: [d, 2, 3, 2.5, 0, -1, '4', 2 ** 40],
    dtype: [undefined, 'float32', 'float16', 'bfloat16', 'float64', null],
    gamma: [undefined, null, f32(d), f32(d + 1), u16(d), 'g'],
    beta: [undefined, null, f32(d), f32(1)],
    eps: [undefined, 1e-5, 0, -1, Infinity, NaN, '1e-5'],
    out: [undefined, null, f32(n), u16(n), f32(n - 1), new Float32Array(shared, 0, n), new Float32Array(shared, 4, n)],
    residual: [undefined, null, f32(n), u16(n), f32(3)],
    bias: [undefined, null, f32(d), f32(2)],
    sumOut: [undefined, null, f32(n), u16(n), new Float32Array(shared, 4 * n * 2, n)],
    mean: [
      undefined,
      null,
      new Float64Array(rows),
      new Float64Array(rows + 1),
      new Float64Array(shared, 4 * n * 3, rows),
      new Proxy(new Float64Array(rows), {}),
    ],
    rstd: [undefined, null, new Float64Array(rows), new Float32Array(rows), new Float64Array(shared, 4 * n * 3, rows)],
  };
}

describe('quickCheck accepts only what checkNormCall accepts, as it accepts it', () => {
  it('on 20,000 generated calls, LayerNorm and RMSNorm', () => {
    const r = rng(SEED);
    const c = candidates();
    const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)]!;
    let quick = 0;
    for (let i = 0; i < 20000; i++) {
      const norm = r() < 0.5 ? 'layernorm' : 'rmsnorm';
      const x = pick(c.x),
        width = pick(c.d);
      const options: Record<string, unknown> = {};
      for (const key of [
        'dtype',
        'gamma',
        'beta',
        'eps',
        'out',
        'residual',
        'bias',
        'sumOut',
        'mean',
        'rstd',
      ] as const) {
        // Mostly left out or right, so that accepted calls are common.
        if (r() < 0.6) continue;
        options[key] = pick(c[key] as unknown[]);
      }
      const args = r() < 0.05 ? [x, width, undefined] : [x, width, options];
      let q;
      try {
        q = quickCheck('f', norm, args[0], args[1], args[2]);
      } catch (e) {
        expect.fail(`call ${i} (seed ${SEED}): the quick checks threw ${(e as Error).message}`);
      }
      if (q === null) continue;
      quick++;
      let full;
      try {
        full = checkNormCall('f', norm, args[0], args[1], args[2]);
      } catch (e) {
        expect.fail(`call ${i} (seed ${SEED}): quick accepted, full threw ${(e as Error).message}`);
      }
      for (const [k, v] of Object.entries(full!)) {
        expect(Object.is((q as unknown as Record<string, unknown>)[k], v), `call ${i} (seed ${SEED}): field ${k}`).toBe(
          true,
        );
      }
    }
    expect(quick, 'calls the quick checks took').toBeGreaterThan(200);
  });

  it('takes the common calls: plain, statistics, residual, 16-bit', () => {
    const x = new Float32Array(n),
      out = new Float32Array(n),
      g = new Float32Array(d),
      b = new Float32Array(d);
    const h = new Uint16Array(n);
    expect(quickCheck('f', 'layernorm', x, d, { gamma: g, beta: b, eps: 1e-5, out })).not.toBeNull();
    expect(quickCheck('f', 'layernorm', x, d, undefined)).not.toBeNull();
    expect(
      quickCheck('f', 'layernorm', x, d, { gamma: g, out, mean: new Float64Array(rows), rstd: new Float64Array(rows) }),
    ).not.toBeNull();
    expect(
      quickCheck('f', 'layernorm', x, d, { residual: new Float32Array(n), bias: b, sumOut: new Float32Array(n), out }),
    ).not.toBeNull();
    expect(quickCheck('f', 'rmsnorm', h, d, { gamma: g, dtype: 'bfloat16', out: new Uint16Array(n) })).not.toBeNull();
    // And leaves the unusual ones to the full checks.
    expect(quickCheck('f', 'layernorm', x, d, { out: x.subarray(1) })).toBeNull();
    expect(quickCheck('f', 'rmsnorm', x, d, { beta: b })).toBeNull();
  });
});
