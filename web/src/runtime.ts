/**
 * The runtime: one instantiated wasm module and the public operations on it. Inputs are copied
 * into wasm memory in chunks that stay cache-resident, normalized in place there, and copied
 * out, so large inputs need no large wasm allocation and the result never aliases wasm memory.
 *
 * Any argument may itself be a view of wasm memory (a WasmTensor's `view`), and any allocation may
 * grow that memory, which detaches such views. So the common calls allocate nothing (their buffers
 * are reserved once), and a call that must allocate does so before it reads its arguments, handing
 * them to Heap.allocate to be re-derived.
 */
import { DisposedError, describe } from './errors.js';
import { type CallArrays, Heap } from './heap.js';
import type {
  Backend,
  LayerNorm,
  LayerNormCallOptions,
  LayerNormOptions,
  LayerNormRuntime,
  LayerNormStages,
  LayerNormStats,
  WasmTensor,
} from './types.js';
import {
  checkCall,
  checkElements,
  checkEps,
  checkFloat32Array,
  checkNumbers,
  checkOptions,
  checkOut,
  checkParam,
  checkRows,
  checkWidth,
  numberError,
  partiallyOverlaps,
} from './validate.js';
import type { LayerNormModule } from './wasm/module.js';

/** Floats per chunk (256 KiB): small enough to stay in L2 between copy-in, kernel and copy-out. */
const CHUNK_FLOATS = 1 << 16;
/** Rows whose statistics (three float64 each) fit in the scratch area of 2 · CHUNK_FLOATS floats. */
const STATS_ROWS = Math.floor((8 * CHUNK_FLOATS) / 24);

interface Params {
  gamma: number; // heap address or 0
  beta: number;
}

const NO_PARAMS: Params = { gamma: 0, beta: 0 };

export class Runtime implements LayerNormRuntime {
  readonly kernel: string;
  readonly #heap: Heap;
  // Reserved for the runtime's lifetime, one block: the chunk (CHUNK_FLOATS floats), then a scratch
  // area of 2 · CHUNK_FLOATS floats for a stateless call's gamma and beta, or for statistics.
  readonly #chunk: number;
  readonly #scratch: number;
  // The chunk's first floats as a view, kept between calls of one size: a new view per call costs a
  // visible share of a one-row call. Memory growth detaches it (length 0), which rebuilds it.
  #chunkView: Float32Array | null = null;
  readonly #finalizer = new FinalizationRegistry<number>((ptr) => this.#heap.free(ptr));

  constructor(
    module: LayerNormModule,
    readonly backend: Backend,
  ) {
    this.#heap = new Heap(module);
    this.kernel = module._kernelName();
    this.#chunk = this.#heap.allocate(3 * CHUNK_FLOATS * 4, 'the runtime chunk and scratch buffers');
    this.#scratch = this.#chunk + CHUNK_FLOATS * 4;
  }

