/**
 * The plan of every call, as data (Plan): which entry point of the core its chunks go through,
 * where each of its areas lives in wasm memory (the runtime's reserved chunk, a block allocated for
 * the call before any argument is read, or a caller's tensors), the arrays moved in and out (Job),
 * and how many rows a chunk takes. The Planner makes them; executor.ts only runs them.
 *
 * Any argument may itself be a view of wasm memory (a WasmTensor's `view`), and any allocation may
 * grow that memory, which detaches such views. So calls whose rows fit the chunk allocate nothing
 * (their areas are reserved once, and their plan is one object, refilled), and a call that must
 * allocate (rows wider than the chunk, stages) takes one block for all its areas before its
 * arguments are read, handing them to Heap.allocate to be re-derived.
 */
import { DTYPE_CODES, type ActivationKind } from '../checks/activations.js';
import { isPlain, type CheckedNorm, type NormKind } from '../checks/call.js';
import type { CallArrays, Heap } from './heap.js';
import { DEFAULT_NORM, NORMS, normWire, type NormSpec } from '../norms.js';
import type { ActivationArray } from '../types.js';
import { partiallyOverlaps } from '../checks/validate.js';
import { AREA_BIT, AREAS_BYTES, formOf, writeAreas } from './wire-call.js';

const FLOAT32 = DTYPE_CODES.float32;

/** Elements per chunk: 256 KiB of float32, small enough to stay in L2 from copy-in to copy-out. */
export const CHUNK = 1 << 16;
/** Rows per chunk when a call writes per-row statistics: their area holds this many mean/rstd pairs. */
export const STAT_ROWS = 4096;
/** Rows of { mean, variance, rstd } records (24 bytes each) the parameter area holds. */
const STATS_PER_CHUNK = Math.floor((3 * CHUNK * 4) / 24);

/** The core's entry point a plan's chunks go through. */
export const NORMALIZE = 0; // _lnw_normalize
export const STATISTICS = 1; // _statistics: { mean, variance, rstd } per row
export const STAGES = 2; // _stages: one row's statistics and stage vectors
export type Op = typeof NORMALIZE | typeof STATISTICS | typeof STAGES;

/**
 * Heap addresses of a call's areas. A call uses those its arrays ask for; the rest are not read.
 * (One class, so that every plan's areas have one hidden class.)
 */
export class Areas {
  /** A chunk's rows, computed in place: the output comes back here (unless y says otherwise). */
  x = 0;
  /** Where the output goes: a tensor-to-tensor call's output tensor (a chunk's: x). */
  y = 0;
  /** The residual rows; x + residual comes back here when sumOut asks for it. */
  r = 0;
  /** Where a stateless call's gain, bias and residual bias are copied, d floats each. */
  gamma = 0;
  beta = 0;
  bias = 0;
  /** A normalizing call's per-row mean and rstd, one float64 array each. */
  mean = 0;
  rstd = 0;
  /** The per-row { mean, variance, rstd } records (float64) of the statistics and stages. */
  stats = 0;
  /** d floats of float32 staging for a 16-bit row (the core's own on its stack fit 4096). */
  stage = 0;
  /** The stages' six vectors of d floats. */
  vectors = 0;
  /** Where these addresses are written as the core's CallAreas (writeAreas; 0: not written). */
  record = 0;

  static of(at: Partial<Areas>): Areas {
    return Object.assign(new Areas(), at);
  }
}

/**
 * A call as the chunk loop moves it: a checked normalizing call as it is; the statistics, the
 * stages and a resident norm's tensor calls shaped the same way (asJob). Copied in row by row: x,
 * residual; once: gamma, beta, bias; out row by row: out (a new array when null), sumOut, and one
 * value per row: mean, rstd (and the statistics' variance, beside the job).
 */
export type Job = CheckedNorm;

/**
 * A job of the given arrays (the others null), its properties in CheckedNorm's order (call.ts,
 * quick-check.ts) so that every job has one hidden class: the functions that move jobs then read
 * each property after one map check, where a second shape would add a check to every read.
 */
