// Sizes at the edges of what wasm32 and int32 arithmetic hold: widths and row counts around 2^26,
// 2^28, 2^31 and 2^32 at every entry point. Each call either works or throws the documented
// RangeError (web/docs/errors.md), and a refused call writes nothing: a tensor the caller holds
// (often the call's own x, a view of wasm memory) keeps every value, and the heap is as it was.
// Shapes are stated where the API lets them be (allocate, createLayerNorm, d beside an empty x), so
// no test here holds more than about 1 GiB.
import { beforeAll, describe, expect, it } from 'vitest';
import { halfBitsToFloat32, type LayerNormRuntime, type WasmTensor } from '../../dist/index.js';
import { bitDifference } from '../helpers/bits.js';
import { thrown } from '../helpers/errors.js';
import { freshRuntime } from '../helpers/heap-growth.mjs';

type Tensor = WasmTensor<Float32Array | Uint16Array>;

let rt: LayerNormRuntime;
beforeAll(async () => {
  rt = await freshRuntime();
});

/** A value for element i that a stray write would hardly repeat: bit patterns for 16-bit tensors. */
const patternAt = (i: number, half: boolean) => (half ? (i * 40503 + 7) & 0x7bff : (i % 1021) - 510.25);

function filled(rows: number, d: number, dtype: 'float32' | 'float16'): Tensor {
  const t = (dtype === 'float32' ? rt.allocate(rows, d) : rt.allocate(rows, d, { dtype })) as Tensor;
  const v = t.view;
  for (let i = 0; i < v.length; i++) v[i] = patternAt(i, dtype !== 'float32');
  return t;
}

/** The first element of a tensor filled by `filled` that no longer holds its value, or -1. */
function firstChanged(t: Tensor): number {
  const v = t.view;
  const half = v instanceof Uint16Array;
  for (let i = 0; i < v.length; i++) if (v[i] !== patternAt(i, half)) return i;
  return -1;
}

/**
 * `call` throws a RangeError whose message matches `message`, writes nothing into `canary` and
 * leaves the heap as it was; the runtime then answers a small call correctly.
 */
function refused(call: () => unknown, message: RegExp, canary: Tensor | null): void {
  const heap = rt.heapInUse();
  const e = thrown(call);
  expect(e, e.message).toBeInstanceOf(RangeError);
  expect(e.message).toMatch(message);
  if (canary) expect(firstChanged(canary), 'the first value of the caller’s tensor that changed').toBe(-1);
  expect(rt.heapInUse()).toBe(heap);
  const y = rt.layerNorm(new Float32Array([1, 3]), 2);
  expect(Array.from(y, (v) => Math.round(v * 1e4) / 1e4)).toEqual([-1, 1]);
}

describe('stages: one row whose six vectors of d floats pass 2^31 bytes', () => {
  // At d = 2^27 the vectors alone are 3 GiB: an int32 rounding of that size wrapped to a block of
  // one byte, and the row was written from there over the caller's memory.
  it.each(['float32', 'float16'] as const)(
    'layerNormStages and rmsNormStages at d = 2^27, x a %s tensor’s view: refused before anything is allocated or written',
    (dtype) => {
      const d = 2 ** 27;
      const x = filled(1, d, dtype);
      const size = dtype === 'float32' ? '3.50' : '3.25';
      const options = dtype === 'float32' ? {} : { dtype };
      for (const fn of ['layerNormStages', 'rmsNormStages'] as const) {
        const expected = new RegExp(
          `^${fn}: the row and its stages for d = 134217728 needs ${size} GiB of wasm memory, more than the module can ever hold \\(2\\.00 GiB\\)$`,
        );
        refused(() => rt[fn](x.view, d, 0, options), expected, x);
      }
      x.dispose();
    },
  );
});

const WIDTHS = [2 ** 26, 2 ** 28, 2 ** 31, 2 ** 32];
const MAX_WIDTH = 2 ** 28;
const widthError = (fn: string, d: number) =>
  new RegExp(`^${fn}: d must be at most 268435456 \\(one row must fit in wasm memory\\), got ${d}$`);
const cannotHold = (what: string, size: string) =>
  new RegExp(`^${what} needs ${size} of wasm memory, more than the module can ever hold \\(2\\.00 GiB\\)$`);

