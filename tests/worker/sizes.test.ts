// layernorm-wasm/worker at the sizes of tests/core/sizes.test.ts: widths around 2^26, 2^28, 2^31
// and 2^32 stated beside an empty x, a stages block past what wasm memory can hold, and 2^26 rows
// cut into slices. Each call works as on the main thread or rejects with its documented
// RangeError, and what the call only reads stays the caller's, unchanged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { init, type LayerNormRuntime } from '../../dist/index.js';
import { initWorker, type LayerNormWorker } from '../../dist/worker/index.js';
import { bitDifference } from '../helpers/bits.js';
import { rejection } from '../helpers/errors.js';

const widthError = (fn: string, d: number) =>
  new RegExp(`^${fn}: d must be at most 268435456 \\(one row must fit in wasm memory\\), got ${d}$`);

/** float16 bit patterns that a stray write would hardly repeat (finite, positive). */
const pattern = (n: number) => Uint16Array.from({ length: n }, (_, i) => (i * 40503 + 7) & 0x7bff);

let rt: LayerNormRuntime;
let w: LayerNormWorker;
beforeAll(async () => {
  rt = await init();
  w = await initWorker();
});
afterAll(() => w.dispose());

/** The call rejects with a RangeError saying `message`; the worker then answers a small call. */
async function rejected(call: Promise<unknown>, message: RegExp): Promise<void> {
  const e = await rejection(call);
  expect(e, e.message).toBeInstanceOf(RangeError);
  expect(e.message).toMatch(message);
  const y = await w.layerNorm(new Float32Array([1, 3]), 2);
  expect(Array.from(y, (v) => Math.round(v * 1e4) / 1e4)).toEqual([-1, 1]);
}

describe('widths stated beside an empty x', () => {
  it.each([2 ** 26, 2 ** 28, 2 ** 31, 2 ** 32])(
    'd = %i: each call works on zero rows, or rejects a d wider than 2^28',
    async (d) => {
      const empty = () => new Float32Array(0);
      const calls: [string, () => Promise<number>][] = [
        ['layerNorm', async () => (await w.layerNorm(empty(), d, { onProgress: () => {} })).length],
        ['rmsNorm', async () => (await w.rmsNorm(empty(), d)).length],
        ['layerNormStats', async () => (await w.layerNormStats(empty(), d)).mean.length],
        [
          'createLayerNorm',
          async () => {
            const ln = await w.createLayerNorm(d);
            const n = (await ln.forward(empty())).length;
            ln.dispose();
            return n;
          },
        ],
      ];
      for (const [fn, call] of calls) {
        if (d <= 2 ** 28) expect(await call(), fn).toBe(0);
        else await rejected(call(), widthError(fn, d));
      }
      const stages =
        d <= 2 ** 28
          ? /^layerNormStages: row must be an integer in \[0, 0\), got number 0$/
          : widthError('layerNormStages', d);
      await rejected(w.layerNormStages(empty(), d, 0), stages);
    },
  );
});

describe('large calls through the worker', () => {
  it('layerNormStages at d = 2^27 (float16): the documented RangeError (45a); x stays the caller’s, unchanged', async () => {
    const d = 2 ** 27;
    const x = pattern(d);
    await rejected(
      w.layerNormStages(x, d, 0, { dtype: 'float16' }),
      /^layerNormStages: the row and its stages for d = 134217728 needs 3\.25 GiB of wasm memory, more than the module can ever hold \(2\.00 GiB\)$/,
    );
    expect(bitDifference(x, pattern(d))).toBeNull();
  });

  it('rmsNorm over 2^26 rows of d = 1 (float16) in 64 slices: the main thread’s bits', async () => {
    const rows = 2 ** 26;
    const x = pattern(rows);
    const expected = rt.rmsNorm(x, 1, { dtype: 'float16', gamma: Float32Array.of(0.75) }) as Uint16Array;
    let slices = 0;
    const y = await w.rmsNorm(x.slice(), 1, {
      dtype: 'float16',
      gamma: Float32Array.of(0.75),
      onProgress: () => slices++,
    });
    expect(slices).toBe(64);
    expect(bitDifference(y as Uint16Array, expected)).toBeNull();
  });
});
