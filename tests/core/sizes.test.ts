// Sizes at the edges of what wasm32 and int32 arithmetic hold: widths and row counts around 2^26,
// 2^28, 2^31 and 2^32 at every entry point. Each call either works or throws the documented
// RangeError (web/docs/errors.md), and a refused call writes nothing: a tensor the caller holds
// (often the call's own x, a view of wasm memory) keeps every value, and the heap is as it was.
// Shapes are stated where the API lets them be (allocate, createLayerNorm, d beside an empty x), so
// no test here holds more than about 1 GiB.
import { beforeAll, describe, expect, it } from 'vitest';
import type { LayerNormRuntime, WasmTensor } from '../../dist/index.js';
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