describe('every entry point at d = 2^26, 2^28, 2^31 and 2^32, stated beside an empty x', () => {
  // What each call returns for zero rows, where a width it takes lets it run.
  const empty = new Float32Array(0);
  const calls = (d: number): [string, () => number][] => [
    ['layerNorm', () => rt.layerNorm(empty, d, { mean: new Float64Array(0), rstd: new Float64Array(0) }).length],
    ['rmsNorm', () => rt.rmsNorm(empty, d, { residual: empty, sumOut: new Float32Array(0) }).length],
    ['layerNormStats', () => rt.layerNormStats(empty, d).rstd.length],
    ...(['createLayerNorm', 'createRmsNorm'] as const).map((fn): [string, () => number] => [
      fn,
      () => {
        const norm = rt[fn](d, { eps: 0.5 });
        const tensor = rt.allocate(0, d);
        norm.forwardTensor(tensor, tensor);
        const n = norm.forward(empty).length + tensor.view.length;
        tensor.dispose();
        norm.dispose();
        return n;
      },
    ]),
    [
      'allocate',
      () => {
        const t = rt.allocate(0, d, { dtype: 'bfloat16' });
        const n = t.toArray().length;
        t.dispose();
        return n;
      },
    ],
  ];

  it.each(WIDTHS)('d = %i: each works on zero rows, or refuses a d wider than 2^28', (d) => {
    const canary = filled(1, 4096, 'float32');
    for (const [fn, call] of calls(d)) {
      if (d <= MAX_WIDTH) expect(call(), fn).toBe(0);
      else refused(call, widthError(fn, d), canary);
    }
    for (const fn of ['layerNormStages', 'rmsNormStages'] as const) {
      // Zero rows have no row to show: refused for the row, or for d first.
      const message =
        d <= MAX_WIDTH ? new RegExp(`^${fn}: row must be an integer in \\[0, 0\\), got number 0$`) : widthError(fn, d);
      refused(() => rt[fn](empty, d, 0), message, canary);
    }
    expect(firstChanged(canary)).toBe(-1);
    canary.dispose();
  });

  it.each([2 ** 26, 2 ** 28, 2 ** 31, 2 ** 32])('stages of row %i of a small x: refused for the row', (row) => {
    const x = new Float32Array(12);
    for (const fn of ['layerNormStages', 'rmsNormStages'] as const) {
      refused(
        () => rt[fn](x, 3, row),
        new RegExp(`^${fn}: row must be an integer in \\[0, 4\\), got number ${row}$`),
        null,
      );
    }
  });
});

describe('allocate(rows, d): rows × d stated, around 2^26, 2^28, 2^31 and 2^32 and past 2^53 bytes', () => {
  it.each([
    [2 ** 26, 1],
    [2 ** 28, 1],
    [1, 2 ** 28],
  ])(
    'allocate(%i, %i, { dtype: float16 }) works: every value zeroed, the last one written and read back',
    (rows, d) => {
      const canary = filled(1, 4096, 'float32');
      const t = rt.allocate(rows, d, { dtype: 'float16' });
      const v = t.view;
      expect(v.length).toBe(rows * d);
      expect(v.byteLength).toBe(2 * rows * d);
      expect([v[0], v[rows * d - 1]]).toEqual([0, 0]);
      v[rows * d - 1] = 0x3c00;
      expect(t.toArray().at(-1)).toBe(0x3c00);
      t.dispose();
      expect(firstChanged(canary)).toBe(-1);
      canary.dispose();
    },
  );

  it.each([
    [2 ** 31, 1, 'float32', '8.00 GiB'],
    [2 ** 32, 1, 'float16', '8.00 GiB'],
    [2 ** 26, 16, 'float32', '4.00 GiB'],
    [2 ** 28, 2 ** 2, 'float16', '2.00 GiB'],
    [2 ** 26, 2 ** 26, 'float32', 'more than 2\\^53 bytes'],
    [2 ** 32, 2 ** 28, 'float16', 'more than 2\\^53 bytes'],
    [2 ** 31, 2 ** 28, 'bfloat16', 'more than 2\\^53 bytes'],
    [Number.MAX_SAFE_INTEGER, 2 ** 28, 'float32', 'more than 2\\^53 bytes'],
    [1e300, 2 ** 28, 'float32', 'more than 2\\^53 bytes'],
  ] as const)('allocate(%d, %d, %s): needs %s, refused', (rows, d, dtype, size) => {
    const canary = filled(1, 4096, 'float32');
    // 2^28 × 4 × 2 bytes is exactly 2 GiB: more than malloc can give beside anything else.
    const message =
      size === '2.00 GiB'
        ? /^allocate\(268435456, 4\) needs 2\.00 GiB of wasm memory, but only [\d.]+ [MG]iB more can be reserved \(limit 2\.00 GiB\); use smaller inputs or process them in parts$/
        : cannotHold(`allocate\\(${String(rows).replace('+', '\\+')}, ${d}\\)`, size);
    refused(() => rt.allocate(rows, d, { dtype }), message, canary);
    canary.dispose();
  });
});

