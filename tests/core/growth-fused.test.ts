// The issue-14 arguments as views of wasm memory (a WasmTensor's `view`) through calls that grow
// it, as tests/core/growth.test.ts does for x, gamma, beta and out: residual, sumOut, mean, rstd
// and out, float32 and 16-bit, for rows that fit the chunk (such calls allocate nothing) and rows
// wider than it (which allocate before they read their arguments, so memory grows mid-call). Each
// result is bit-identical to the same call on plain arrays, and heapInUse ends exactly where it
// started, after errors too.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { float32ToHalfBits, type LayerNormRuntime, type WasmTensor } from '../../dist/index.js';
import { bitDifference } from '../helpers/bits.js';
import { gaussian, rng } from '../helpers/cases.js';
import { thrown } from '../helpers/errors.js';
import { fillMemory, freshRuntime, grewDuring, growOnAllocate, type GrowOnAllocate } from '../helpers/heap-growth.mjs';

const WIDE = 70_000; // wider than the runtime's 65,536-float chunk
const SHAPES = [
  ['rows that fit the chunk', 768, 200],
  ['rows wider than the chunk', WIDE, 2],
] as const;

let rt: LayerNormRuntime;
let growth: GrowOnAllocate;
beforeEach(async () => {
  rt = await freshRuntime();
  growth = growOnAllocate(rt);
});
afterEach(() => growth.restore());

/** Runs call with every allocation growing memory; checks that memory grew iff `grows`. */
function during<T>(grows: boolean, call: () => T): T {
  const before = growth.growths;
  const result = growth.during(call);
  if (grows) expect(growth.growths, 'wasm memory grew during the call').toBeGreaterThan(before);
  else expect(growth.growths, 'the call allocated wasm memory').toBe(before);
  return result;
}

/** A tensor holding a copy of data (float32, or the bits of float16 values). */
function hold(data: Float32Array): WasmTensor<Float32Array>;
function hold(data: Uint16Array, dtype: 'float16'): WasmTensor<Uint16Array>;
function hold(data: Float32Array | Uint16Array, dtype?: 'float16'): WasmTensor<Float32Array> | WasmTensor<Uint16Array> {
  const t = dtype ? rt.allocate(1, data.length, { dtype }) : rt.allocate(1, data.length);
  t.set(data);
  return t;
}

/** A Float64Array of n entries in a tensor's memory (its view's buffer, 8-aligned). */
function f64In(t: WasmTensor<Float32Array>, n: number): Float64Array {
  const v = t.view;
  return new Float64Array(v.buffer, v.byteOffset, n);
}