  layerNorm(x: Float32Array, d: number, options?: LayerNormCallOptions): Float32Array {
    const fn = 'layerNorm';
    const { rows, gamma, beta, eps, options: o } = checkCall(fn, x, d, options);
    const out = checkOut(fn, o.out, x.length);
    if (rows === 0) return out ?? new Float32Array(0);
    if (d > CHUNK_FLOATS) return this.normalizeWide(fn, { x, out, gamma, beta }, rows, d, null, eps);
    return this.normalizeInto(x, out, rows, d, this.#stageParams(d, gamma, beta), eps);
  }

  layerNormStats(x: Float32Array, d: number, options?: { eps?: number }): LayerNormStats {
    const fn = 'layerNormStats';
    checkFloat32Array(fn, 'x', x);
    checkWidth(fn, d);
    const rows = checkRows(fn, x, d);
    const eps = checkEps(fn, checkOptions(fn, options).eps);
    const mean = new Float64Array(rows),
      variance = new Float64Array(rows),
      rstd = new Float64Array(rows);
    if (rows === 0) return { mean, variance, rstd };
    const heap = this.#heap;
    const wide = d > CHUNK_FLOATS;
    // Narrow rows go through the chunk with their statistics in the scratch area; a wide row needs a
    // block of its own (statistics first, 8-aligned, then the row), allocated before x is read.
    const args = { x };
    const block = wide ? heap.allocate(24 + 4 * d, `${fn}: a row of d = ${d} floats`, args) : 0;
    try {
      const stats = wide ? block : this.#scratch;
      const rowsAt = wide ? block + 24 : this.#chunk;
      const perChunk = wide ? 1 : Math.min(Math.floor(CHUNK_FLOATS / d), STATS_ROWS);
      this.#inChunks(args.x, rows, d, rowsAt, perChunk, (first, n) => {
        heap.check(heap.module._layerNormStats(rowsAt, n, d, eps, stats), fn);
        const s = heap.f64(stats, n * 3);
        for (let r = 0; r < n; r++) {
          mean[first + r] = s[3 * r];
          variance[first + r] = s[3 * r + 1];
          rstd[first + r] = s[3 * r + 2];
        }
      });
    } finally {
      heap.free(block);
    }
    return { mean, variance, rstd };
  }

  layerNormStages(x: Float32Array, d: number, row: number, options?: LayerNormOptions): LayerNormStages {
    const fn = 'layerNormStages';
    checkFloat32Array(fn, 'x', x);
    checkWidth(fn, d);
    const rows = checkRows(fn, x, d);
    if (typeof row !== 'number' || !Number.isInteger(row) || row < 0 || row >= rows) {
      throw numberError(fn, 'row', `an integer in [0, ${rows})`, row);
    }
    const o = checkOptions(fn, options);
    const args: CallArrays = { gamma: checkParam(fn, 'gamma', o.gamma, d), beta: checkParam(fn, 'beta', o.beta, d) };
    const eps = checkEps(fn, o.eps);
    const input = x.slice(row * d, (row + 1) * d);
    const heap = this.#heap;
    // x, gamma, beta, four stage vectors (floats), then the stats (three doubles, 8-aligned).
    const floats = 7 * d + ((7 * d) % 2);
    const block = heap.allocate(floats * 4 + 24, `${fn}: the row and its stages for d = ${d}`, args);
    const { gamma, beta } = args;
    try {
      const xPtr = block,
        gPtr = block + 4 * d,
        bPtr = block + 8 * d,
        stages = block + 12 * d;
      const stats = block + floats * 4;
      heap.write(xPtr, input);
      if (gamma) heap.write(gPtr, gamma);
      if (beta) heap.write(bPtr, beta);
      heap.check(heap.module._layerNormStages(xPtr, d, gamma ? gPtr : 0, beta ? bPtr : 0, eps, stats, stages), fn);
      const s = heap.f64(stats, 3);
      const v = heap.f32(stages, 4 * d);
      return {
        row,
        d,
        eps,
        mean: s[0],
        variance: s[1],
        rstd: s[2],
        input,
        centered: v.slice(0, d),
        normalized: v.slice(d, 2 * d),
        scaled: v.slice(2 * d, 3 * d),
        output: v.slice(3 * d, 4 * d),
      };
    } finally {
      heap.free(block);
    }
  }

  createLayerNorm(d: number, options?: LayerNormOptions): LayerNorm {
    const fn = 'createLayerNorm';
    checkWidth(fn, d);
    const o = checkOptions(fn, options);
    const gamma = checkParam(fn, 'gamma', o.gamma, d);
    const beta = checkParam(fn, 'beta', o.beta, d);
    const eps = checkEps(fn, o.eps);
    return new ResidentLayerNorm(this, d, gamma, beta, eps);
  }

  allocate(rows: number, d: number): WasmTensor {
    const fn = 'allocate';
    checkWidth(fn, d);
    if (typeof rows !== 'number' || !Number.isInteger(rows) || rows < 0) {
      throw numberError(fn, 'rows', 'an integer >= 0', rows);
    }
    return new Tensor(this, rows, d);
  }

  heapInUse(): number {
    return this.#heap.module._heapInUse();
  }

  // ---- internals shared with ResidentLayerNorm and Tensor

  get heap(): Heap {
    return this.#heap;
  }

  track(owner: object, ptr: number, token: object): void {
    this.#finalizer.register(owner, ptr, token);
  }

  untrack(token: object): void {
    this.#finalizer.unregister(token);
  }

  /**
   * Normalizes rows of x (d at most CHUNK_FLOATS) into out (which may be x), or into a new array
   * when out is null, with parameters already in the heap. Allocates no wasm memory. Returns the
   * array written.
   */
  normalizeInto(
    x: Float32Array,
    out: Float32Array | null,
    rows: number,
    d: number,
    params: Params,
    eps: number,
  ): Float32Array {
    const module = this.#heap.module;
    const length = rows * d;
    if (length <= CHUNK_FLOATS) {
      // One chunk: the common call, kept free of closures and extra views.
      const heap = module.HEAPF32;
      const start = this.#chunk >>> 2;
      heap.set(x, start);
      const status = module._layerNorm(this.#chunk, this.#chunk, rows, d, params.gamma, params.beta, eps);
      if (status !== 0) this.#heap.check(status, 'layerNorm');
      if (out === null) return heap.slice(start, start + length);
      let view = this.#chunkView;
      if (view === null || view.length !== length) {
        view = this.#chunkView = heap.subarray(start, start + length);
      }
      out.set(view);
      return out;
    }
    // A large new result is allocated first and filled chunk by chunk while each chunk is still in
    // cache: in Chromium a fresh multi-megabyte array costs a page fault per 4 KiB either way, and
    // this measured 7% faster there than one wasm block handed back with slice() (same in Node).
    const target = out ?? new Float32Array(length);
    // Chunks are written back as they finish, so a partly overlapping out would overwrite input
    // not yet read: work from a copy then. Exactly x (in place) is fine.
    const src = partiallyOverlaps(x, target) ? x.slice() : x;
    const ptr = this.#chunk;
    this.#inChunks(src, rows, d, ptr, Math.floor(CHUNK_FLOATS / d), (first, n) => {
      this.#heap.check(module._layerNorm(ptr, ptr, n, d, params.gamma, params.beta, eps), 'layerNorm');
      target.set(this.#heap.f32(ptr, n * d), first * d);
    });
    return target;
  }

  /**
   * Normalizes rows wider than the chunk, one at a time, through a block allocated for the call
   * that also holds a stateless call's gamma and beta (`resident` null). The block is allocated
   * before any of `args` is read. Returns the array written.
   */
  normalizeWide(
    fn: string,
    args: { x: Float32Array; out: Float32Array | null; gamma: Float32Array | null; beta: Float32Array | null },
    rows: number,
    d: number,
    resident: Params | null,
    eps: number,
  ): Float32Array {
    const heap = this.#heap;
    const staged = resident === null && (args.gamma !== null || args.beta !== null);
    const what = `${fn}: a row of d = ${d} floats${staged ? ' with its gamma and beta' : ''}`;
    const block = heap.allocate((staged ? 12 : 4) * d, what, args);
    try {
      let params = resident ?? NO_PARAMS;
      if (staged) {
        const { gamma, beta } = args;
        if (gamma) heap.write(block + 4 * d, gamma);
        if (beta) heap.write(block + 8 * d, beta);
        params = { gamma: gamma ? block + 4 * d : 0, beta: beta ? block + 8 * d : 0 };
      }
      const target = args.out ?? new Float32Array(rows * d);
      const src = partiallyOverlaps(args.x, target) ? args.x.slice() : args.x;
      this.#inChunks(src, rows, d, block, 1, (first) => {
        heap.check(heap.module._layerNorm(block, block, 1, d, params.gamma, params.beta, eps), fn);
        target.set(heap.f32(block, d), first * d);
      });
      return target;
    } finally {
      heap.free(block);
    }
  }

  /** Copies x into the heap at ptr, perChunk rows at a time, and calls `work(firstRow, rowCount)`. */
  #inChunks(
    x: Float32Array,
    rows: number,
    d: number,
    ptr: number,
    perChunk: number,
    work: (first: number, n: number) => void,
  ): void {
    for (let first = 0; first < rows; first += perChunk) {
      const n = Math.min(perChunk, rows - first);
      this.#heap.write(ptr, x.subarray(first * d, (first + n) * d));
      work(first, n);
    }
  }

  /** Copies a stateless call's gamma/beta (d at most CHUNK_FLOATS) into the scratch area. */
  #stageParams(d: number, gamma: Float32Array | null, beta: Float32Array | null): Params {
    if (!gamma && !beta) return NO_PARAMS;
    const g = this.#scratch,
      b = this.#scratch + 4 * d;
    if (gamma) this.#heap.write(g, gamma);
    if (beta) this.#heap.write(b, beta);
    return { gamma: gamma ? g : 0, beta: beta ? b : 0 };
  }
}

