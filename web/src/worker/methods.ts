/**
 * How each method crosses to the worker: the one list both sides read. A runtime method that is
 * not here does not exist on the worker; adding one is an entry here and its line in types.ts (a
 * norm's methods come from its row in norms.ts, here and in types.ts).
 * Options pass through untouched, so a new option of an existing method needs nothing, unless it
 * is an array with a role below (read-only per feature, or one entry per row).
 */
import { checkNormCall, type NormKind } from '../checks/call.js';
import { NORM_KINDS, NORMS } from '../norms.js';
import { checkForward } from '../core/resident.js';
import type { DType } from '../types.js';

/** What the caller's thread knows of a resident object in the worker. */
export interface ResidentShape {
  norm: NormKind;
  d: number;
  eps: number;
  dtype: DType;
}

export interface MethodSpec {
  /** Number of arguments the runtime's method takes (the worker passes no more). */
  arity: number;
  /** Index of the options object: worker options (signal, onProgress, transfer) are taken from it. */
  options?: number;
  /**
   * The rows of args[0] are independent (width args[d], or the resident object's d), so the worker
   * may cut a large call into slices of rows, for progress and cancellation between them.
   * 'array': the result is the rows × d output; 'per-row': an object of one-entry-per-row arrays.
   */
  rows?: 'array' | 'per-row';
  /** Position of d among the arguments; absent for resident objects, which know their d. */
  d?: number;
  /** Where the output array goes ('options' for options.out, or its argument position). */
  out?: 'options' | number;
  /**
   * The runtime's own first checks, run in the caller's thread before an input moves to the
   * worker, so that a call that is going to fail does not take the caller's array with it.
   */
  precheck?: (args: unknown[], resident?: ResidentShape) => void;
  /** The method returns a resident object: the worker keeps it and answers with these fields. */
  resident?: readonly string[];
}

const RESIDENT_FIELDS = ['norm', 'd', 'eps', 'dtype', 'hasGamma', 'hasBeta'] as const;

/** Each norm's call, stages and resident norm, under the names its row in norms.ts gives. */
function normMethods(norm: NormKind): Record<string, MethodSpec> {
  const { call, stages, create } = NORMS[norm].api;
  return {
    [call]: {
      arity: 3,
      options: 2,
      rows: 'array',
      d: 1,
      out: 'options',
      precheck: ([x, d, options]) => void checkNormCall(call, norm, x, d, options),
    },
    [stages]: { arity: 4, options: 3 },
    [create]: { arity: 2, resident: RESIDENT_FIELDS },
  };
}

export const RUNTIME_METHODS: Record<string, MethodSpec> = {
  ...Object.assign({}, ...NORM_KINDS.map(normMethods)),
  layerNormalization: { arity: 3, options: 2 },
  layerNormStats: { arity: 3, options: 2, rows: 'per-row', d: 1 },
  heapInUse: { arity: 0 },
};

/** Methods of the resident LayerNorm (createLayerNorm's and createRmsNorm's result). */
export const LAYER_NORM_METHODS: Record<string, MethodSpec> = {
  forward: {
    arity: 2,
    options: 2,
    rows: 'array',
    out: 1,
    precheck: ([x, out], resident) => void checkForward(resident!, x, out),
  },
};

/** Option arrays of length d that calls only read (never cut into slices, never sent back). */
export const FEATURE_OPTIONS: ReadonlySet<string> = new Set(['gamma', 'beta', 'bias']);

/**
 * Option arrays with a fixed number of entries per row, cut into slices with the input: 'd' for
 * rows × d arrays, 1 for one entry per row. `reads` marks the ones calls only read.
 */
export const ROW_OPTIONS: ReadonlyMap<string, { perRow: 'd' | 1; reads: boolean }> = new Map([
  ['residual', { perRow: 'd', reads: true }],
  ['sumOut', { perRow: 'd', reads: false }],
  ['mean', { perRow: 1, reads: false }],
  ['rstd', { perRow: 1, reads: false }],
]);

/** The keys of the options object that belong to the worker, not to the runtime. */
export const WORKER_OPTIONS = ['signal', 'onProgress', 'transfer'] as const;

/** Floats per slice of a large call (4 MiB): progress and cancellation points ~1–3 ms apart. */
export const SLICE_FLOATS = 1 << 20;
