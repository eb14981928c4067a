// Calls on data kept in wasm memory when that memory is full to its 2 GiB limit: a call that needs
// more memory than is left says so with the RangeError of every allocation (errors.md #46), not
// the core's untyped status, and once memory is freed the same call works.
import { beforeAll, describe, expect, it } from 'vitest';
import { float32ToHalfBits, type LayerNormRuntime } from '../../dist/index.js';
import { freshRuntime } from '../helpers/heap-growth.mjs';
import { DTYPE_CODES } from '../../dist/checks/activations.js';
import { formOf } from '../../dist/core/wire-call.js';
import { NORMS, normWire } from '../../dist/norms.js';
import { gaussian, rng } from '../kit/random.mjs';

/** Allocates every byte wasm memory can still hold, down to 16-byte blocks; returns them to free. */
function exhaust(module: { _malloc(n: number): number }): number[] {
  const blocks: number[] = [];
  for (let size = 1 << 26; size >= 16;) {
    const p = module._malloc(size);
    if (p === 0) size >>= 1;
    else blocks.push(p);
  }
  return blocks;
}

describe('a 16-bit row wider than a chunk, with wasm memory full', () => {
  const d = 70_000;
  const rows = 2;
  let rt: LayerNormRuntime;
  let module: {
    _malloc(n: number): number;
    _free(p: number): void;
    _lnw_normalize(...args: number[]): number;
    HEAPU8: Uint8Array;
  };
  // A runtime of its own: its memory grows to the 2 GiB limit here and stays so.
  beforeAll(async () => {
    rt = (await freshRuntime()) as unknown as LayerNormRuntime;
    module = (rt as unknown as { heap: { module: typeof module } }).heap.module;
  });

  it('forwardTensor is refused with a RangeError saying what it needs; after freeing, the same call is right', () => {
    const values = gaussian(rng(77), rows * d, 3, 2);
    const bits = float32ToHalfBits(values, 'bfloat16');
    const gamma = gaussian(rng(78), d, 1, 0.1);
    const ln = rt.createLayerNorm(d, { gamma, dtype: 'bfloat16' });
    const input = rt.allocate(rows, d, { dtype: 'bfloat16' });
    const output = rt.allocate(rows, d, { dtype: 'bfloat16' });
    input.set(bits);
    const blocks = exhaust(module);
    expect(module.HEAPU8.length).toBe(2 ** 31);
    let error: unknown;
    try {
      ln.forwardTensor(input, output);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toMatch(
      /^LayerNorm\.forwardTensor: the float32 staging of a row of d = 70000 values needs 273\.4 KiB of wasm memory, but only 0 bytes more can be reserved \(limit 2\.00 GiB\); use smaller inputs or process them in parts$/,
    );
    for (const p of blocks) module._free(p);
    ln.forwardTensor(input, output);
    // Bit for bit the plain call on the same bits (whose accuracy the numerics suites prove).
    const expected = rt.layerNorm(bits, d, { gamma, dtype: 'bfloat16' });
    expect(output.toArray()).toEqual(expected);
    input.dispose();
    output.dispose();
    ln.dispose();
  });

  it('the core’s own refusal, no memory for a row’s staging, comes back as a RangeError saying so; after freeing, the same call runs', () => {
    // The façade passes staging on every path, so the core is called here as the bindings export
    // it, without: a bfloat16 row wider than the core's stack staging, in place, scratch 0.
    const heap = (rt as unknown as { heap: { check(status: number, fn: string): void } }).heap;
    const row = module._malloc(2 * d);
    module.HEAPU8.fill(0x3f, row, row + 2 * d);
    // A bfloat16 LayerNorm using no areas (areas 0): so no scratch.
    const form = formOf(normWire(NORMS.layernorm), DTYPE_CODES.bfloat16);
    const call = () => module._lnw_normalize(form, 1, d, row, row, 0, 0, 1e-5, 0);
    const blocks = exhaust(module);
    const status = call();
    expect(status).toBe(14);
    let error: unknown;
    try {
      heap.check(status, 'layerNorm');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toBe(
      'layerNorm: the float32 staging of a 16-bit row needs wasm memory, but no more can be reserved; use smaller inputs or process them in parts',
    );
    for (const p of blocks) module._free(p);
    expect(call()).toBe(0);
    // A row of one repeated value normalizes to exactly β = 0.
    expect(new Uint16Array(module.HEAPU8.buffer, row, d).every((b) => b === 0)).toBe(true);
    module._free(row);
  });
});
