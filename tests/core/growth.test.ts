// Arguments that are views of wasm memory (a WasmTensor's `view`) through calls that grow it.
// Growth detaches every view of the memory, so a call that allocates must do so before it reads
// its arguments and find them again afterwards. Each test runs on a runtime of its own whose every
// allocation grows memory (tests/helpers/heap-growth.mjs), checks that memory did grow during the
// call (or that the call allocated nothing), that the result is bit-identical to the same call on
// plain arrays, and that heapInUse ends exactly where it started.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareOutputs, type LayerNormRuntime, type WasmTensor } from '../../dist/index.js';
import { gaussian, rng } from '../helpers/cases.js';
import { thrown } from '../helpers/errors.js';
import { freshRuntime, growOnAllocate, memoryBytes, type GrowOnAllocate } from '../helpers/heap-growth.mjs';

const WIDE = 70_000; // wider than the runtime's 65,536-float chunk: such rows need an allocation
const D = 768;

let rt: LayerNormRuntime;
let growth: GrowOnAllocate;
beforeEach(async () => {
  rt = await freshRuntime();
  growth = growOnAllocate(rt);
});
afterEach(() => growth.restore());

function differingBits(a: Float32Array, b: Float32Array): number {
  return compareOutputs(a, b, a.length || 1).differingBits;
}

/** A tensor holding a copy of data. */
function hold(data: Float32Array): WasmTensor {
  const t = rt.allocate(1, data.length);
  t.set(data);
  return t;
}

/** Runs call with every allocation growing memory, and checks that it did grow. */
function growing<T>(call: () => T): T {
  const before = growth.growths;
  const result = growth.during(call);
  expect(growth.growths, 'wasm memory grew during the call').toBeGreaterThan(before);
  return result;
}

/** Runs call with every allocation growing memory, and checks that it allocated nothing. */
function allocatingNothing<T>(call: () => T): T {
  const before = growth.growths;
  const result = growth.during(call);
  expect(growth.growths, 'the call allocated wasm memory').toBe(before);
  return result;
}

function data(seed: number, n: number, mean = 0, std = 1): Float32Array {
  return gaussian(rng(seed), n, mean, std);
}

describe('layerNorm with every argument a view of wasm memory', () => {
  for (const [name, d, rows] of [
    ['rows wider than the chunk', WIDE, 2],
    ['one chunk', D, 3],
    ['many chunks', D, 200],
  ] as const) {
    const expectGrowth = d === WIDE ? growing : allocatingNothing;

    it(`${name}: x, gamma, beta and out, into a separate out`, () => {
      const x = data(1, rows * d, 3, 2),
        gamma = data(2, d, 1, 0.2),
        beta = data(3, d);
      const tx = hold(x),
        tg = hold(gamma),
        tb = hold(beta),
        tout = rt.allocate(rows, d);
      const heap = rt.heapInUse();
      const passed = { x: tx.view, gamma: tg.view, beta: tb.view, out: tout.view };
      // The runtime's first call with gamma: nothing sized lazily may allocate here.
      const y = expectGrowth(() =>
        rt.layerNorm(passed.x, d, { gamma: passed.gamma, beta: passed.beta, out: passed.out }),
      );
      const expected = rt.layerNorm(x, d, { gamma, beta });
      expect(differingBits(tout.toArray(), expected)).toBe(0);
      expect(differingBits(tx.toArray(), x)).toBe(0);
      // The array returned is a live view of out, even where the out passed in was detached.
      expect(differingBits(y, expected)).toBe(0);
      expect(y.buffer).toBe(tout.view.buffer);
      if (d === WIDE) expect(passed.out.length).toBe(0);
      expect(rt.heapInUse()).toBe(heap);
    });

    it(`${name}: in place (out is x), and into an out that partly overlaps x`, () => {
      const x = data(4, rows * d, -1, 3),
        gamma = data(5, d, 1, 0.2);
      const tx = hold(x),
        tg = hold(gamma);
      const heap = rt.heapInUse();
      const v = tx.view;
      expectGrowth(() => rt.layerNorm(v, d, { gamma: tg.view, out: v }));
      const expected = rt.layerNorm(x, d, { gamma });
      expect(differingBits(tx.toArray(), expected)).toBe(0);
      // out starts 3 floats into x: writing a row must not overwrite input not yet read.
      const shifted = rt.allocate(1, rows * d + 3);
      shifted.set(x);
      const heap2 = rt.heapInUse();
      const whole = shifted.view;
      expectGrowth(() => rt.layerNorm(whole.subarray(0, rows * d), d, { gamma: tg.view, out: whole.subarray(3) }));
      expect(differingBits(shifted.toArray().subarray(3), expected)).toBe(0);
      expect(rt.heapInUse()).toBe(heap2);
      shifted.dispose();
      expect(rt.heapInUse()).toBe(heap);
    });
  }

  it('the common call (d up to 65,536, gamma and beta, into out) allocates no wasm memory at all', () => {
    // Also for the widest such row and a width not seen before: nothing is sized per call.
    for (const d of [3, 65_536, 1000]) {
      const x = data(d, 2 * d),
        gamma = data(d + 1, d),
        beta = data(d + 2, d),
        out = new Float32Array(2 * d);
      const heap = rt.heapInUse();
      allocatingNothing(() => rt.layerNorm(x, d, { gamma, beta, out }));
      expect(rt.heapInUse()).toBe(heap);
    }
  });
});

