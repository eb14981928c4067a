/**
 * Runs checked calls through wasm memory. Inputs are copied into a reserved chunk that stays
 * cache-resident, normalized in place there, and copied out, so large inputs need no large wasm
 * allocation and a result never aliases wasm memory.
 *
 * Any argument may itself be a view of wasm memory (a WasmTensor's `view`), and any allocation may
 * grow that memory, which detaches such views. So calls whose rows fit the chunk allocate nothing
 * (their buffers are reserved once), and a call that must allocate (rows wider than the chunk,
 * stages) does so before it reads its arguments, handing them to Heap.allocate to be re-derived.
 */
import { DTYPE_CODES, type Kind } from './activations.js';
import type { CheckedNorm, NormKind } from './call.js';
import { type CallArrays, Heap } from './heap.js';
import { DEFAULT_NORM, NORMS } from './norms.js';
import type { ActivationArray } from './types.js';
import { partiallyOverlaps } from './validate.js';
import type { LayerNormModule } from './wasm/module.js';
import { WIRE_BYTES, writeWire } from './wire.js';

/** Elements per chunk: 256 KiB of float32, small enough to stay in L2 from copy-in to copy-out. */
export const CHUNK = 1 << 16;
/** Rows per chunk when a call writes per-row statistics: their area holds this many mean/rstd pairs. */
export const STAT_ROWS = 4096;
/** Rows of layerNormStats' { mean, variance, rstd } (24 bytes each) the parameter area holds. */
const STATS_PER_CHUNK = Math.floor((3 * CHUNK * 4) / 24);

/** Heap addresses of a call's gain and bias (0: none). */
export interface Params {
  gamma: number;
  beta: number;
}

export const NO_PARAMS: Params = { gamma: 0, beta: 0 };

const align8 = (n: number) => (n + 7) & ~7;

export interface StatsCall {
  fn: string;
  kind: Kind;
  x: ActivationArray;
  rows: number;
  d: number;
  eps: number;
}

export interface StagesCall {
  fn: string;
  norm: NormKind;
  kind: Kind;
  d: number;
  eps: number;
  x: ActivationArray; // the row
  residual: ActivationArray | null; // its residual row
  gamma: Float32Array | null;
  beta: Float32Array | null;
  bias: Float32Array | null;
}

export interface StagesResult {
  stats: Float64Array; // mean, variance, rstd
  vectors: Float32Array[]; // input, sum, centered, normalized, scaled, output
}

export class Executor {
  readonly heap: Heap;
  // Reserved for the runtime's lifetime, one block: the chunk, a residual chunk, the parameters of
  // a stateless call (gamma, beta, bias: CHUNK floats each; or layerNormStats' statistics), the
  // float32 staging of a 16-bit row (the core's own stack staging holds 4096 floats; wider rows
  // would make it allocate), the per-row statistics of a chunk, and the wire struct.
  readonly #x: number;
  readonly #r: number;
  readonly #params: number;
  readonly #stage: number;
  readonly #rowStats: number;
  readonly #wire: number;
  // Views of the chunk and of the residual chunk, kept between calls of one size: a new view per
  // call costs a visible share of a one-row call. Memory growth detaches them (length 0), which
  // rebuilds them.
  #f32x: Float32Array | null = null;
  #f32r: Float32Array | null = null;
  #u16x: Uint16Array | null = null;
  #u16r: Uint16Array | null = null;

  constructor(module: LayerNormModule) {
    this.heap = new Heap(module);
    const bytes = 6 * CHUNK * 4 + 16 * STAT_ROWS + WIRE_BYTES;
    this.#x = this.heap.allocate(bytes, 'the runtime chunk and scratch buffers');
    this.#r = this.#x + CHUNK * 4;
    this.#params = this.#r + CHUNK * 4;
    this.#stage = this.#params + 3 * CHUNK * 4;
    this.#rowStats = this.#stage + CHUNK * 4;
    this.#wire = this.#rowStats + 16 * STAT_ROWS;
  }

  /** The first n floats of the chunk (or of the residual chunk), as a kept view. */
  #floats(residual: boolean, n: number): Float32Array {
    let v = residual ? this.#f32r : this.#f32x;
    if (v === null || v.length !== n) {
      const at = (residual ? this.#r : this.#x) >>> 2;
      v = this.heap.module.HEAPF32.subarray(at, at + n);
      if (residual) this.#f32r = v;
      else this.#f32x = v;
    }
    return v;
  }