export function asJob(j: Pick<Job, 'fn' | 'norm' | 'kind' | 'rows' | 'd' | 'eps' | 'x'> & Partial<Job>): Job {
  return {
    fn: j.fn,
    norm: j.norm,
    kind: j.kind,
    rows: j.rows,
    d: j.d,
    eps: j.eps,
    x: j.x,
    out: j.out ?? null,
    gamma: j.gamma ?? null,
    beta: j.beta ?? null,
    residual: j.residual ?? null,
    bias: j.bias ?? null,
    sumOut: j.sumOut ?? null,
    mean: j.mean ?? null,
    rstd: j.rstd ?? null,
  };
}

/**
 * n rounded up to a multiple of 8, in doubles: an area reaches 24 × 2^28 bytes (the stages' six
 * vectors at the widest d), past int32, where `(n + 7) & ~7` would wrap to a small size.
 */
const align8 = (n: number) => Math.ceil(n / 8) * 8;

/**
 * Offsets of a call's areas in the one block allocated for it, each 8-aligned. The total may pass
 * what wasm memory can hold (it stays a safe integer: a few areas of at most 2^33 bytes each);
 * Heap.allocate refuses it then, before anything is written.
 */
export class Layout {
  bytes = 0;
  take(n: number): number {
    const at = this.bytes;
    this.bytes += align8(n);
    return at;
  }
  /** A row of d values of `kind`. */
  row(kind: ActivationKind, d: number): number {
    return this.take(d * kind.bytes);
  }
}

/**
 * The call's inputs as they may be read chunk by chunk: chunks are written back as they finish, so
 * an input that an output partly overlaps would be overwritten before it is read; it is copied
 * then. An output that is exactly an input (in place) is fine. (One chunk needs none of this: it
 * reads all its inputs before it writes anything.)
 */
export function readable(c: Job): { x: ActivationArray; residual: ActivationArray | null } {
  const writes: ArrayBufferView[] = [];
  if (c.out) writes.push(c.out);
  if (c.sumOut) writes.push(c.sumOut);
  if (c.mean) writes.push(c.mean);
  if (c.rstd) writes.push(c.rstd);
  const copy = (a: ActivationArray) => (writes.some((w) => partiallyOverlaps(a, w)) ? a.slice() : a);
  return { x: copy(c.x), residual: c.residual && copy(c.residual) };
}

/** Heap addresses of a resident norm's gain and bias (0: none). */
export interface Params {
  readonly gamma: number;
  readonly beta: number;
}

/** The statistics of a call's rows: { mean, variance, rstd } per row. */
export interface StatsCall {
  fn: string;
  kind: ActivationKind;
  x: ActivationArray;
  rows: number;
  d: number;
  eps: number;
}

/** One row's statistics and stage vectors. */
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

/**
 * The per-token call: a plain call (float32, nothing fused: isPlain) whose rows and their
 * statistics fit one chunk. Its plan is known without being made (the reserved areas, its gain and
 * bias): Executor.perToken runs it, written out.
 */
export function isPerToken(rows: number, d: number, stats: boolean): boolean {
  return rows * d <= CHUNK && (!stats || rows <= STAT_ROWS);
}

const NO_ROWS = new Float32Array(0);
/** The job of a plan not yet made: one hidden class with every other job. */
const NO_JOB = asJob({
  fn: '',
  norm: DEFAULT_NORM,
  kind: null as unknown as ActivationKind,
  rows: 0,
  d: 0,
  eps: 0,
  x: NO_ROWS,
});

/** A call's plan, all of it data: Executor.run moves it. (One class, so every plan has one hidden class.) */
export class Plan {
  op: Op = NORMALIZE;
  /** The call it moves (NO_JOB in the refilled plan of one normalizing chunk: Planner.normalize). */
  job: Job = NO_JOB;
  /** Rows of the call: job.rows, or a tensor call's. */
  rows = 0;
  at = new Areas();
  /** Rows a chunk takes; all of them: one chunk. */
  perChunk = 0;
  /** Rows are copied in and out through at.x; false: at.x and at.y are tensors, computed where they are. */
  copies = true;
  /** The call's form for the core: formOf(norm, dtype) and the AREA_BIT of each area it uses. */
  form = 0;
  /** The gain and bias the core reads: a resident norm's, the copies in at.gamma and at.beta, or 0. */
  gamma = 0;
  beta = 0;
  /** The statistics' and stages' per-row variance (the job holds mean and rstd). */
  variance: Float64Array | null = null;
  /** The stages' six vectors, filled in when it runs. */
  vectors: Float32Array[] = [];
  /** A block allocated for the call's areas, freed once it has run (0: none). */
  block = 0;

