/** Public types of layernorm-wasm/worker. */
import type {
  ActivationArray,
  Backend,
  DType,
  InitOptions,
  LayerNormalizationOptions,
  LayerNormalizationResult,
  LayerNormStats,
  NormCallOptions,
  NormOptions,
  NormSpecOf,
  NormStages,
  NormStagesOptions,
} from '../types.js';
import type { NormKind } from '../norms.js';
import type { NodeWorkerLike, WebWorkerLike } from './endpoint.js';

export type { NodeWorkerLike, WebWorkerLike };

export interface WorkerInitOptions extends InitOptions {
  /**
   * Starts the worker yourself, running the package's worker script (`layernorm-wasm/worker/script`),
   * for setups where the bundler does not emit it on its own (e.g. esbuild):
   * `() => new Worker('/assets/layernorm-worker.js', { type: 'module' })`. In Node, a
   * worker_threads Worker. Call the LayerNormWorker's dispose() rather than terminating it yourself.
   */
  worker?: () => WebWorkerLike | NodeWorkerLike;
}

/** Options every worker call takes besides the runtime's own. */
export interface WorkerCallOptions {
  /**
   * Cancels the call: its promise rejects at once with `signal.reason`. A call still queued never
   * runs; a large row-wise call that has started stops at its next slice of rows (about 4 MiB);
   * a call that has started otherwise runs to its end in the worker and its result is dropped.
   */
  signal?: AbortSignal;
  /**
   * Called with (rows done, rows in all) after each slice of a large row-wise call (about 4 MiB),
   * and once when a smaller one has finished.
   */
  onProgress?: (rowsDone: number, rowsTotal: number) => void;
}

/** For calls that write a rows × d result. */
export interface WorkerTransferOption {
  /**
   * true (default): the array that receives the result (`out` when given, else `x`) moves to the
   * worker and back, and is detached (length 0) in your thread from the call on; the result
   * arrives in that same memory, as a new Float32Array. No bytes are copied. (Except where an
   * array the call also writes, `sumOut`, `mean` or `rstd`, is in that memory, as `sumOut: x` is:
   * then that memory stays, as with `transfer: false`.)
   * false: nothing you pass is detached; inputs are copied to the worker, and `out`, when given,
   * is filled when the result arrives (the promise then resolves to `out` itself).
   */
  transfer?: boolean;
}

/** Each norm's methods in the worker, under the names its row gives (as `NormMethods`), returning promises. */
export type WorkerNormMethods = {
  [K in NormKind as NormSpecOf<K>['api']['call']]: <A extends ActivationArray = Float32Array>(
    x: A,
    d: number,
    options?: NormCallOptions<K, A> & WorkerCallOptions & WorkerTransferOption,
  ) => Promise<A>;
} & {
  [K in NormKind as NormSpecOf<K>['api']['stages']]: (
    x: ActivationArray,
    d: number,
    row: number,
    options?: NormStagesOptions<K> & Pick<WorkerCallOptions, 'signal'>,
  ) => Promise<NormStages<K>>;
} & {
  /** γ (and β) stay in the worker's memory; later calls send only the activations. */
  [K in NormKind as NormSpecOf<K>['api']['create']]: (d: number, options?: NormOptions<K>) => Promise<WorkerLayerNorm>;
};

/**
 * A runtime in its own worker: the methods of `LayerNormRuntime`, returning promises. Calls run
 * one at a time, in the order they were made.
 */
export interface LayerNormWorker extends WorkerNormMethods {
  readonly backend: Backend;
  readonly kernel: string;
  layerNormalization<A extends ActivationArray = Float32Array>(
    x: A,
    shape: readonly number[],
    options?: LayerNormalizationOptions & Pick<WorkerCallOptions, 'signal'>,
  ): Promise<LayerNormalizationResult<A>>;
  layerNormStats(
    x: ActivationArray,
    d: number,
    options?: { eps?: number; dtype?: DType } & WorkerCallOptions,
  ): Promise<LayerNormStats>;
  /** Bytes of the worker's wasm heap in use (for leak checks). */
  heapInUse(): Promise<number>;
  /**
   * Stops the worker at once: pending calls reject with DisposedError, later ones too.
   * Idempotent; also `using`.
   */
  dispose(): void;
  readonly disposed: boolean;
  [Symbol.dispose](): void;
}

/** createLayerNorm's and createRmsNorm's result: a norm whose γ and β live in the worker. */
export interface WorkerLayerNorm {
  readonly norm: NormKind;
  readonly d: number;
  readonly eps: number;
  readonly dtype: DType;
  readonly hasGamma: boolean;
  readonly hasBeta: boolean;
  forward<A extends ActivationArray = Float32Array>(
    x: A,
    out?: A,
    options?: WorkerCallOptions & WorkerTransferOption,
  ): Promise<A>;
  /** Frees γ and β in the worker (idempotent; also `using`); later forward calls reject with DisposedError. */
  dispose(): void;
  readonly disposed: boolean;
  [Symbol.dispose](): void;
}