describe.each(SHAPES)('%s (d = %i, %i rows)', (_name, d, rows) => {
  const grows = d === WIDE;
  const n = rows * d;
  const x = gaussian(rng(1), n, 3, 2),
    r = gaussian(rng(2), n),
    bias = gaussian(rng(3), d, 0, 0.1),
    gamma = gaussian(rng(4), d, 1, 0.2),
    beta = gaussian(rng(5), d);

  it('layerNorm: x, residual, bias, sumOut, mean, rstd and out all views of wasm memory', () => {
    const sums = new Float32Array(n),
      means = new Float64Array(rows),
      rstds = new Float64Array(rows);
    const expected = rt.layerNorm(x, d, { gamma, beta, residual: r, bias, sumOut: sums, mean: means, rstd: rstds });
    const tx = hold(x),
      tr = hold(r),
      tb = hold(bias),
      tsum = rt.allocate(rows, d),
      tout = rt.allocate(rows, d),
      tstats = rt.allocate(1, 4 * rows);
    const heap = rt.heapInUse();
    const views = {
      x: tx.view,
      residual: tr.view,
      bias: tb.view,
      sumOut: tsum.view,
      out: tout.view,
      mean: f64In(tstats, rows),
      rstd: new Float64Array(tstats.view.buffer, tstats.view.byteOffset + 8 * rows, rows),
    };
    const { x: vx, ...options } = views;
    const y = during(grows, () => rt.layerNorm(vx, d, { gamma, beta, ...options }));
    expect(bitDifference(y, expected)).toBeNull();
    expect(bitDifference(tout.toArray(), expected)).toBeNull();
    expect(bitDifference(tsum.toArray(), sums)).toBeNull();
    expect(bitDifference(f64In(tstats, rows), means)).toBeNull();
    expect(
      bitDifference(new Float64Array(tstats.view.buffer, tstats.view.byteOffset + 8 * rows, rows), rstds),
    ).toBeNull();
    expect(bitDifference(tx.toArray(), x)).toBeNull(); // inputs only read
    expect(bitDifference(tr.toArray(), r)).toBeNull();
    if (grows) expect(views.sumOut.length).toBe(0); // the views handed in were detached mid-call
    expect(rt.heapInUse()).toBe(heap);
  });

  it('rmsNorm: the residual stream updated in place (sumOut = residual) and rstd, views of wasm memory', () => {
    const sums = r.slice(),
      rstds = new Float64Array(rows);
    const expected = rt.rmsNorm(x, d, { gamma, residual: sums, sumOut: sums, rstd: rstds });
    const tx = hold(x),
      tr = hold(r),
      tstats = rt.allocate(1, 2 * rows);
    const heap = rt.heapInUse();
    const stream = tr.view;
    const y = during(grows, () =>
      rt.rmsNorm(tx.view, d, { gamma, residual: stream, sumOut: stream, rstd: f64In(tstats, rows) }),
    );
    expect(bitDifference(y, expected)).toBeNull();
    expect(bitDifference(tr.toArray(), sums)).toBeNull();
    expect(bitDifference(f64In(tstats, rows), rstds)).toBeNull();
    expect(rt.heapInUse()).toBe(heap);
  });

  it('in place with overlap: out = x, sumOut one row into the residual’s tensor', () => {
    const h = new Float32Array(n);
    const expected = rt.layerNorm(x, d, { residual: r, sumOut: h });
    const tx = hold(x);
    const tr = rt.allocate(1, n + d);
    tr.set(r);
    const heap = rt.heapInUse();
    const whole = tr.view;
    during(grows, () =>
      rt.layerNorm(tx.view, d, { out: tx.view, residual: whole.subarray(0, n), sumOut: whole.subarray(d) }),
    );
    expect(bitDifference(tx.toArray(), expected)).toBeNull();
    expect(bitDifference(tr.toArray().subarray(d), h)).toBeNull();
    expect(rt.heapInUse()).toBe(heap);
  });

  it('float16: x, residual, sumOut and out as Uint16Array views of 16-bit tensors', () => {
    const xb = float32ToHalfBits(x, 'float16'),
      rb = float32ToHalfBits(r, 'float16');
    const sums = new Uint16Array(n);
    const expected = rt.layerNorm(xb, d, { gamma, residual: rb, sumOut: sums, dtype: 'float16' });
    const tx = hold(xb, 'float16'),
      tr = hold(rb, 'float16'),
      tsum = rt.allocate(rows, d, { dtype: 'float16' }),
      tout = rt.allocate(rows, d, { dtype: 'float16' });
    const heap = rt.heapInUse();
    const y = during(grows, () =>
      rt.layerNorm(tx.view as Uint16Array, d, {
        gamma,
        residual: tr.view as Uint16Array,
        sumOut: tsum.view,
        out: tout.view,
        dtype: 'float16',
      }),
    );
    expect(y).toBeInstanceOf(Uint16Array);
    expect(bitDifference(y, expected)).toBeNull();
    expect(bitDifference(tout.toArray(), expected)).toBeNull();
    expect(bitDifference(tsum.toArray(), sums)).toBeNull();
    expect(rt.heapInUse()).toBe(heap);
  });

  it('layerNormStages and rmsNormStages with x, residual and bias views (they allocate: memory grows)', () => {
    const expected = rt.layerNormStages(x, d, rows - 1, { gamma, beta, residual: r, bias });
    const expectedRms = rt.rmsNormStages(x, d, 0, { gamma, residual: r, bias });
    const tx = hold(x),
      tr = hold(r),
      tb = hold(bias);
    const heap = rt.heapInUse();
    expect(
      during(true, () => rt.layerNormStages(tx.view, d, rows - 1, { gamma, beta, residual: tr.view, bias: tb.view })),
    ).toEqual(expected);
    expect(during(true, () => rt.rmsNormStages(tx.view, d, 0, { gamma, residual: tr.view, bias: tb.view }))).toEqual(
      expectedRms,
    );
    expect(rt.heapInUse()).toBe(heap);
  });

  it('layerNormalization with x and a { data, shape } gamma that view wasm memory', () => {
    const expected = rt.layerNormalization(x, [rows, d], { gamma: { data: gamma, shape: [1, d] }, beta });
    const tx = hold(x),
      tg = hold(gamma);
    const heap = rt.heapInUse();
    const got = during(grows, () =>
      rt.layerNormalization(tx.view, [rows, d], { gamma: { data: tg.view, shape: [1, d] }, beta }),
    );
    expect(bitDifference(got.y, expected.y)).toBeNull();
    expect(bitDifference(got.invStdDev, expected.invStdDev)).toBeNull();
    expect(rt.heapInUse()).toBe(heap);
  });

  it('a createRmsNorm with a gamma view, then forward with x and out views', () => {
    const expected = rt.rmsNorm(x, d, { gamma });
    const tg = hold(gamma),
      tx = hold(x),
      tout = rt.allocate(rows, d);
    const heap = rt.heapInUse();
    const norm = during(true, () => rt.createRmsNorm(d, { gamma: tg.view }));
    const y = during(grows, () => norm.forward(tx.view, tout.view));
    expect(bitDifference(y, expected)).toBeNull();
    expect(bitDifference(tout.toArray(), expected)).toBeNull();
    norm.dispose();
    expect(rt.heapInUse()).toBe(heap);
  });

  it('rejected calls with views (and views detached before the call) leave the heap exactly as it was', () => {
    const tx = hold(x),
      tr = hold(r),
      tstats = rt.allocate(1, 2 * rows + 2);
    const stale = tr.view;
    during(true, () => rt.allocate(1, 1).dispose());
    expect(stale.length).toBe(0);
    const heap = rt.heapInUse();
    const cases: [() => unknown, ErrorConstructor, string][] = [
      [
        () => rt.layerNorm(tx.view, d, { residual: stale }),
        TypeError,
        'layerNorm: residual is a view of a detached ArrayBuffer (it was transferred, or it is a wasm memory view taken before memory grew); pass a live Float32Array',
      ],
      [
        () => rt.layerNorm(tx.view, d, { mean: f64In(tstats, rows + 1) }),
        RangeError,
        `layerNorm: mean must have length ${rows} (one entry per row), got length ${rows + 1}`,
      ],
      [
        () => rt.rmsNorm(tx.view, d, { residual: tr.view, sumOut: tx.view, out: tx.view }),
        RangeError,
        'rmsNorm: sumOut and out must not share memory (both are outputs)',
      ],
      [
        () =>
          rt.layerNorm(tx.view, d, {
            out: tx.view,
            rstd: f64In(tstats, rows),
            mean: new Float64Array(tstats.view.buffer, tstats.view.byteOffset + 8, rows),
          }),
        RangeError,
        'layerNorm: mean and rstd must not share memory (both are outputs)',
      ],
      [
        () => rt.layerNormStages(tx.view, d, 0, { bias: tr.view.subarray(0, d) }),
        TypeError,
        'layerNormStages: bias is added with the residual: pass residual too (got bias Float32Array(' + d + ') alone)',
      ],
    ];
    for (const [call, type, message] of cases) {
      const e = thrown(() => growth.during(call));
      expect(e.constructor).toBe(type);
      expect(e.message).toBe(message);
      expect(rt.heapInUse()).toBe(heap);
    }
    expect(bitDifference(tx.toArray(), x)).toBeNull();
  });
});