  /** Lets go of the call's arrays once it has run (the refilled plan outlives its call). */
  release(): void {
    this.job = NO_JOB;
    this.variance = null;
  }
}

/** The runtime's reserved areas (one block for its lifetime), where calls that fit a chunk run. */
export interface Reserved {
  x: number; // the chunk
  r: number; // the residual chunk
  params: number; // a stateless call's gain, beta and residual bias (3 × CHUNK floats), or statistics records
  stage: number; // the float32 staging of a 16-bit row (CHUNK floats)
  rowStats: number; // STAT_ROWS means, then STAT_ROWS rstds
  areas: number; // two CallAreas (AREAS_BYTES each): the chunk's, then a block of a call's own
}

/**
 * The form of call `c` (`base`: formOf its norm and dtype) with the bits of the areas it uses; a
 * 16-bit call uses the plan's float32 staging (scratch).
 */
function formWith(base: number, c: Job): number {
  return (
    base |
    (c.residual ? AREA_BIT.residual : 0) |
    (c.bias ? AREA_BIT.bias : 0) |
    (c.sumOut ? AREA_BIT.sumOut : 0) |
    (c.mean ? AREA_BIT.mean : 0) |
    (c.rstd ? AREA_BIT.rstd : 0) |
    (c.kind.bytes === 2 ? AREA_BIT.scratch : 0)
  );
}

/** Writes `at`'s addresses as the core's CallAreas at `record` (a residual's sum comes back over it). */
function recordAreas(heap: Heap, record: number, at: Areas): void {
  at.record = record;
  const { r, bias, mean, rstd, stage } = at;
  writeAreas(heap.module, record, { residual: r, bias, sumOut: r, mean, rstd, scratch: stage });
}

export class Planner {
  /** The plan of calls that fit the reserved areas, refilled (a new object is a visible share of a one-row call). */
  readonly #reused = new Plan();
  /** The reserved areas as calls of width #chunkD lay them out (inChunk). */
  #chunk = new Areas();
  #chunkD = 0;
  // The last call's norm row and dtype code (#spec, #dtypeCode).
  #specNorm: NormKind = DEFAULT_NORM;
  #specRow: NormSpec = NORMS[DEFAULT_NORM];
  #specWire = normWire(NORMS[DEFAULT_NORM]);
  #codedKind: ActivationKind | null = null;
  #kindCode = 0;
  /** A tensor call's areas: its tensors, and a 16-bit row's staging. */
  readonly #tensors = new Areas();

  constructor(
    readonly heap: Heap,
    readonly reserved: Reserved,
  ) {
    // Tensor calls read only the staging from it, which is the chunk's (direct).
    this.#layChunk(0);
  }