describe('the other entry points with views of wasm memory', () => {
  it('layerNormStats: x a view, narrow and wide rows, the same float64 values as for a plain array', () => {
    for (const [d, rows, grows] of [
      [D, 100, false],
      [WIDE, 2, true],
    ] as const) {
      const x = data(6, rows * d, 1e4, 1);
      const expected = rt.layerNormStats(x, d);
      const tx = hold(x);
      const heap = rt.heapInUse();
      const s = (grows ? growing : allocatingNothing)(() => rt.layerNormStats(tx.view, d));
      for (const k of ['mean', 'variance', 'rstd'] as const) {
        expect(s[k]).toBeInstanceOf(Float64Array);
        expect(Array.from(s[k])).toEqual(Array.from(expected[k]));
      }
      expect(rt.heapInUse()).toBe(heap);
    }
  });

  it('layerNormStages: x, gamma and beta views', () => {
    const x = data(7, 4 * D),
      gamma = data(8, D, 1, 0.2),
      beta = data(9, D);
    const expected = rt.layerNormStages(x, D, 2, { gamma, beta });
    const tx = hold(x),
      tg = hold(gamma),
      tb = hold(beta);
    const heap = rt.heapInUse();
    const st = growing(() => rt.layerNormStages(tx.view, D, 2, { gamma: tg.view, beta: tb.view }));
    expect(st).toEqual(expected);
    expect(rt.heapInUse()).toBe(heap);
  });

  for (const d of [D, WIDE]) {
    it(`createLayerNorm(${d}) with gamma and beta views, then forward with x and out views`, () => {
      const x = data(10, 2 * d, 5, 2),
        gamma = data(11, d, 1, 0.2),
        beta = data(12, d);
      const expected = rt.layerNorm(x, d, { gamma, beta });
      const tx = hold(x),
        tg = hold(gamma),
        tb = hold(beta),
        tout = rt.allocate(2, d);
      const heap = rt.heapInUse();
      const ln = growing(() => rt.createLayerNorm(d, { gamma: tg.view, beta: tb.view }));
      const y = (d === WIDE ? growing : allocatingNothing)(() => ln.forward(tx.view, tout.view));
      expect(differingBits(y, expected)).toBe(0);
      expect(differingBits(tout.toArray(), expected)).toBe(0);
      expect(differingBits(ln.forward(x), expected)).toBe(0);
      ln.dispose();
      expect(rt.heapInUse()).toBe(heap);
    });
  }

  it('WasmTensor.set copies from a view of another tensor, and from an overlapping view of itself', () => {
    const a = rt.allocate(1, 6),
      b = rt.allocate(1, 6);
    b.set([1, 2, 3, 4, 5, 6]);
    a.set(b.view);
    expect(Array.from(a.view)).toEqual([1, 2, 3, 4, 5, 6]);
    a.set(a.view.subarray(0, 5), 1); // a move by one, as memmove does
    expect(Array.from(a.view)).toEqual([1, 1, 2, 3, 4, 5]);
    a.set(a.view.subarray(2), 0);
    expect(Array.from(a.view)).toEqual([2, 3, 4, 5, 4, 5]);
  });
});

