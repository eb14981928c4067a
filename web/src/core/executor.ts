/**
 * Runs the plans plan.ts makes, every call the same way (run): its gain, bias and residual bias
 * copied to their areas, then chunk by chunk (#step) its rows copied in, one call into the core,
 * its outputs copied out. Inputs go through a reserved chunk that stays cache-resident, computed
 * there in place, so large inputs need no large wasm allocation and a result never aliases wasm
 * memory. The per-token call is the same three steps written out (perToken). Besides it, each
 * entry point of the core is called from one place (#core, #records).
 */
import { ChunkViews } from './chunk-views.js';
import type { CheckedNorm } from '../checks/call.js';
import { Heap } from './heap.js';
import {
  CHUNK,
  isPerToken,
  NORMALIZE,
  type Params,
  type Job,
  type Plan,
  Planner,
  readable,
  STAGES,
  STAT_ROWS,
  type StagesCall,
  type StatsCall,
} from './plan.js';
import type { ActivationArray } from '../types.js';
import type { LayerNormModule } from '../wasm/module.js';
import { AREA_BIT, AREAS_BYTES } from './wire-call.js';

export interface StagesResult {
  stats: Float64Array; // mean, variance, rstd
  vectors: Float32Array[]; // input, sum, centered, normalized, scaled, output
}

export class Executor {
  readonly heap: Heap;
  readonly #planner: Planner;
  // Reserved for the runtime's lifetime, one block: the chunk, a residual chunk, the parameters of
  // a stateless call (gamma, beta, bias: CHUNK floats each; or the statistics' records), the
  // float32 staging of a 16-bit row (the core's own stack staging holds 4096 floats; wider rows
  // would make it allocate), the per-row statistics of a chunk, and two CallAreas (Reserved.areas).
  readonly #x: number;
  readonly #rowStats: number;
  readonly #areas: number;
  readonly #views: ChunkViews;

  constructor(module: LayerNormModule) {
    this.heap = new Heap(module);
    const bytes = 6 * CHUNK * 4 + 16 * STAT_ROWS + 2 * AREAS_BYTES;
    const x = this.heap.allocate(bytes, 'the runtime chunk and scratch buffers');
    const r = x + CHUNK * 4,
      params = r + CHUNK * 4,
      stage = params + 3 * CHUNK * 4,
      rowStats = stage + CHUNK * 4,
      areas = rowStats + 16 * STAT_ROWS;
    this.#planner = new Planner(this.heap, { x, r, params, stage, rowStats, areas });
    this.#views = new ChunkViews(this.heap, x, r);
    this.#x = x;
    this.#rowStats = rowStats;
    this.#areas = areas;
  }

  // ---- The calls: each has its plan made, then runs it.

  /** Any checked normalizing call; `resident` holds a LayerNorm object's gain and bias. Returns the output. */
  normalize(c: CheckedNorm, resident: Params | null): ActivationArray {
    if (c.rows === 0) return c.out ?? c.kind.make(0);
    const stats = c.mean !== null || c.rstd !== null;
    const form = this.#planner.plainForm(c);
    // isPerToken: rows × d fit the chunk (rows ≥ 1 here, so d does too).
    if (form >= 0 && isPerToken(c.rows, c.d, stats)) {
      // Its plan, without a Plan: the reserved areas, the gain and bias copied there when stateless.
      const at = this.#planner.inChunk(c.d);
      if (c.gamma) this.heap.write(at.gamma, c.gamma);
      if (c.beta) this.heap.write(at.beta, c.beta);
      const gamma = resident ? resident.gamma : c.gamma ? at.gamma : 0;
      const beta = resident ? resident.beta : c.beta ? at.beta : 0;
      const x = c.x as Float32Array;
      return this.perToken(form, x, c.out as Float32Array | null, c.rows, c.d, gamma, beta, c.eps, c.mean, c.rstd);
    }
    const p = this.#planner.normalize(c, resident);
    if (p.block !== 0 || p.perChunk < p.rows) return this.run(p)!;
    // One chunk in the reserved areas: run() with nothing to free and no loop, straight to #step
    // (web/bench/NOTES.md: through the loop, the one-row calls measured slower), the call itself
    // its job (Planner.normalize).
    if (c.gamma) this.heap.write(p.at.gamma, c.gamma);
    if (c.beta) this.heap.write(p.at.beta, c.beta);
    if (c.bias) this.heap.write(p.at.bias, c.bias);
    return this.#step(p, c, c.x, c.residual, 0, c.rows, c.out)!;
  }

