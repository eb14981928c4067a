/**
 * Views of the runtime's chunk and residual chunk, kept between calls of one size: a new view per
 * call is a visible share of a one-row call. Memory growth detaches a kept view (its length reads
 * 0), which rebuilds it. `floats` and `halves` are kept small, to be inlined; #keep makes them.
 */
import type { Heap } from './heap.js';

export class ChunkViews {
  #f32x: Float32Array | null = null;
  #f32r: Float32Array | null = null;
  #u16x: Uint16Array | null = null;
  #u16r: Uint16Array | null = null;

  constructor(
    readonly heap: Heap,
    readonly x: number,
    readonly r: number,
  ) {}

  /** `count` floats of the heap at `at` (kept when `at` is the chunk or the residual chunk). */
  floats(at: number, count: number): Float32Array {
    const v = at === this.x ? this.#f32x : this.#f32r;
    return v !== null && v.length === count && (at === this.x || at === this.r) ? v : this.#keepFloats(at, count);
  }

  /** `count` 16-bit units of the heap at `at`, as floats(). */
  halves(at: number, count: number): Uint16Array {
    const v = at === this.x ? this.#u16x : this.#u16r;
    return v !== null && v.length === count && (at === this.x || at === this.r) ? v : this.#keepHalves(at, count);
  }

  #keepFloats(at: number, count: number): Float32Array {
    const v = this.heap.f32(at, count);
    if (at === this.x) this.#f32x = v;
    else if (at === this.r) this.#f32r = v;
    return v;
  }

  #keepHalves(at: number, count: number): Uint16Array {
    const v = this.heap.u16(at, count);
    if (at === this.x) this.#u16x = v;
    else if (at === this.r) this.#u16r = v;
    return v;
  }
}
