/**
 * The parts of a call's plan: which entry point of the core its chunks go through (Op), where
 * each of its areas lives in wasm memory (Areas: the runtime's reserved chunk, or one block
 * allocated for the call before any argument is read, laid out by Layout), and the arrays moved
 * in and out (Job). executor.ts makes the plan of each call and moves it chunk by chunk.
 */
import type { ActivationKind } from '../checks/activations.js';
import type { CheckedNorm } from '../checks/call.js';
import type { ActivationArray } from '../types.js';
import { partiallyOverlaps } from '../checks/validate.js';

/** The core's entry point a plan's chunks go through. */
export const NORMALIZE = 0; // _lnw_layernorm (float32 LayerNorm, nothing fused) or _lnw_normalize
export const STATISTICS = 1; // _statistics: { mean, variance, rstd } per row
export const STAGES = 2; // _stages: one row's statistics and stage vectors
export type Op = typeof NORMALIZE | typeof STATISTICS | typeof STAGES;

/**
 * Heap addresses of a call's areas. A call uses those its arrays ask for; the rest are not read.
 * (One class, so that every plan's areas have one hidden class.)
 */
export class Areas {
  /** A chunk's rows, computed in place: the output comes back here. */
  x = 0;
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