// 16-bit rows are staged through float32; the core's own stack staging holds 4096 floats, and a
// wider row would make it allocate. Rows up to the chunk are staged in the runtime's reserved area
// instead, so with wasm memory full to the last 4 KiB none of these calls grows it.
describe('16-bit rows wider than the core’s 4096-float staging, within the chunk (d = 16384)', () => {
  const d = 16_384,
    rows = 3;
  const gamma = gaussian(rng(6), d, 1, 0.2),
    beta = gaussian(rng(7), d);
  for (const dtype of ['float16', 'bfloat16'] as const) {
    const x = float32ToHalfBits(gaussian(rng(8), rows * d, 3, 2), dtype),
      r = float32ToHalfBits(gaussian(rng(9), rows * d), dtype);

    it(`${dtype}: layerNorm, the fused residual, rmsNorm and a resident forwardTensor allocate nothing`, () => {
      const expected = {
        plain: rt.layerNorm(x, d, { gamma, beta, dtype }),
        fused: rt.layerNorm(x, d, { gamma, residual: r, dtype }),
        rms: rt.rmsNorm(x, d, { gamma, dtype }),
      };
      const norm = rt.createLayerNorm(d, { gamma, beta, dtype });
      const input = rt.allocate(rows, d, { dtype }),
        output = rt.allocate(rows, d, { dtype });
      input.set(x);
      fillMemory(rt);
      const got: Record<string, Uint16Array> = {};
      expect(grewDuring(rt, () => (got.plain = rt.layerNorm(x, d, { gamma, beta, dtype }) as Uint16Array))).toBe(false);
      expect(grewDuring(rt, () => (got.fused = rt.layerNorm(x, d, { gamma, residual: r, dtype }) as Uint16Array))).toBe(
        false,
      );
      expect(grewDuring(rt, () => (got.rms = rt.rmsNorm(x, d, { gamma, dtype }) as Uint16Array))).toBe(false);
      expect(grewDuring(rt, () => norm.forwardTensor(input, output))).toBe(false);
      expect(bitDifference(got.plain!, expected.plain)).toBeNull();
      expect(bitDifference(got.fused!, expected.fused)).toBeNull();
      expect(bitDifference(got.rms!, expected.rms)).toBeNull();
      expect(bitDifference(output.toArray(), expected.plain)).toBeNull();
    });
  }
});
