/**
 * Runs checked calls through wasm memory, each the same way: the call's plan (plan.ts: which
 * entry point of the core, where each of its areas lives, how many rows a chunk takes), then one
 * loop moves it chunk by chunk (#move, #step): copy in, one call into the core, copy out. The
 * plan of a single plain chunk, the per-token call, is the same three steps written out (plain()
 * says why). Each entry point of the core is called from one place. Inputs are copied into a
 * reserved chunk that stays cache-resident, computed there in place, and copied out, so large
 * inputs need no large wasm allocation and a result never aliases wasm memory.
 *
 * Any argument may itself be a view of wasm memory (a WasmTensor's `view`), and any allocation may
 * grow that memory, which detaches such views. So calls whose rows fit the chunk allocate nothing
 * (their areas are reserved once), and a call that must allocate (rows wider than the chunk,
 * stages) takes one block for all its areas before it reads its arguments, handing them to
 * Heap.allocate to be re-derived.
 */
import { DTYPE_CODES, type ActivationKind } from '../checks/activations.js';
import { isPlain, type CheckedNorm, type NormKind } from '../checks/call.js';
import { type CallArrays, Heap } from './heap.js';
import { DEFAULT_NORM, NORMS, type NormSpec } from '../norms.js';
import { Areas, asJob, type Job, Layout, NORMALIZE, type Op, readable, STAGES, STATISTICS } from './plan.js';
import type { ActivationArray } from '../types.js';
import type { LayerNormModule } from '../wasm/module.js';
import { WIRE_BYTES, writeWire } from './call-struct.js';

/** Elements per chunk: 256 KiB of float32, small enough to stay in L2 from copy-in to copy-out. */
export const CHUNK = 1 << 16;
/** Rows per chunk when a call writes per-row statistics: their area holds this many mean/rstd pairs. */
export const STAT_ROWS = 4096;
/** Rows of { mean, variance, rstd } records (24 bytes each) the parameter area holds. */
const STATS_PER_CHUNK = Math.floor((3 * CHUNK * 4) / 24);

/** Heap addresses of a resident norm's gain and bias (0: none). */
export interface Params {
  readonly gamma: number;
  readonly beta: number;
}

/** The areas of a call that needs none (a float32 tensor call wider than the chunk). */
const NO_AREAS = new Areas();

export interface StatsCall {
  fn: string;
  kind: ActivationKind;
  x: ActivationArray;
  rows: number;
  d: number;
  eps: number;
}

export interface StagesCall {
  fn: string;
  norm: NormKind;
  kind: ActivationKind;
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
  // a stateless call (gamma, beta, bias: CHUNK floats each; or the statistics' records), the
  // float32 staging of a 16-bit row (the core's own stack staging holds 4096 floats; wider rows
  // would make it allocate), the per-row statistics of a chunk, and the wire struct.
  readonly #x: number;
  readonly #r: number;
  readonly #params: number;
  readonly #stage: number;
  readonly #rowStats: number;
  readonly #wire: number;
  /** The reserved areas as calls of width #chunkD lay them out (#inChunk). */
  #chunk = new Areas();
  #chunkD = 0;
  // The last call's norm row and dtype code (#spec, #dtypeCode).
  #specNorm: NormKind = DEFAULT_NORM;
  #specRow: NormSpec = NORMS[DEFAULT_NORM];
  #codedKind: ActivationKind | null = null;
  #kindCode = 0;
  // Views of the chunk and of the residual chunk, kept (#floats, #halves).
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

  // ---- The calls: each makes its plan and moves it.