describe('layerNormalization: shapes whose products pass 2^28, 2^31, 2^53 or a double', () => {
  const empty = new Float32Array(0);
  it('[0, 2^28] and [0, 2^26, 4] over the last 2^28 values: zero rows, and ONNX’s shapes', () => {
    for (const [shape, axis] of [
      [[0, 2 ** 28], -1],
      [[0, 2 ** 26, 4], 1],
    ] as const) {
      const r = rt.layerNormalization(empty, [...shape], { axis });
      expect([r.y.length, r.mean.length, r.invStdDev.length]).toEqual([0, 0, 0]);
      expect(r.statsShape).toEqual(axis === -1 ? [0, 1] : [0, 1, 1]);
    }
  });

  it.each([
    [
      [0, 2 ** 31],
      -1,
      /hold 2147483648 values, more than a row may have \(268435456: one row must fit in wasm memory\)$/,
    ],
    [
      [0, 2 ** 32, 2 ** 32],
      1,
      /\[4294967296, 4294967296\] \(axis 1\) hold more than 2\^53 values, more than a row may have/,
    ],
    [
      [2 ** 31, 2 ** 31],
      -1,
      /^layerNormalization: x must have length more than 2\^53 \(the values of shape \[2147483648, 2147483648\]\), got length 0$/,
    ],
    // A dimension 0 makes the shape empty, whatever the others: not Infinity × 0 = NaN values.
    [
      [1e200, 1e200, 0],
      -1,
      /^layerNormalization: the normalized dimensions \[0\] \(axis -1\) hold no values to normalize$/,
    ],
    [
      [1e200, 1e200, 0],
      0,
      /^layerNormalization: the normalized dimensions \[1e\+200, 1e\+200, 0\] \(axis 0\) hold no values to normalize$/,
    ],
    [
      [0, 1e200, 1e200],
      1,
      /^layerNormalization: the normalized dimensions \[1e\+200, 1e\+200\] \(axis 1\) hold more than 2\^53 values, more than a row may have/,
    ],
  ] as const)('%j, axis %i: refused with the documented RangeError', (shape, axis, message) => {
    refused(() => rt.layerNormalization(empty, [...shape], { axis }), message, null);
  });
});