/**
 * An object that owns one block of wasm heap until dispose() (idempotent; also `using`). If it is
 * dropped undisposed, the runtime's FinalizationRegistry frees the block after garbage collection.
 */
abstract class HeapOwner {
  #ptr: number; // 0: owns nothing (still disposable); -1: disposed
  readonly #token = {};

  constructor(
    protected readonly runtime: Runtime,
    ptr: number,
  ) {
    this.#ptr = ptr;
    if (ptr > 0) runtime.track(this, ptr, this.#token);
  }

  get disposed(): boolean {
    return this.#ptr < 0;
  }

  /** The block's address; throws DisposedError after dispose(). */
  protected address(fn: string, what: string, advice = ''): number {
    if (this.#ptr < 0) throw new DisposedError(`${fn}: this ${what} was disposed${advice}`);
    return this.#ptr;
  }

  dispose(): void {
    if (this.#ptr < 0) return;
    if (this.#ptr > 0) {
      this.runtime.untrack(this.#token);
      this.runtime.heap.free(this.#ptr);
    }
    this.#ptr = -1;
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}

/** A LayerNorm whose gamma and beta stay in the heap (one block: gamma, then beta). */
class ResidentLayerNorm extends HeapOwner implements LayerNorm {
  readonly hasGamma: boolean;
  readonly hasBeta: boolean;

  constructor(
    runtime: Runtime,
    readonly d: number,
    gamma: Float32Array | null,
    beta: Float32Array | null,
    readonly eps: number,
  ) {
    const heap = runtime.heap;
    const args: CallArrays = { gamma, beta };
    const ptr = gamma || beta ? heap.allocate(8 * d, `createLayerNorm: gamma and beta for d = ${d}`, args) : 0;
    try {
      if (args.gamma) heap.write(ptr, args.gamma);
      if (args.beta) heap.write(ptr + 4 * d, args.beta);
    } catch (e) {
      heap.free(ptr);
      throw e;
    }
    super(runtime, ptr);
    this.hasGamma = gamma !== null;
    this.hasBeta = beta !== null;
  }

  #params(fn: string): Params {
    const ptr = this.address(`LayerNorm.${fn}`, 'LayerNorm', '; create a new one');
    return {
      gamma: this.hasGamma ? ptr : 0,
      beta: this.hasBeta ? ptr + 4 * this.d : 0,
    };
  }

  forward(x: Float32Array, out?: Float32Array): Float32Array {
    const fn = 'LayerNorm.forward';
    const params = this.#params('forward');
    checkFloat32Array(fn, 'x', x);
    const rows = checkRows(fn, x, this.d);
    const target = checkOut(fn, out, x.length);
    if (rows === 0) return target ?? new Float32Array(0);
    if (this.d > CHUNK_FLOATS) {
      const args = { x, out: target, gamma: null, beta: null };
      return this.runtime.normalizeWide(fn, args, rows, this.d, params, this.eps);
    }
    return this.runtime.normalizeInto(x, target, rows, this.d, params, this.eps);
  }

  forwardTensor(input: WasmTensor, output: WasmTensor): void {
    const fn = 'LayerNorm.forwardTensor';
    const params = this.#params('forwardTensor');
    const src = Tensor.unwrap(fn, 'input', input, this.runtime);
    const dst = Tensor.unwrap(fn, 'output', output, this.runtime);
    if (src.d !== this.d || dst.d !== this.d) {
      throw new RangeError(`${fn}: tensors must have d = ${this.d}, got input d = ${src.d} and output d = ${dst.d}`);
    }
    if (src.rows !== dst.rows) {
      throw new RangeError(`${fn}: output must have as many rows as input (${src.rows}), got ${dst.rows}`);
    }
    if (src.rows === 0) return;
    const heap = this.runtime.heap;
    heap.check(
      heap.module._layerNorm(src.address, dst.address, src.rows, this.d, params.gamma, params.beta, this.eps),
      fn,
    );
  }
}

/** A rows × d float32 tensor in the heap (zeroed at allocation). */
class Tensor extends HeapOwner implements WasmTensor {
  readonly length: number;

  constructor(
    runtime: Runtime,
    readonly rows: number,
    readonly d: number,
  ) {
    const length = rows * d;
    const ptr = runtime.heap.allocate(length * 4, `allocate(${rows}, ${d})`);
    runtime.heap.f32(ptr, length).fill(0);
    super(runtime, ptr);
    this.length = length;
  }

  static unwrap(fn: string, name: string, t: unknown, runtime: Runtime): { address: number; rows: number; d: number } {
    if (!(t instanceof Tensor))
      throw new TypeError(`${fn}: ${name} must be a WasmTensor from allocate(), got ${describe(t)}`);
    if (t.runtime !== runtime)
      throw new TypeError(`${fn}: ${name} belongs to a different runtime (another init() backend)`);
    return { address: t.#live(fn), rows: t.rows, d: t.d };
  }

  #live(fn: string): number {
    return this.address(fn, 'WasmTensor');
  }

  get view(): Float32Array {
    return this.runtime.heap.f32(this.#live('WasmTensor.view'), this.length);
  }

  set(data: ArrayLike<number>, offset: number = 0): void {
    const fn = 'WasmTensor.set';
    const ptr = this.#live(fn);
    const values = checkNumbers(fn, 'data', data);
    if (typeof offset !== 'number') throw numberError(fn, 'offset', 'an integer >= 0', offset);
    if (!Number.isInteger(offset) || offset < 0 || offset + values.length > this.length) {
      throw new RangeError(
        `${fn}: ${values.length} values at offset ${describe(offset)} do not fit in a tensor of ${this.length} values`,
      );
    }
    checkElements(fn, 'data', values);
    // data may view this memory too (another tensor, or this one): set() copies overlapping ranges
    // as if through a temporary, and nothing here allocates, so no view is detached.
    this.runtime.heap.f32(ptr, this.length).set(values, offset);
  }

  toArray(): Float32Array {
    return this.runtime.heap.f32(this.#live('WasmTensor.toArray'), this.length).slice();
  }
}