  /** Per-row { mean, variance, rstd } into three Float64Arrays. */
  stats(c: StatsCall, mean: Float64Array, variance: Float64Array, rstd: Float64Array): void {
    this.run(this.#planner.statistics(c, mean, variance, rstd));
  }

  /** One row's statistics and stage vectors. */
  stages(c: StagesCall): StagesResult {
    const [mean, variance, rstd] = [new Float64Array(1), new Float64Array(1), new Float64Array(1)];
    const p = this.#planner.stages(c, mean, variance, rstd);
    this.run(p);
    return { stats: Float64Array.of(mean[0]!, variance[0]!, rstd[0]!), vectors: p.vectors };
  }

  /** A resident norm's tensor-to-tensor call (plan.ts: Planner.direct). */
  direct(c: CheckedNorm, rows: number, x: number, y: number, params: Params): void {
    this.run(this.#planner.direct(c, rows, x, y, params));
  }

  /**
   * The per-token call, the plan plan.ts's isPerToken names: one chunk of a plain call (float32,
   * any norm, nothing fused, its mean and rstd when asked for; `form`: Planner.plainForm) in the
   * reserved areas, whose CallAreas say where its mean and rstd go: copy in, one call, copy out,
   * with no loop. The stateless call (normalize()) and a resident norm's forward (its arrays
   * checked there, without a CheckedNorm) take it.
   * Written out because #step, which every other chunk goes through, is too big for V8 to inline
   * (web/bench/NOTES.md has the measurements).
   */
  perToken(
    form: number,
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
    const module = this.heap.module;
    const start = this.#x >>> 2;
    const meanAt = this.#rowStats,
      rstdAt = this.#rowStats + 8 * STAT_ROWS;
    module.HEAPF32.set(x, start);
    const used = form | (mean ? AREA_BIT.mean : 0) | (rstd ? AREA_BIT.rstd : 0);
    const status = module._lnw_normalize(used, rows, d, this.#x, this.#x, gamma, beta, eps, this.#areas);
    if (status !== 0) this.heap.check(status, 'layerNorm');
    if (mean) copyRows(module.HEAPF64, meanAt, 1, mean, 0, rows);
    if (rstd) copyRows(module.HEAPF64, rstdAt, 1, rstd, 0, rows);
    if (out === null) return module.HEAPF32.slice(start, start + rows * d);
    out.set(this.#views.floats(this.#x, rows * d));
    return out;
  }

  // ---- Running a plan: the one loop, and the one place each entry point of the core is called.

  /** Runs `p`; returns the output of a normalizing call that copies (a new array when the job has no `out`). */
  run(p: Plan): ActivationArray | null {
    try {
      this.#stageParams(p);
      const job = p.job;
      if (!p.copies) {
        this.#core(p, job, p.at.x, p.at.y, p.rows);
        return null;
      }
      return p.perChunk >= p.rows ? this.#step(p, job, job.x, job.residual, 0, p.rows, job.out) : this.#chunks(p);
    } finally {
      this.heap.free(p.block);
      p.release();
    }
  }

  /** Copies a stateless call's gain, beta and residual bias (those it has) to their areas. */
  #stageParams(p: Plan): void {
    const { job, at } = p;
    if (job.gamma) this.heap.write(at.gamma, job.gamma);
    if (job.beta) this.heap.write(at.beta, job.beta);
    if (job.bias) this.heap.write(at.bias, job.bias);
  }

  /** The loop over chunks, for a plan of more than one. */
  #chunks(p: Plan): ActivationArray | null {
    const { x, residual } = readable(p.job);
    let out = p.job.out;
    for (let first = 0; first < p.rows; first += p.perChunk) {
      out = this.#step(p, p.job, x, residual, first, Math.min(p.perChunk, p.rows - first), out);
    }
    return out;
  }

  /**
   * One chunk, rows [first, first + n) of the plan, whose job is `job`: its rows (and residual rows) in, one call into
   * the core, its outputs out. Returns the output so far of a normalizing call. Written out in one
   * function, which V8 compiles on its own (web/bench/NOTES.md: helpers of their own were slower).
   */
  #step(
    p: Plan,
    job: Job,
    x: ActivationArray,
    residual: ActivationArray | null,
    first: number,
    n: number,
    out: ActivationArray | null,
  ): ActivationArray | null {
    const module = this.heap.module;
    const at = p.at;
    const { kind, d } = job;
    const f32 = kind.bytes === 4;
    const from = first * d,
      count = n * d,
      whole = n === p.rows;
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
    if (p.op !== NORMALIZE) return this.#records(p, job, first, n);
    this.#core(p, job, at.x, at.x, n);
    if (!f32) {
      out ??= kind.make(p.rows * d);
      kind.units(out).set(this.#views.halves(at.x, count), from);
    } else if (out === null && whole) {
      out = module.HEAPF32.slice(at.x >>> 2, (at.x >>> 2) + count);
    } else {
      (out ??= new Float32Array(p.rows * d)).set(this.#views.floats(at.x, count), from);
    }
    if (job.sumOut)
      kind.units(job.sumOut).set(f32 ? this.#views.floats(at.r, count) : this.#views.halves(at.r, count), from);
    if (job.mean) copyRows(module.HEAPF64, at.mean, 1, job.mean, first, n);
    if (job.rstd) copyRows(module.HEAPF64, at.rstd, 1, job.rstd, first, n);
    return out;
  }

  /** `n` rows from x to y through `_lnw_normalize`, in the plan's form, its areas at p.at.record. */
  #core(p: Plan, job: Job, x: number, y: number, n: number): void {
    const status = this.heap.module._lnw_normalize(p.form, n, job.d, x, y, p.gamma, p.beta, job.eps, p.at.record);
    if (status !== 0) this.heap.check(status, job.fn);
  }

  /**
   * `n` rows at at.x through `_statistics` or `_stages`, and their { mean, variance, rstd } records
   * out into the job's mean and rstd and the plan's variance (the stages' vectors into p.vectors).
   */
  #records(p: Plan, job: Job, first: number, n: number): null {
    const at = p.at;
    const module = this.heap.module;
    // The stages' vectors follow their record (Planner.stages).
    const status =
      p.op === STAGES
        ? module._stages(p.form, job.d, at.x, p.gamma, p.beta, job.eps, at.record, at.stats)
        : module._statistics(p.form, n, job.d, at.x, job.eps, at.record, at.stats);
    if (status !== 0) this.heap.check(status, job.fn);
    const f64 = module.HEAPF64;
    copyRows(f64, at.stats, 3, job.mean!, first, n);
    copyRows(f64, at.stats + 8, 3, p.variance!, first, n);
    copyRows(f64, at.stats + 16, 3, job.rstd!, first, n);
    if (p.op === STAGES) {
      const v = this.heap.f32(at.vectors, 6 * job.d);
      p.vectors = Array.from({ length: 6 }, (_, i) => v.slice(i * job.d, (i + 1) * job.d));
    }
    return null;
  }
}

/** Per-row statistics from the heap at `at` (`stride` float64 values apart) into out[first…first + n). */
function copyRows(heap: Float64Array, at: number, stride: number, out: Float64Array, first: number, n: number): void {
  for (let r = 0, i = at >>> 3; r < n; r++, i += stride) out[first + r] = heap[i]!;
}