  /**
   * Any checked normalizing call with rows (`resident`: a LayerNorm object's gain and bias). The plan of one chunk in the reserved areas is the refilled one, and
   * its job is the call itself, which the executor hands over beside it: stored in the refilled
   * plan, a young object into an old one, it went through V8's write barrier on every call
   * (web/bench/NOTES.md). A plan of several chunks holds its job, for Executor.run.
   */
  normalize(c: CheckedNorm, resident: Params | null): Plan {
    if (c.d > CHUNK) return this.#normalizeWide(c, resident);
    const stats = c.mean !== null || c.rstd !== null;
    const perChunk =
      c.rows * c.d <= CHUNK && (c.rows <= STAT_ROWS || !stats) ? c.rows : fit(c.d, stats ? STAT_ROWS : CHUNK);
    // #fill written out for the refilled plan: a one-row call's chain is past what V8 inlines, and
    // each call on it is a visible share of the call (web/bench/NOTES.md).
    const p = this.#reused;
    const at = this.#chunkD === c.d ? this.#chunk : this.#layChunk(c.d);
    this.#spec(c);
    p.op = NORMALIZE;
    if (perChunk < c.rows) p.job = c;
    const dtype = c.kind === this.#codedKind ? this.#kindCode : this.#dtypeCode(c.kind);
    p.form = formWith(formOf(this.#specWire, dtype), c);
    p.rows = c.rows;
    p.at = at;
    p.perChunk = perChunk;
    p.copies = true;
    p.gamma = resident ? resident.gamma : c.gamma ? at.gamma : 0;
    p.beta = resident ? resident.beta : c.beta ? at.beta : 0;
    p.variance = null;
    p.block = 0;
    return p;
  }

  /** Per-row { mean, variance, rstd } of c's rows into the three arrays. */
  statistics(c: StatsCall, mean: Float64Array, variance: Float64Array, rstd: Float64Array): Plan {
    const { d, kind } = c;
    const job = asJob({ fn: c.fn, norm: DEFAULT_NORM, kind, rows: c.rows, d, eps: c.eps, x: c.x, mean, rstd });
    let p: Plan;
    if (d <= CHUNK) {
      p = this.#fill(this.#reused, STATISTICS, job, c.rows, this.inChunk(d), fit(d, STATS_PER_CHUNK), null);
    } else {
      // A wide row: its records, the row, then a 16-bit row's float32 staging, in a block of its own.
      const layout = new Layout();
      const stats = layout.take(24);
      const x = layout.row(kind, d);
      const stage = kind.bytes === 2 ? layout.take(4 * d) : 0;
      const args: CallArrays = { x: c.x };
      const block = this.heap.allocate(layout.bytes, `${c.fn}: a row of d = ${d} values`, args);
      job.x = args.x as ActivationArray;
      const at = Areas.of({ x: block + x, stats: block + stats, stage: stage ? block + stage : 0 });
      recordAreas(this.heap, this.reserved.areas + AREAS_BYTES, at);
      p = this.#fill(new Plan(), STATISTICS, job, c.rows, at, 1, null);
      p.block = block;
    }
    p.variance = variance;
    return p;
  }

  /** One row's statistics (into the three arrays) and stage vectors: one chunk, in a block of its own. */
  stages(c: StagesCall, mean: Float64Array, variance: Float64Array, rstd: Float64Array): Plan {
    const { d, kind } = c;
    const layout = new Layout();
    // The vectors follow the record: `_stages` takes the one address.
    const records = layout.take(24);
    const vectors = layout.take(6 * 4 * d);
    const x = layout.row(kind, d);
    const r = c.residual ? layout.row(kind, d) : 0;
    const gamma = c.gamma ? layout.take(4 * d) : 0;
    const beta = c.beta ? layout.take(4 * d) : 0;
    const bias = c.bias ? layout.take(4 * d) : 0;
    const args: CallArrays = { x: c.x, residual: c.residual, gamma: c.gamma, beta: c.beta, bias: c.bias };
    const block = this.heap.allocate(layout.bytes, `${c.fn}: the row and its stages for d = ${d}`, args);
    const at = Areas.of({
      x: block + x,
      r: block + r,
      gamma: block + gamma,
      beta: block + beta,
      bias: block + bias,
      stats: block + records,
      vectors: block + vectors,
    });
    recordAreas(this.heap, this.reserved.areas + AREAS_BYTES, at);
    const job = asJob({ ...c, ...(args as Partial<Job>), rows: 1, mean, rstd });
    const p = this.#fill(new Plan(), STAGES, job, 1, at, 1, null);
    p.variance = variance;
    p.block = block;
    return p;
  }

  /**
   * A resident norm's tensor-to-tensor call (`c`: the norm's, made once, nothing fused): the rows
   * are already in wasm memory, so its plan is one chunk of all of them, its areas the tensors,
   * nothing copied.
   */
  direct(c: Job, rows: number, x: number, y: number, params: Params): Plan {
    const { d, kind } = c;
    const at = this.#tensors;
    at.x = x;
    at.y = y;
    at.stage = this.reserved.stage;
    // The chunk's CallAreas: the same staging.
    at.record = this.reserved.areas;
    let block = 0;
    if (d > CHUNK && kind.bytes === 2) {
      // A 16-bit row goes through float32: a row wider than the staging area gets a block here, as
      // rows wider than the chunk do, so that no memory is allocated inside the core (where running
      // out of it is an untyped status, not the RangeError every other allocation gives).
      block = at.stage = this.heap.allocate(4 * d, `${c.fn}: the float32 staging of a row of d = ${d} values`);
      recordAreas(this.heap, this.reserved.areas + AREAS_BYTES, at);
    }
    const p = this.#fill(this.#reused, NORMALIZE, c, rows, at, rows, params);
    p.copies = false;
    p.block = block;
    return p;
  }

  #fill(p: Plan, op: Op, job: Job, rows: number, at: Areas, perChunk: number, resident: Params | null): Plan {
    p.op = op;
    p.job = job;
    this.#spec(job);
    p.form = formWith(formOf(this.#specWire, this.#dtypeCode(job.kind)), job);
    p.rows = rows;
    p.at = at;
    p.perChunk = perChunk;
    p.copies = true;
    p.gamma = resident ? resident.gamma : job.gamma ? at.gamma : 0;
    p.beta = resident ? resident.beta : job.beta ? at.beta : 0;
    p.variance = null;
    p.block = 0;
    return p;
  }

  /**
   * The call's norm row (NORMS) and dtype code, the last call's kept: looked up by a name read
   * from the call, each is a hash of the name in V8 every time (together ~2% of a one-row call,
   * measured).
   */
  #spec(c: Job): NormSpec {
    if (c.norm !== this.#specNorm) {
      this.#specRow = NORMS[c.norm];
      this.#specWire = normWire(this.#specRow);
      this.#specNorm = c.norm;
    }
    return this.#specRow;
  }

  /** A plain call's form (isPlain: float32, so no area but its mean and rstd may be used); -1 for any other call. */
  plainForm(c: Job): number {
    if (!isPlain(c)) return -1;
    this.#spec(c);
    return formOf(this.#specWire, FLOAT32);
  }

  #dtypeCode(kind: ActivationKind): number {
    if (kind !== this.#codedKind) {
      this.#kindCode = DTYPE_CODES[kind.dtype];
      this.#codedKind = kind;
    }
    return this.#kindCode;
  }

  /**
   * The reserved areas for rows of width d (at most CHUNK). A stateless call's beta and residual
   * bias follow its gain (at 4d and 8d): placed a chunk apart, at one offset modulo 4 KiB with the
   * chunk's rows, they made layerNorm(x, d, { out }) and the 16-bit calls 2-4% slower at one row.
   */
  inChunk(d: number): Areas {
    return this.#chunkD === d ? this.#chunk : this.#layChunk(d);
  }

  #layChunk(d: number): Areas {
    const r = this.reserved;
    const at = Areas.of({
      x: r.x,
      r: r.r,
      gamma: r.params,
      beta: r.params + 4 * d,
      bias: r.params + 8 * d,
      mean: r.rowStats,
      rstd: r.rowStats + 8 * STAT_ROWS,
      stats: r.params,
      stage: r.stage,
    });
    recordAreas(this.heap, r.areas, at);
    this.#chunk = at;
    this.#chunkD = d;
    return at;
  }

  /**
   * Rows wider than the chunk, one a chunk, through a block allocated for the call (before any
   * argument is read) that also holds a stateless call's gain, bias and residual bias.
   */
  #normalizeWide(c: CheckedNorm, resident: Params | null): Plan {
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
    recordAreas(this.heap, this.reserved.areas + AREAS_BYTES, at);
    const job = asJob({ ...c, ...(args as Partial<Job>) });
    const p = this.#fill(new Plan(), NORMALIZE, job, c.rows, at, 1, resident);
    p.block = block;
    return p;
  }
}

/** Rows of width d a chunk holds, at most `most`: an integer division (a float one would make every count after it a float). */
function fit(d: number, most: number): number {
  return Math.min((CHUNK / d) | 0, most);
}