  /** The first n 16-bit units of the chunk (or of the residual chunk), as a kept view. */
  #halves(residual: boolean, n: number): Uint16Array {
    let v = residual ? this.#u16r : this.#u16x;
    if (v === null || v.length !== n) {
      const at = (residual ? this.#r : this.#x) >>> 1;
      v = this.heap.module.HEAPU16.subarray(at, at + n);
      if (residual) this.#u16r = v;
      else this.#u16x = v;
    }
    return v;
  }

  /**
   * The common call: a float32 LayerNorm of at most CHUNK values, with its gain and bias already in
   * the heap, into out (which may be x) or a new array. Kept free of closures and extra views.
   */
  plain(x: Float32Array, out: Float32Array | null, rows: number, d: number, params: Params, eps: number): Float32Array {
    const module = this.heap.module;
    const start = this.#x >>> 2;
    module.HEAPF32.set(x, start);
    const status = module._lnw_layernorm(this.#x, this.#x, rows, d, params.gamma, params.beta, eps);
    if (status !== 0) this.heap.check(status, 'layerNorm');
    if (out === null) return module.HEAPF32.slice(start, start + rows * d);
    out.set(this.#floats(false, rows * d));
    return out;
  }

  /**
   * Any other checked call whose rows fit the chunk at once (rows × d at most CHUNK, and at most
   * STAT_ROWS rows when it asks for statistics): its inputs are all copied in before anything is
   * written out, so arrays that overlap need no care here.
   */
  small(c: CheckedNorm, resident: Params | null): ActivationArray {
    const module = this.heap.module;
    const { kind, rows, d } = c;
    const n = rows * d;
    const f32 = kind.bytes === 4;
    if (f32) module.HEAPF32.set(c.x as Float32Array, this.#x >>> 2);
    else module.HEAPU16.set(kind.units(c.x), this.#x >>> 1);
    if (c.residual) {
      if (f32) module.HEAPF32.set(c.residual as Float32Array, this.#r >>> 2);
      else module.HEAPU16.set(kind.units(c.residual), this.#r >>> 1);
    }
    const params = resident ?? this.stageParams(d, c.gamma, c.beta);
    let bias = 0;
    if (c.bias) {
      bias = this.#params + 8 * d;
      module.HEAPF32.set(c.bias, bias >>> 2);
    }
    const meanAt = this.#rowStats,
      rstdAt = this.#rowStats + 8 * STAT_ROWS;
    this.#normalize(
      c,
      rows,
      this.#x,
      params,
      c.residual ? this.#r : 0,
      bias,
      c.sumOut ? this.#r : 0,
      c.mean ? meanAt : 0,
      c.rstd ? rstdAt : 0,
      this.#stage,
    );
    let target = c.out;
    if (f32) {
      if (target === null) target = module.HEAPF32.slice(this.#x >>> 2, (this.#x >>> 2) + n);
      else (target as Float32Array).set(this.#floats(false, n));
      if (c.sumOut) (c.sumOut as Float32Array).set(this.#floats(true, n));
    } else {
      target ??= kind.make(n);
      kind.units(target).set(this.#halves(false, n));
      if (c.sumOut) kind.units(c.sumOut).set(this.#halves(true, n));
    }
    if (c.mean) copyRowStats(module, meanAt, c.mean);
    if (c.rstd) copyRowStats(module, rstdAt, c.rstd);
    return target;
  }

  /**
   * Runs `rows` rows of c at x (in place) through the core; the other areas as addresses, 0 for
   * none. Throws the core's refusal as an Error naming c.fn.
   */
  #normalize(
    c: CheckedNorm,
    rows: number,
    x: number,
    params: Params,
    r: number,
    bias: number,
    sum: number,
    mean: number,
    rstd: number,
    scratch: number,
  ): void {
    const status = this.heap.module._lnw_normalize(
      NORMS[c.norm].wire,
      DTYPE_CODES[c.kind.dtype],
      rows,
      c.d,
      x,
      x,
      params.gamma,
      params.beta,
      r,
      bias,
      sum,
      mean,
      rstd,
      scratch,
      c.eps,
    );
    if (status !== 0) this.heap.check(status, c.fn);
  }

  /** Copies a stateless call's gamma/beta (d at most CHUNK) into the parameter area. */
  stageParams(d: number, gamma: Float32Array | null, beta: Float32Array | null): Params {
    if (!gamma && !beta) return NO_PARAMS;
    const g = this.#params,
      b = this.#params + 4 * d;
    if (gamma) this.heap.write(g, gamma);
    if (beta) this.heap.write(b, beta);
    return { gamma: gamma ? g : 0, beta: beta ? b : 0 };
  }

  /** Any checked call; `resident` holds the gain and bias of a LayerNorm object. Returns the output. */
  run(c: CheckedNorm, resident: Params | null): ActivationArray {
    if (c.d > CHUNK) return this.#runWide(c, resident);
    const heap = this.heap;
    const module = heap.module;
    const target = c.out ?? c.kind.make(c.rows * c.d);
    const { x, residual } = readable(c, target);
    const params = resident ?? this.stageParams(c.d, c.gamma, c.beta);
    const bias = c.bias ? this.#params + 8 * c.d : 0;
    if (c.bias) heap.write(bias, c.bias);
    const perChunk = Math.min(Math.floor(CHUNK / c.d), c.mean || c.rstd ? STAT_ROWS : Infinity);
    const xu = c.kind.units(x),
      ru = residual && c.kind.units(residual),
      tu = c.kind.units(target),
      su = c.sumOut && c.kind.units(c.sumOut);
    const meanAt = this.#rowStats,
      rstdAt = this.#rowStats + 8 * STAT_ROWS;
    for (let first = 0; first < c.rows; first += perChunk) {
      const n = Math.min(perChunk, c.rows - first);
      const a = first * c.d,
        b = a + n * c.d;
      heap.writeUnits(this.#x, xu.subarray(a, b));
      if (ru) heap.writeUnits(this.#r, ru.subarray(a, b));
      this.#normalize(
        c,
        n,
        this.#x,
        params,
        ru ? this.#r : 0,
        bias,
        su ? this.#r : 0,
        c.mean ? meanAt : 0,
        c.rstd ? rstdAt : 0,
        this.#stage,
      );
      tu.set(heap.units(tu, this.#x, n * c.d), a);
      if (su) su.set(heap.units(su, this.#r, n * c.d), a);
      if (c.mean) c.mean.set(heap.f64(meanAt, n), first);
      if (c.rstd) c.rstd.set(heap.f64(rstdAt, n), first);
    }
    return target;
  }

  /**
   * Rows wider than the chunk, one at a time, through a block allocated for the call (before any
   * argument is read) that also holds a stateless call's gain, bias and residual bias.
   */
  #runWide(c: CheckedNorm, resident: Params | null): ActivationArray {
    const heap = this.heap;
    const { d, kind } = c;
    const rowBytes = align8(d * kind.bytes);
    const staged = resident === null && (c.gamma !== null || c.beta !== null);
    const layout = new Layout();
    const xAt = layout.take(rowBytes);
    const rAt = c.residual ? layout.take(rowBytes) : 0;
    const gAt = staged && c.gamma ? layout.take(4 * d) : 0;
    const bAt = staged && c.beta ? layout.take(4 * d) : 0;
    const biasAt = c.bias ? layout.take(4 * d) : 0;
    const statsAt = layout.take(16);
    // A 16-bit row goes through float32: its staging is here, so the core allocates nothing.
    const stageAt = kind.bytes === 2 ? layout.take(4 * d) : 0;
    const args: CallArrays = {
      x: c.x,
      out: c.out,
      residual: c.residual,
      sumOut: c.sumOut,
      gamma: c.gamma,
      beta: c.beta,
      bias: c.bias,
      mean: c.mean,
      rstd: c.rstd,
    };
    const what = `${c.fn}: a row of d = ${d} values${staged || c.residual ? ' with its parameters' : ''}`;
    const block = heap.allocate(layout.bytes, what, args);
    try {
      const a = args as unknown as Pick<
        CheckedNorm,
        'x' | 'out' | 'residual' | 'sumOut' | 'gamma' | 'beta' | 'bias' | 'mean' | 'rstd'
      >;
      const call: CheckedNorm = { ...c, ...a };
      const target = call.out ?? kind.make(c.rows * d);
      const { x, residual } = readable(call, target);
      let params = resident ?? { gamma: 0, beta: 0 };
      if (staged) {
        if (call.gamma) heap.write(block + gAt, call.gamma);
        if (call.beta) heap.write(block + bAt, call.beta);
        params = { gamma: call.gamma ? block + gAt : 0, beta: call.beta ? block + bAt : 0 };
      }
      if (call.bias) heap.write(block + biasAt, call.bias);
      const xu = kind.units(x),
        ru = residual && kind.units(residual),
        tu = kind.units(target),
        su = call.sumOut && kind.units(call.sumOut);
      for (let row = 0; row < c.rows; row++) {
        const from = row * d;
        heap.writeUnits(block + xAt, xu.subarray(from, from + d));
        if (ru) heap.writeUnits(block + rAt, ru.subarray(from, from + d));
        this.#normalize(
          c,
          1,
          block + xAt,
          params,
          ru ? block + rAt : 0,
          call.bias ? block + biasAt : 0,
          su ? block + rAt : 0,
          call.mean ? block + statsAt : 0,
          call.rstd ? block + statsAt + 8 : 0,
          stageAt ? block + stageAt : 0,
        );
        tu.set(heap.units(tu, block + xAt, d), from);
        if (su) su.set(heap.units(su, block + rAt, d), from);
        const s = heap.f64(block + statsAt, 2);
        if (call.mean) call.mean[row] = s[0];
        if (call.rstd) call.rstd[row] = s[1];
      }
      return target;
    } finally {
      heap.free(block);
    }
  }

  /** Per-row { mean, variance, rstd } into three Float64Arrays. */
  stats(c: StatsCall, mean: Float64Array, variance: Float64Array, rstd: Float64Array): void {
    const heap = this.heap;
    const wide = c.d > CHUNK;
    // Narrow rows go through the chunk with their statistics in the parameter area; a wide row
    // needs a block of its own (statistics first, then the row, then a 16-bit row's float32
    // staging), allocated before x is read.
    const args: CallArrays = { x: c.x };
    const rowBytes = align8(c.d * c.kind.bytes);
    const block = wide
      ? heap.allocate(24 + rowBytes + (c.kind.bytes === 2 ? 4 * c.d : 0), `${c.fn}: a row of d = ${c.d} values`, args)
      : 0;
    try {
      const statsAt = wide ? block : this.#params;
      const rowsAt = wide ? block + 24 : this.#x;
      const scratch = wide ? block + 24 + rowBytes : this.#stage;
      const perChunk = wide ? 1 : Math.min(Math.floor(CHUNK / c.d), STATS_PER_CHUNK);
      const xu = c.kind.units(args.x as ActivationArray);
      for (let first = 0; first < c.rows; first += perChunk) {
        const n = Math.min(perChunk, c.rows - first);
        heap.writeUnits(rowsAt, xu.subarray(first * c.d, (first + n) * c.d));
        writeWire(heap.module, this.#wire, {
          ...EMPTY_WIRE,
          dtype: DTYPE_CODES[c.kind.dtype],
          rows: n,
          d: c.d,
          x: rowsAt,
          scratch,
          eps: c.eps,
        });
        heap.check(heap.module._statistics(this.#wire, statsAt), c.fn);
        const s = heap.f64(statsAt, n * 3);
        for (let r = 0; r < n; r++) {
          mean[first + r] = s[3 * r];
          variance[first + r] = s[3 * r + 1];
          rstd[first + r] = s[3 * r + 2];
        }
      }
    } finally {
      heap.free(block);
    }
  }

  /** One row's statistics and stage vectors. */
  stages(c: StagesCall): StagesResult {
    const heap = this.heap;
    const { d } = c;
    const layout = new Layout();
    const statsAt = layout.take(24);
    const xAt = layout.take(align8(d * c.kind.bytes));
    const rAt = c.residual ? layout.take(align8(d * c.kind.bytes)) : 0;
    const gAt = c.gamma ? layout.take(4 * d) : 0;
    const bAt = c.beta ? layout.take(4 * d) : 0;
    const biasAt = c.bias ? layout.take(4 * d) : 0;
    const stagesAt = layout.take(6 * 4 * d);
    const args: CallArrays = { x: c.x, residual: c.residual, gamma: c.gamma, beta: c.beta, bias: c.bias };
    const block = heap.allocate(layout.bytes, `${c.fn}: the row and its stages for d = ${d}`, args);
    try {
      heap.writeUnits(block + xAt, c.kind.units(args.x as ActivationArray));
      if (args.residual) heap.writeUnits(block + rAt, c.kind.units(args.residual as ActivationArray));
      if (args.gamma) heap.write(block + gAt, args.gamma as Float32Array);
      if (args.beta) heap.write(block + bAt, args.beta as Float32Array);
      if (args.bias) heap.write(block + biasAt, args.bias as Float32Array);
      writeWire(heap.module, this.#wire, {
        ...EMPTY_WIRE,
        norm: c.norm,
        dtype: DTYPE_CODES[c.kind.dtype],
        rows: 1,
        d,
        x: block + xAt,
        gamma: args.gamma ? block + gAt : 0,
        beta: args.beta ? block + bAt : 0,
        residual: args.residual ? block + rAt : 0,
        bias: args.bias ? block + biasAt : 0,
        eps: c.eps,
      });
      heap.check(heap.module._stages(this.#wire, block + statsAt, block + stagesAt), c.fn);
      const v = heap.f32(block + stagesAt, 6 * d);
      return {
        stats: heap.f64(block + statsAt, 3).slice(),
        vectors: Array.from({ length: 6 }, (_, i) => v.slice(i * d, (i + 1) * d)),
      };
    } finally {
      heap.free(block);
    }
  }

  /** A resident tensor-to-tensor call: addresses only, nothing copied. */
  direct(
    norm: NormKind,
    kind: Kind,
    rows: number,
    d: number,
    x: number,
    y: number,
    params: Params,
    eps: number,
    fn: string,
  ): void {
    const module = this.heap.module;
    if (NORMS[norm].plain && kind.dtype === 'float32') {
      const status = module._lnw_layernorm(x, y, rows, d, params.gamma, params.beta, eps);
      if (status !== 0) this.heap.check(status, fn);
      return;
    }
    // A 16-bit row goes through float32: a row wider than the staging area gets a block here, as
    // in #runWide, so that no memory is allocated inside the core (where running out of it is an
    // untyped status, not the RangeError every other allocation gives).
    const wideHalf = d > CHUNK && kind.bytes === 2;
    const stage = wideHalf ? this.heap.allocate(4 * d, `${fn}: the float32 staging of a row of d = ${d} values`) : 0;
    try {
      const status = module._lnw_normalize(
        NORMS[norm].wire,
        DTYPE_CODES[kind.dtype],
        rows,
        d,
        x,
        y,
        params.gamma,
        params.beta,
        0,
        0,
        0,
        0,
        0,
        wideHalf ? stage : d <= CHUNK ? this.#stage : 0,
        eps,
      );
      if (status !== 0) this.heap.check(status, fn);
    } finally {
      this.heap.free(stage);
    }
  }
}

/** A call's per-row statistics from the heap at `at` into `out` (one value per row). */
function copyRowStats(module: LayerNormModule, at: number, out: Float64Array): void {
  const heap = module.HEAPF64,
    first = at >>> 3;
  for (let r = 0; r < out.length; r++) out[r] = heap[first + r];
}

const EMPTY_WIRE = {
  norm: DEFAULT_NORM as NormKind,
  dtype: 0,
  rows: 0,
  d: 0,
  x: 0,
  y: 0,
  gamma: 0,
  beta: 0,
  residual: 0,
  bias: 0,
  sumOut: 0,
  mean: 0,
  rstd: 0,
  eps: 0,
};

/** Offsets of a call's buffers in one block, each 8-aligned. */
class Layout {
  bytes = 0;
  take(n: number): number {
    const at = this.bytes;
    this.bytes += align8(n);
    return at;
  }
}

/**
 * The call's inputs as they may be read chunk by chunk: chunks are written back as they finish, so
 * an input that an output partly overlaps would be overwritten before it is read; it is copied
 * then. An output that is exactly an input (in place) is fine.
 */
function readable(c: CheckedNorm, target: ActivationArray): { x: ActivationArray; residual: ActivationArray | null } {
  const writes: ArrayBufferView[] = [target];
  if (c.sumOut) writes.push(c.sumOut);
  if (c.mean) writes.push(c.mean);
  if (c.rstd) writes.push(c.rstd);
  const copy = (a: ActivationArray) => (writes.some((w) => partiallyOverlaps(a, w)) ? a.slice() : a);
  return { x: copy(c.x), residual: c.residual && copy(c.residual) };
}
