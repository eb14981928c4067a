export { errorsRow, errorsRows, namesABrowser, quotes, rule, type ErrorsRow } from './rows.mjs';
export { andThen } from './values.mjs';

/** What a driver gives each case's call. */
export interface Context {
  /** The runtime under test: init()'s on the main thread, initWorker()'s in the worker driver. */
  t: any;
  /** x: a new Float32Array(12) of i · 0.5 (4 rows of d = 3) at each call. */
  x(): Float32Array;
  /** x's float16 bits, a new Uint16Array(12) at each call. */
  u(): Uint16Array;
  f32(n: number): Float32Array;
  f64(n: number): Float64Array;
  u16(n: number): Uint16Array;
  /** `a`, its buffer transferred away. */
  detached<T extends ArrayBufferView>(a: T): T;
  /** A LayerNorm of d = 3 made once (t.createLayerNorm(3)). */
  norm3: any;
  /** A LayerNorm and an RMSNorm of d = 3, disposed. */
  disposedNorm: any;
  disposedRmsNorm: any;
  /** The engine's Float16Array, where it has one (cases that need it are skipped, visibly, elsewhere). */
  Float16Array?: new (n: number) => ArrayBufferView;
  /**
   * Main thread only: the package's exports, its inline entry (layernorm-wasm/inline), its I/O
   * module, the loader's feature tests (to fake a missing SIMD128).
   */
  pkg?: any;
  inline?: any;
  io?: any;
  features?: { simd(): Promise<boolean> };
  /**
   * Main thread only, allocated once: a43 (4 × 3), b23 (2 × 3), c44 (4 × 4), t13 (1 × 3), f16 and
   * bf16 (1 × 3 of those dtypes), disposed (1 × 3, disposed), foreign (4 × 3, of the scalar runtime).
   */
  tensors?: Record<'a43' | 'b23' | 'c44' | 't13' | 'f16' | 'bf16' | 'disposed' | 'foreign', any>;
}

export type ErrorName =
  | 'TypeError'
  | 'RangeError'
  | 'DisposedError'
  | 'UnsupportedError'
  | 'FormatError'
  | 'FetchError'
  | 'WasmLoadError'
  | 'WorkerError';

export interface ErrorCase {
  /** The table its row of data is in: numeric, norms, io-arguments, files, worker. */
  area: string;
  /** Its row in web/docs/errors.md. */
  row: string;
  name: string;
  call(c: Context): unknown;
  error: ErrorName;
  /** The message as thrown; "…" stands for text that depends on the machine (as in errors.md). */
  message: string;
  /** Where it runs: main thread only (allocate, tensors, init, the references, I/O), a worker only, or both. */
  on: 'main' | 'worker' | 'both';
  /** The call rejects (an async function); otherwise it throws. Through a worker every call rejects. */
  async: boolean;
  /** What the engine must have for the case to run. */
  needs: 'Float16Array' | null;
}

export const CASES: ErrorCase[];
export function casesFor(where: 'main' | 'worker'): ErrorCase[];