describe('real rows and widths that fit: 2^26 and 2^28 rows, rows of 2^26 and 2^27 values', () => {
  /** Rows [from, to) of a 16-bit tensor's view, copied. */
  const rowsOf = (t: Tensor, d: number, from: number, to: number) => (t.view as Uint16Array).slice(from * d, to * d);

  it('rmsNorm over 2^26 rows of d = 1, layerNorm and a resident LayerNorm’s forward over 2^26 rows of d = 4, float16 views in place: each row as alone', () => {
    const canary = filled(1, 4096, 'float32');
    for (const [fn, d] of [
      ['rmsNorm', 1],
      ['layerNorm', 4],
    ] as const) {
      const rows = 2 ** 26;
      const t = filled(rows, d, 'float16');
      const options = { dtype: 'float16' as const, eps: 1e-3 };
      const head = rt[fn](rowsOf(t, d, 0, 1000), d, options);
      const tail = rt[fn](rowsOf(t, d, rows - 1000, rows), d, options);
      const v = t.view as Uint16Array;
      expect(rt[fn](v, d, { ...options, out: v })).toBe(v);
      expect(bitDifference(rowsOf(t, d, 0, 1000), head), fn).toBeNull();
      expect(bitDifference(rowsOf(t, d, rows - 1000, rows), tail), fn).toBeNull();
      t.dispose();
    }
    // A resident LayerNorm's forward over the same 2^26 rows of d = 4, in place.
    const rows = 2 ** 26;
    const t = filled(rows, 4, 'float16');
    const options = { dtype: 'float16' as const, eps: 1e-3, gamma: Float32Array.of(1, -1, 2, 0.5) };
    const head = rt.layerNorm(rowsOf(t, 4, 0, 1000), 4, options);
    const tail = rt.layerNorm(rowsOf(t, 4, rows - 1000, rows), 4, options);
    const ln = rt.createLayerNorm(4, options);
    const v = t.view as Uint16Array;
    expect(ln.forward(v, v)).toBe(v);
    expect(bitDifference(rowsOf(t, 4, 0, 1000), head)).toBeNull();
    expect(bitDifference(rowsOf(t, 4, rows - 1000, rows), tail)).toBeNull();
    ln.dispose();
    t.dispose();
    expect(firstChanged(canary)).toBe(-1);
    canary.dispose();
  });

  it('a resident RMSNorm’s forwardTensor over 2^28 rows of d = 1 (float16, in place): each row as alone', () => {
    const canary = filled(1, 4096, 'float32');
    const rows = 2 ** 28;
    const t = filled(rows, 1, 'float16');
    const norm = rt.createRmsNorm(1, { dtype: 'float16', gamma: Float32Array.of(-3) });
    const options = { dtype: 'float16' as const, gamma: Float32Array.of(-3) };
    const head = rt.rmsNorm(rowsOf(t, 1, 0, 1000), 1, options);
    const tail = rt.rmsNorm(rowsOf(t, 1, rows - 1000, rows), 1, options);
    norm.forwardTensor(t, t);
    expect(bitDifference(rowsOf(t, 1, 0, 1000), head)).toBeNull();
    expect(bitDifference(rowsOf(t, 1, rows - 1000, rows), tail)).toBeNull();
    norm.dispose();
    t.dispose();
    expect(firstChanged(canary)).toBe(-1);
    canary.dispose();
  });

  it('layerNormStats of one row of 2^27 float16 values (a tensor’s view): its float64 mean and variance', () => {
    const d = 2 ** 27;
    const x = filled(1, d, 'float16');
    const value = halfBitsToFloat32(
      Uint16Array.from({ length: 0x7c00 }, (_, i) => i),
      'float16',
    );
    let sum = 0;
    for (let i = 0; i < d; i++) sum += value[patternAt(i, true)]!;
    const mean = sum / d;
    let squares = 0;
    for (let i = 0; i < d; i++) squares += (value[patternAt(i, true)]! - mean) ** 2;
    const stats = rt.layerNormStats(x.view, d, { dtype: 'float16' });
    expect(Math.abs(stats.mean[0]! - mean) / mean).toBeLessThan(1e-9); // a sum in plain float64 here
    expect(Math.abs(stats.variance[0]! - squares / d) / (squares / d)).toBeLessThan(1e-9); // a sum in plain float64 here
    expect(firstChanged(x)).toBe(-1);
    x.dispose();
  });

  it('createLayerNorm(2^26, { gamma }) and its forwardTensor on a row of 2^26 floats, in place', () => {
    const d = 2 ** 26;
    const gamma = new Float32Array(d).fill(0.5);
    gamma[d - 1] = -2;
    const x = filled(1, d, 'float32');
    const { mean, rstd } = rt.layerNormStats(x.view, d, { eps: 0 });
    const norm = rt.createLayerNorm(d, { gamma, eps: 0 });
    norm.forwardTensor(x, x);
    const y = x.view as Float32Array;
    for (const j of [0, 1, 12345, d - 2, d - 1]) {
      const expected = (patternAt(j, false) - mean[0]!) * rstd[0]! * gamma[j]!;
      expect(Math.abs(y[j]! - expected), `y[${j}]`).toBeLessThan(1e-5 * Math.max(1, Math.abs(expected)));
    }
    norm.dispose();
    x.dispose();
  });

  it('layerNormStages of a row of 2^26 float16 values beside a 512 MiB tensor: the documented RangeError (46a), nothing written', () => {
    const hog = filled(2 ** 28, 1, 'float16');
    const x = filled(1, 2 ** 26, 'float16');
    const expected =
      /^layerNormStages: the row and its stages for d = 67108864 needs 1\.63 GiB of wasm memory, but only [\d.]+ [MG]iB more can be reserved \(limit 2\.00 GiB\); use smaller inputs or process them in parts$/;
    refused(() => rt.layerNormStages(x.view, 2 ** 26, 0, { dtype: 'float16' }), expected, hog);
    expect(firstChanged(x)).toBe(-1);
    x.dispose();
    hog.dispose();
  });
});

describe('the heap never passes malloc a size it would read modulo 2^32', () => {
  it('a size past 2 GiB is the RangeError of row 45; a fractional or negative one a defect, before malloc', () => {
    // White-box: the runtime's heap, which every allocation of the façade goes through.
    const heap = (rt as unknown as { heap: { allocate(bytes: number, what: string): number } }).heap;
    const before = rt.heapInUse();
    expect(() => heap.allocate(2 ** 32 + 8, 'a block')).toThrow(
      new RangeError('a block needs 4.00 GiB of wasm memory, more than the module can ever hold (2.00 GiB)'),
    );
    for (const bytes of [1.5, -8, NaN]) expect(thrown(() => heap.allocate(bytes, 'a block')).constructor).toBe(Error);
    expect(thrown(() => heap.allocate(-8, 'a block')).message).toBe(
      'a block: a size of -8 bytes, which is not a whole number of bytes: a defect',
    );
    expect(rt.heapInUse()).toBe(before);
  });
});