  /** Any checked normalizing call; `resident` holds a LayerNorm object's gain and bias. Returns the output. */
  normalize(c: CheckedNorm, resident: Params | null): ActivationArray {
    if (c.rows === 0) return c.out ?? c.kind.make(0);
    if (c.d > CHUNK) return this.#normalizeWide(c, resident);
    const at = this.#inChunk(c.d);
    this.#stageParams(c, at);
    const stats = c.mean !== null || c.rstd !== null;
    if (c.rows * c.d <= CHUNK && (!stats || c.rows <= STAT_ROWS) && isPlain(c, this.#spec(c))) {
      // One chunk of a plain call: the plan's per-token case (plain() says why it is written out).
      const gamma = resident ? resident.gamma : c.gamma ? at.gamma : 0;
      const beta = resident ? resident.beta : c.beta ? at.beta : 0;
      const x = c.x as Float32Array;
      return this.plain(x, c.out as Float32Array | null, c.rows, c.d, gamma, beta, c.eps, c.mean, c.rstd);
    }
    // A plan of one chunk (what #move would find) goes to #step from here: through #move, which
    // V8 does not inline #step into, the one-row statistics and fused calls measured 1.03-1.04x.
    if (c.rows * c.d <= CHUNK && c.rows <= STAT_ROWS) {
      return this.#step(NORMALIZE, c, c.x, c.residual, at, resident, 0, c.rows, c.out, null)!;
    }
    return this.#move(NORMALIZE, c, at, resident, this.#perChunk(c), null)!;
  }

  /**
   * The plan's per-token case: one chunk of a plain call (float32, LayerNorm, nothing fused, its
   * mean and rstd when asked for; rows × d at most CHUNK) in the reserved areas, through
   * `_lnw_layernorm`: copy in, one call, copy out, with no loop and no plan object. The stateless
   * call (normalize()) and a resident LayerNorm's forward (its arrays checked there, without a
   * CheckedNorm) take it. Written out because #step,
   * which every other chunk goes through, is too big for V8 to inline: a call of its own, which
   * measured 1.01-1.02x for layerNorm(x, d, { out }) and 1.045x for ln.forward(x, out) (with a job
   * made once per norm) at [1 x 768], same-run A/B.
   */
  plain(
    x: Float32Array,
    out: Float32Array | null,
    rows: number,
    d: number,
    gamma: number,
    beta: number,
    eps: number,
    mean: Float64Array | null,
    rstd: Float64Array | null,
  ): Float32Array {
    const start = this.#x >>> 2;
    const meanAt = this.#rowStats,
      rstdAt = this.#rowStats + 8 * STAT_ROWS;
    this.heap.module.HEAPF32.set(x, start);
    this.#layerNormRows('layerNorm', this.#x, this.#x, rows, d, gamma, beta, eps, mean ? meanAt : 0, rstd ? rstdAt : 0);
    if (mean) copyRows(this.heap.module.HEAPF64, meanAt, 1, mean, 0, rows);
    if (rstd) copyRows(this.heap.module.HEAPF64, rstdAt, 1, rstd, 0, rows);
    if (out === null) return this.heap.module.HEAPF32.slice(start, start + rows * d);
    out.set(this.#floats(this.#x, rows * d));
    return out;
  }

  /**
   * A resident norm's tensor-to-tensor call (`c`: the norm's, made once; `plain`: isPlain(c), which
   * the norm knows): the rows are already in wasm memory, so its plan is one chunk of all of them,
   * its areas the tensors, nothing copied.
   */
  direct(c: Job, plain: boolean, rows: number, x: number, y: number, params: Params): void {
    const { d, kind } = c;
    if (plain) return this.#layerNormRows(c.fn, x, y, rows, d, params.gamma, params.beta, c.eps, 0, 0);
    if (d <= CHUNK) return this.#normalizeAny(c, x, y, this.#inChunk(d), params.gamma, params.beta, rows);
    if (kind.bytes === 4) return this.#normalizeAny(c, x, y, NO_AREAS, params.gamma, params.beta, rows);
    // A 16-bit row goes through float32: a row wider than the staging area gets a block here, as
    // rows wider than the chunk do, so that no memory is allocated inside the core (where running
    // out of it is an untyped status, not the RangeError every other allocation gives).
    const stage = this.heap.allocate(4 * d, `${c.fn}: the float32 staging of a row of d = ${d} values`);
    try {
      this.#normalizeAny(c, x, y, Areas.of({ stage }), params.gamma, params.beta, rows);
    } finally {
      this.heap.free(stage);
    }
  }

  /** Per-row { mean, variance, rstd } into three Float64Arrays. */
  stats(c: StatsCall, mean: Float64Array, variance: Float64Array, rstd: Float64Array): void {
    const { d, kind } = c;
    const job = asJob({ fn: c.fn, norm: DEFAULT_NORM, kind, rows: c.rows, d, eps: c.eps, x: c.x, mean, rstd });
    if (d <= CHUNK) {
      const perChunk = fit(d, STATS_PER_CHUNK);
      this.#move(STATISTICS, job, this.#inChunk(d), null, perChunk, variance);
      return;
    }
    // A wide row: its records, the row, then a 16-bit row's float32 staging, in a block of its own.
    const layout = new Layout();
    const stats = layout.take(24);
    const x = layout.row(kind, d);
    const stage = kind.bytes === 2 ? layout.take(4 * d) : 0;
    const args: CallArrays = { x: c.x };
    const block = this.heap.allocate(layout.bytes, `${c.fn}: a row of d = ${d} values`, args);
    try {
      job.x = args.x as ActivationArray;
      const at = Areas.of({ x: block + x, stats: block + stats, stage: stage ? block + stage : 0 });
      this.#move(STATISTICS, job, at, null, 1, variance);
    } finally {
      this.heap.free(block);
    }
  }

  /** One row's statistics and stage vectors: a plan of one row in one chunk, in a block of its own. */
  stages(c: StagesCall): StagesResult {
    const { d, kind } = c;
    const layout = new Layout();
    const stats = layout.take(24);
    const x = layout.row(kind, d);
    const r = c.residual ? layout.row(kind, d) : 0;
    const gamma = c.gamma ? layout.take(4 * d) : 0;
    const beta = c.beta ? layout.take(4 * d) : 0;
    const bias = c.bias ? layout.take(4 * d) : 0;
    const vectors = layout.take(6 * 4 * d);
    const args: CallArrays = { x: c.x, residual: c.residual, gamma: c.gamma, beta: c.beta, bias: c.bias };
    const block = this.heap.allocate(layout.bytes, `${c.fn}: the row and its stages for d = ${d}`, args);
    try {
      const at = Areas.of({
        x: block + x,
        r: block + r,
        gamma: block + gamma,
        beta: block + beta,
        bias: block + bias,
        stats: block + stats,
        vectors: block + vectors,
      });
      const [mean, variance, rstd] = [new Float64Array(1), new Float64Array(1), new Float64Array(1)];
      const job = asJob({ ...c, ...(args as Partial<Job>), rows: 1, mean, rstd });
      this.#stageParams(job, at);
      this.#move(STAGES, job, at, null, 1, variance);
      const v = this.heap.f32(at.vectors, 6 * d);
      return {
        stats: Float64Array.of(mean[0]!, variance[0]!, rstd[0]!),
        vectors: Array.from({ length: 6 }, (_, i) => v.slice(i * d, (i + 1) * d)),
      };
    } finally {
      this.heap.free(block);
    }
  }

  // ---- Planning.

  /**
   * The reserved areas for rows of width d (at most CHUNK). A stateless call's beta and residual
   * bias follow its gain (at 4d and 8d): placed a chunk apart, at one offset modulo 4 KiB with the
   * chunk's rows, they made layerNorm(x, d, { out }) and the 16-bit calls 2-4% slower at one row.
   */
  #inChunk(d: number): Areas {
    return this.#chunkD === d ? this.#chunk : this.#layChunk(d);
  }

  #layChunk(d: number): Areas {
    this.#chunk = Areas.of({
      x: this.#x,
      r: this.#r,
      gamma: this.#params,
      beta: this.#params + 4 * d,
      bias: this.#params + 8 * d,
      mean: this.#rowStats,
      rstd: this.#rowStats + 8 * STAT_ROWS,
      stats: this.#params,
      stage: this.#stage,
    });
    this.#chunkD = d;
    return this.#chunk;
  }

  /**
   * Rows wider than the chunk, one a chunk, through a block allocated for the call (before any
   * argument is read) that also holds a stateless call's gain, bias and residual bias.
   */
  #normalizeWide(c: CheckedNorm, resident: Params | null): ActivationArray {
    const { d, kind } = c;
    const staged = c.gamma !== null || c.beta !== null;
    const layout = new Layout();
    const x = layout.row(kind, d);
    const r = c.residual ? layout.row(kind, d) : 0;
    const gamma = c.gamma ? layout.take(4 * d) : 0;
    const beta = c.beta ? layout.take(4 * d) : 0;
    const bias = c.bias ? layout.take(4 * d) : 0;
    const stats = layout.take(16);
    // A 16-bit row goes through float32: its staging is here, so the core allocates nothing.
    const stage = kind.bytes === 2 ? layout.take(4 * d) : 0;
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
    const block = this.heap.allocate(layout.bytes, what, args);
    try {
      const job = asJob({ ...c, ...(args as Partial<Job>) });
      const at = Areas.of({
        x: block + x,
        r: block + r,
        gamma: block + gamma,
        beta: block + beta,
        bias: block + bias,
        mean: block + stats,
        rstd: block + stats + 8,
        stage: stage ? block + stage : 0,
      });
      this.#stageParams(job, at);
      return this.#move(NORMALIZE, job, at, resident, 1, null)!;
    } finally {
      this.heap.free(block);
    }
  }

  /**
   * Rows a chunk takes: as many as fit (and whose statistics fit). All of them when they fit at
   * once, found without a division (a visible share of a one-row call); otherwise an integer
   * division, as a float one would make every count after it a float.
   */
  #perChunk(c: Job): number {
    const stats = c.mean !== null || c.rstd !== null;
    return c.rows * c.d <= CHUNK && (c.rows <= STAT_ROWS || !stats) ? c.rows : fit(c.d, stats ? STAT_ROWS : CHUNK);
  }

  /** Copies a stateless call's gain, beta and residual bias (those it has) to their areas. */
  #stageParams(c: Job, at: Areas): void {
    if (c.gamma) this.heap.write(at.gamma, c.gamma);
    if (c.beta) this.heap.write(at.beta, c.beta);
    if (c.bias) this.heap.write(at.bias, c.bias);
  }

  // ---- Moving a plan: the one loop, and the one place each entry point of the core is called.

  /**
   * Moves `job` through `at`, `perChunk` rows at a time (`variance`: the statistics' third output).
   * Returns the output of a normalizing call (a new array when the job has no `out`).
   */
  #move(
    op: Op,
    job: Job,
    at: Areas,
    resident: Params | null,
    perChunk: number,
    variance: Float64Array | null,
  ): ActivationArray | null {
    return perChunk >= job.rows
      ? this.#step(op, job, job.x, job.residual, at, resident, 0, job.rows, job.out, variance)
      : this.#chunks(op, job, at, resident, perChunk, variance);
  }

  /** The loop over chunks, for a plan of more than one. */
  #chunks(
    op: Op,
    job: Job,
    at: Areas,
    resident: Params | null,
    perChunk: number,
    variance: Float64Array | null,
  ): ActivationArray | null {
    const rows = job.rows;
    const { x, residual } = readable(job);
    let out = job.out;
    for (let first = 0; first < rows; first += perChunk) {
      const n = Math.min(perChunk, rows - first);
      out = this.#step(op, job, x, residual, at, resident, first, n, out, variance);
    }
    return out;
  }

  /**
   * One chunk, rows [first, first + n) of the job: its rows (and residual rows) in, one call into
   * the core, its outputs out. Returns the output so far of a normalizing call.
   *
   * Written out in one function, which V8 compiles on its own: it inlines a function only while
   * it is small (460 bytes of bytecode, and 920 along one chain of calls), and the copies written
   * as helpers of their own stayed calls of their own, which made the one-row calls 3-5% slower
   * (with those limits raised they were not: measured).
   */
  #step(
    op: Op,
    job: Job,
    x: ActivationArray,
    residual: ActivationArray | null,
    at: Areas,
    resident: Params | null,
    first: number,
    n: number,
    out: ActivationArray | null,
    variance: Float64Array | null,
  ): ActivationArray | null {
    const module = this.heap.module;
    const { kind, d } = job;
    const f32 = kind.bytes === 4;
    const from = first * d,
      count = n * d,
      whole = n === job.rows;
    if (f32) {
      const f = x as Float32Array;
      module.HEAPF32.set(whole ? f : f.subarray(from, from + count), at.x >>> 2);
    } else {
      const u = kind.units(x);
      module.HEAPU16.set(whole ? u : u.subarray(from, from + count), at.x >>> 1);
    }
    if (residual) {
      const u = kind.units(residual);
      if (f32) module.HEAPF32.set(whole ? u : u.subarray(from, from + count), at.r >>> 2);
      else module.HEAPU16.set(whole ? u : u.subarray(from, from + count), at.r >>> 1);
    }
    if (op !== NORMALIZE) return this.#records(op, job, at, first, n, variance!);
    const gamma = resident ? resident.gamma : job.gamma ? at.gamma : 0;
    const beta = resident ? resident.beta : job.beta ? at.beta : 0;
    this.#normalizeAny(job, at.x, at.x, at, gamma, beta, n);
    if (!f32) {
      out ??= kind.make(job.rows * d);
      kind.units(out).set(this.#halves(at.x, count), from);
    } else if (out === null && whole) {
      out = module.HEAPF32.slice(at.x >>> 2, (at.x >>> 2) + count);
    } else {
      (out ??= new Float32Array(job.rows * d)).set(this.#floats(at.x, count), from);
    }
    if (job.sumOut) kind.units(job.sumOut).set(f32 ? this.#floats(at.r, count) : this.#halves(at.r, count), from);
    if (job.mean) copyRows(module.HEAPF64, at.mean, 1, job.mean, first, n);
    if (job.rstd) copyRows(module.HEAPF64, at.rstd, 1, job.rstd, first, n);
    return out;
  }

  /** `_lnw_layernorm`: its arguments filled in here only. */
  #layerNormRows(
    fn: string,
    x: number,
    y: number,
    n: number,
    d: number,
    gamma: number,
    beta: number,
    eps: number,
    mean: number,
    rstd: number,
  ): void {
    const status = this.heap.module._lnw_layernorm(x, y, n, d, gamma, beta, eps, mean, rstd);
    if (status !== 0) this.heap.check(status, fn);
  }

  /**
   * `_lnw_normalize`, every field an argument: filled in here only. A plain call's chunks (when it
   * has more than one) take it too: the same kernels as `_lnw_layernorm`, and #step does not look
   * up the norm to choose (a lookup per chunk is a visible share of a one-row call).
   */
  #normalizeAny(c: Job, x: number, y: number, at: Areas, gamma: number, beta: number, n: number): void {
    const status = this.heap.module._lnw_normalize(
      this.#spec(c).wire,
      this.#dtypeCode(c.kind),
      n,
      c.d,
      x,
      y,
      gamma,
      beta,
      c.residual ? at.r : 0,
      c.bias ? at.bias : 0,
      c.sumOut ? at.r : 0,
      c.mean ? at.mean : 0,
      c.rstd ? at.rstd : 0,
      at.stage,
      c.eps,
    );
    if (status !== 0) this.heap.check(status, c.fn);
  }

  /**
   * The call's norm row (NORMS) and dtype code, the last call's kept: looked up by a name read
   * from the call, each is a hash of the name in V8 every time (together ~2% of a one-row call,
   * measured).
   */
  #spec(c: Job): NormSpec {
    if (c.norm !== this.#specNorm) {
      this.#specRow = NORMS[c.norm];
      this.#specNorm = c.norm;
    }
    return this.#specRow;
  }

  #dtypeCode(kind: ActivationKind): number {
    if (kind !== this.#codedKind) {
      this.#kindCode = DTYPE_CODES[kind.dtype];
      this.#codedKind = kind;
    }
    return this.#kindCode;
  }

  /**
   * `n` rows at at.x through `_statistics` or `_stages` (the wire struct, filled in here only), and
   * their { mean, variance, rstd } records out into the job's mean and rstd, and `variance`.
   */
  #records(op: Op, c: Job, at: Areas, first: number, n: number, variance: Float64Array): null {
    const module = this.heap.module;
    writeWire(module, this.#wire, {
      norm: c.norm,
      dtype: this.#dtypeCode(c.kind),
      rows: n,
      d: c.d,
      x: at.x,
      y: 0,
      gamma: c.gamma ? at.gamma : 0,
      beta: c.beta ? at.beta : 0,
      residual: c.residual ? at.r : 0,
      bias: c.bias ? at.bias : 0,
      sumOut: 0,
      mean: 0,
      rstd: 0,
      scratch: at.stage,
      eps: c.eps,
    });
    const status =
      op === STATISTICS ? module._statistics(this.#wire, at.stats) : module._stages(this.#wire, at.stats, at.vectors);
    if (status !== 0) this.heap.check(status, c.fn);
    const f64 = module.HEAPF64;
    copyRows(f64, at.stats, 3, c.mean!, first, n);
    copyRows(f64, at.stats + 8, 3, variance, first, n);
    copyRows(f64, at.stats + 16, 3, c.rstd!, first, n);
    return null;
  }

  /**
   * `count` floats of the heap at `at`: for the chunk and the residual chunk a view kept between
   * calls of one size (a new view per call is a visible share of a one-row call; memory growth
   * detaches a kept one, length 0, which rebuilds it). Kept small, to be inlined: #keepFloats
   * makes them.
   */
  #floats(at: number, count: number): Float32Array {
    const v = at === this.#x ? this.#f32x : this.#f32r;
    return v !== null && v.length === count && (at === this.#x || at === this.#r) ? v : this.#keepFloats(at, count);
  }

  #keepFloats(at: number, count: number): Float32Array {
    const v = this.heap.f32(at, count);
    if (at === this.#x) this.#f32x = v;
    else if (at === this.#r) this.#f32r = v;
    return v;
  }

  /** `count` 16-bit units of the heap at `at`, as #floats. */
  #halves(at: number, count: number): Uint16Array {
    const v = at === this.#x ? this.#u16x : this.#u16r;
    return v !== null && v.length === count && (at === this.#x || at === this.#r) ? v : this.#keepHalves(at, count);
  }

  #keepHalves(at: number, count: number): Uint16Array {
    const v = this.heap.u16(at, count);
    if (at === this.#x) this.#u16x = v;
    else if (at === this.#r) this.#u16r = v;
    return v;
  }
}

/** Rows of width d a chunk holds, at most `most`: an integer division (a float one would make every count after it a float). */
function fit(d: number, most: number): number {
  return Math.min((CHUNK / d) | 0, most);
}

/** Per-row statistics from the heap at `at` (`stride` float64 values apart) into out[first…first + n). */
function copyRows(heap: Float64Array, at: number, stride: number, out: Float64Array, first: number, n: number): void {
  for (let r = 0, i = at >>> 3; r < n; r++, i += stride) out[first + r] = heap[i]!;
}