describe('views already detached before the call', () => {
  const DETACHED =
    'is a view of a detached ArrayBuffer (it was transferred, or it is a wasm memory view taken before memory grew); pass a live Float32Array';

  it('are refused by every entry point with the documented TypeError, leaving the heap as it was', () => {
    const t = hold(data(13, 2 * D));
    const g = hold(data(14, D));
    const staleX = t.view,
      staleG = g.view;
    growing(() => rt.allocate(1, 1).dispose());
    expect(staleX.length).toBe(0);
    const ln = rt.createLayerNorm(D);
    const heap = rt.heapInUse();
    const cases: [() => unknown, string][] = [
      [() => rt.layerNorm(staleX, D), `layerNorm: x ${DETACHED}`],
      [() => rt.layerNorm(t.view, D, { gamma: staleG }), `layerNorm: gamma ${DETACHED}`],
      [() => rt.layerNorm(t.view, D, { beta: staleG }), `layerNorm: beta ${DETACHED}`],
      [() => rt.layerNorm(t.view, D, { out: staleX }), `layerNorm: out ${DETACHED}`],
      [() => rt.layerNormStats(staleX, D), `layerNormStats: x ${DETACHED}`],
      [() => rt.layerNormStages(t.view, D, 0, { gamma: staleG }), `layerNormStages: gamma ${DETACHED}`],
      [() => rt.createLayerNorm(D, { beta: staleG }), `createLayerNorm: beta ${DETACHED}`],
      [() => ln.forward(staleX), `LayerNorm.forward: x ${DETACHED}`],
      [() => ln.forward(t.view, staleX), `LayerNorm.forward: out ${DETACHED}`],
      [() => g.set(staleG), `WasmTensor.set: data ${DETACHED}`],
    ];
    for (const [call, message] of cases) {
      const e = thrown(() => growth.during(call));
      expect(e).toBeInstanceOf(TypeError);
      expect(e.message).toBe(message);
      expect(rt.heapInUse()).toBe(heap);
    }
    ln.dispose();
  });
});

describe('real growth, as a user meets it (no forced growth)', () => {
  const N = 1 << 22; // 16 MiB per row: the call's own buffers outgrow the memory holding x

  it('layerNorm(t.view, 2^22, { gamma }) normalizes the view and leaks nothing', () => {
    const x = data(15, N, 2, 3),
      gamma = data(16, N, 1, 0.1);
    const t = hold(x);
    const heap = rt.heapInUse();
    const size = memoryBytes(rt);
    const view = t.view;
    const y = rt.layerNorm(view, N, { gamma });
    expect(memoryBytes(rt)).toBeGreaterThan(size);
    expect(view.length).toBe(0); // the view handed in was detached mid-call
    expect(rt.heapInUse()).toBe(heap);
    expect(differingBits(y, rt.layerNorm(x, N, { gamma }))).toBe(0);
  });

  it('createLayerNorm(2^22, { gamma: g.view }) keeps gamma and leaks nothing', () => {
    const gamma = data(17, N, 1, 0.1),
      x = data(18, N);
    const g = hold(gamma);
    const heap = rt.heapInUse();
    const view = g.view;
    const ln = rt.createLayerNorm(N, { gamma: view });
    expect(view.length).toBe(0); // the view handed in was detached mid-call
    const y = ln.forward(x);
    ln.dispose();
    expect(rt.heapInUse()).toBe(heap);
    expect(differingBits(y, rt.layerNorm(x, N, { gamma }))).toBe(0);
  });

  it('an allocation that fails leaves the heap and the views as they were', () => {
    const g = rt.allocate(1, 2 ** 28); // 1 GiB: a second GiB for gamma and beta cannot be had
    g.view.fill(0.5, 0, 8);
    const heap = rt.heapInUse();
    const e = thrown(() => rt.createLayerNorm(2 ** 28, { gamma: g.view }));
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(
      /^createLayerNorm: gamma and beta for d = 268435456 needs 2\.00 GiB of wasm memory, but only [\d.]+ MiB more can be reserved/,
    );
    expect(rt.heapInUse()).toBe(heap);
    expect(Array.from(g.view.subarray(0, 9))).toEqual([0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0]);
    g.dispose();
    const y = rt.layerNorm(new Float32Array([1, 3]), 2);
    expect(y[0]).toBeCloseTo(-1, 4);
    expect(y[1]).toBeCloseTo(1, 4);
  });
});
