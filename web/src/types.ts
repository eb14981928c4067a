/**
 * Public types of layernorm-wasm. Everything here is re-exported from the package root.
 *
 * May import: norms.ts.
 */
import type { MomentKey, NORMS, NormKind } from './norms.js';

export type { FormOf, NormFacts, NormForm, NormFormSpec, NormKind, NormSpec } from './norms.js';

export type Backend = 'simd' | 'scalar';

declare global {
  interface SymbolConstructor {
    /**
     * Symbol.dispose (explicit resource management: `using`). Declared here as TypeScript's own
     * lib.esnext.disposable does, so projects whose `lib` lacks it still compile these types.
     */
    readonly dispose: unique symbol;
  }
}

/**
 * One .wasm file as init() accepts it: its URL (absolute, or relative to the page), its bytes,
 * a fetch Response for it, or the module already compiled.
 */
export type WasmSource = string | URL | ArrayBuffer | ArrayBufferView | Response | CompiledWasm;

/**
 * WebAssembly.Module, where the project's lib declares it (dom, webworker): Node projects
 * typed with @types/node alone have no WebAssembly namespace, and must still compile these types.
 */
export type CompiledWasm = typeof globalThis extends {
  WebAssembly: { Module: abstract new (...args: never) => infer M };
}
  ? M
  : never;

export interface InitOptions {
  /** 'auto' (default) loads the SIMD build where wasm SIMD128 is supported, else the scalar build. */
  backend?: 'auto' | Backend;
  /**
   * Where the .wasm files are, when not where the package finds them itself:
   * - a base URL (string or URL) of the folder that holds `layernorm-simd.wasm` and
   *   `layernorm-scalar.wasm` (copied from the package's `dist/wasm/`, or a CDN's copy);
   * - or per backend, `{ simd?, scalar? }`: that file's URL, bytes, Response or compiled module.
   *   A backend left out is found as by default.
   *
   * Default: next to the package's JS (bundlers that understand `new URL(…, import.meta.url)`
   * emit the files; Node reads them from disk), and where that does not answer with the file,
   * the copy embedded in the package's JS. A source given here is never replaced by the embedded
   * copy: if it fails, init() rejects with a WasmLoadError naming it.
   * Only the first successful init() per backend loads a module; later calls share it.
   */
  wasm?: string | URL | { simd?: WasmSource; scalar?: WasmSource };
}

/** The type of the activations (x, out, residual, sumOut); gamma, beta and bias are always float32. */
export type DType = 'float32' | 'float16' | 'bfloat16';

/**
 * Float16Array, where the project's lib declares it (TypeScript 5.7+ with lib esnext): projects
 * whose lib lacks it must still compile these types.
 */
export type Float16ArrayType = typeof globalThis extends {
  Float16Array: abstract new (...args: never) => infer A;
}
  ? A
  : never;

/**
 * Activation arrays: float32 values in a Float32Array; float16 in a Float16Array (where the engine has
 * one), or their bits in a Uint16Array with `dtype: 'float16'`; bfloat16 bits in a Uint16Array
 * with `dtype: 'bfloat16'`. A call returns the same kind of array it was given.
 */
export type ActivationArray = Float32Array | Uint16Array | Float16ArrayType;

/** A norm's row in the table (norms.ts): the facts its options, stages and methods follow. */
export type NormSpecOf<K extends NormKind> = (typeof NORMS)[K];
type IfBias<K extends NormKind, Then, Else = unknown> = NormSpecOf<K>['bias'] extends true ? Then : Else;
type IfCentred<K extends NormKind, Then, Else = unknown> = NormSpecOf<K>['centred'] extends true ? Then : Else;

/** What every norm takes: its gain, ε and the activations' type. */
export interface NormParams {
  /** Gain γ of length d; null or omitted means ones. */
  gamma?: Float32Array | null;
  /** ε added under the square root (to the variance, or the mean square); any finite number ≥ 0. Default 1e-5. */
  eps?: number;
  /** What a Uint16Array holds ('float16' or 'bfloat16'); implied by a Float32Array or Float16Array. */
  dtype?: DType;
}

/** The bias of a norm that has one (LayerNorm). */
export interface BetaOption {
  /** Bias β of length d; null or omitted means zeros (the bias-free variant). */
  beta?: Float32Array | null;
}

/** A norm's parameters: γ, ε, and β where the norm has a bias. */
export type NormOptions<K extends NormKind> = NormParams & IfBias<K, BetaOption>;
export type LayerNormOptions = NormOptions<'layernorm'>;
export type RmsNormOptions = NormOptions<'rmsnorm'>;

/**
 * The residual add before a norm, fused into the call (onnxruntime's SkipLayerNormalization):
 * the norm is taken of h = (x + residual) + bias, computed in float32 and rounded once to the
 * activations' type, exactly what the call would give on that h as its x.
 */
export interface ResidualOptions<A extends ActivationArray = Float32Array> {
  /** The residual stream r (same kind and length as x). */
  residual?: A | null;
  /** A per-feature bias (length d) added with the residual; needs `residual`. */
  bias?: Float32Array | null;
  /** Receives h (same kind and length as x; may be x or residual, not out); needs `residual`. */
  sumOut?: A | null;
}

/** Where a call writes: its output and each row's 1 / √(moment + ε). */
export interface OutputOptions<A extends ActivationArray = Float32Array> {
  /** Where to write the result (length rows·d). May be `x` itself (in place). */
  out?: A;
  /** Receives each row's 1 / √(σ² + ε), or 1 / √(mean(x²) + ε) (length rows), from the same pass (ONNX's InvStdDev). */
  rstd?: Float64Array | null;
}

/** The mean of a centred norm's rows. */
export interface MeanOption {
  /** Receives each row's mean (length rows), from the same pass that normalizes (ONNX's Mean). */
  mean?: Float64Array | null;
}

/** A norm call's options: its parameters, the fused residual, and its outputs (the mean where it centres). */
export type NormCallOptions<K extends NormKind, A extends ActivationArray = Float32Array> = NormOptions<K> &
  ResidualOptions<A> &
  OutputOptions<A> &
  IfCentred<K, MeanOption>;
export type LayerNormCallOptions<A extends ActivationArray = Float32Array> = NormCallOptions<'layernorm', A>;
export type RmsNormCallOptions<A extends ActivationArray = Float32Array> = NormCallOptions<'rmsnorm', A>;

/** A gain or bias for `layerNormalization`: its values and ONNX shape (default: the normalized shape). */
export type OnnxTensorInput = Float32Array | { data: Float32Array; shape: readonly number[] };

export interface LayerNormalizationOptions {
  /** The first normalized dimension (ONNX `axis`; negative counts from the end). Default -1. */
  axis?: number;
  /**
   * ONNX `Scale`: broadcastable to the normalized dimensions (x's shape from `axis` on), aligned at
   * the last; it may have x's rank, its dimensions before the normalized ones then 1s.
   */
  gamma?: OnnxTensorInput | null;
  /** ONNX `B`: broadcastable to the normalized dimensions, as `gamma`. */
  beta?: OnnxTensorInput | null;
  /** ONNX `epsilon`. Default 1e-5. */
  epsilon?: number;
  /** What a Uint16Array x holds. */
  dtype?: DType;
}

/** ONNX LayerNormalization's outputs, with ONNX's shapes. */
export interface LayerNormalizationResult<A extends ActivationArray = Float32Array> {
  /** Y: x normalized over the dimensions from `axis` on (x's shape). */
  y: A;
  /** Mean: one value per normalized group (float64, as computed). */
  mean: Float64Array;
  /** InvStdDev: 1 / √(σ² + ε) per group. */
  invStdDev: Float64Array;
  /** The shape of y (x's). */
  shape: number[];
  /** The shape of mean and invStdDev: x's up to `axis`, then ones. */
  statsShape: number[];
}

/**
 * Per-row statistics, one entry per row, in the float64 the kernel computes them in (not rounded
 * to float32: a variance or rstd beyond float32's range, as for rows of subnormals with eps 0,
 * stays exact). The same values as `layerNormStages` reports for that row.
 */
export interface LayerNormStats {
  mean: Float64Array;
  variance: Float64Array;
  rstd: Float64Array;
}

/** A stages call's options: the norm's parameters, and the residual its stages then start from. */
export type NormStagesOptions<K extends NormKind> = NormOptions<K> & {
  /** The residual row's stream, of x's kind and length: the stages then start from h = x + r (+ bias). */
  residual?: ActivationArray | null;
  /** A per-feature bias added with the residual. */
  bias?: Float32Array | null;
};
export type LayerNormStagesOptions = NormStagesOptions<'layernorm'>;
export type RmsNormStagesOptions = NormStagesOptions<'rmsnorm'>;

/**
 * Every stage of the computation for one row, as the kernel's own arithmetic produces it, as
 * float32 values (for float16 / bfloat16 activations, `input`, `sum` and `output` hold values of
 * that type, exactly).
 */
export interface StagesOfEveryNorm {
  row: number;
  d: number;
  /** 1 / √(moment + ε) */
  rstd: number;
  eps: number;
  dtype: DType;
  input: Float32Array; // x
  residual?: Float32Array; // r (with a residual)
  sum?: Float32Array; // h = x + r (+ bias), as normalized (with a residual)
  normalized: Float32Array; // x̂ = (x − μ) · rstd, or x · rstd
  output: Float32Array; // bit-identical to the call's output
}

/** A centred norm's mean and its centring. */
export interface CentredStages {
  mean: number;
  centered: Float32Array; // x − μ
}

/**
 * The norm K's moment, under the name its facts give it (norms.ts, MOMENT_KEYS): `variance` of a
 * LayerNorm, `meanSquare` (mean(x²)) of an RMSNorm.
 */
export type MomentStage<K extends NormKind> = { [P in MomentKey<NormSpecOf<K>>]: number };

/** The gain's product before a norm's bias is added. */
export interface ScaledStage {
  scaled: Float32Array; // γ ⊙ x̂
}

/** One row's stages for the norm K: its statistics, and a stage per step its row has. */
export type NormStages<K extends NormKind> = StagesOfEveryNorm &
  IfCentred<K, CentredStages> &
  MomentStage<K> &
  IfBias<K, ScaledStage>;
export type LayerNormStages = NormStages<'layernorm'>;
export type RmsNormStages = NormStages<'rmsnorm'>;

/** The storage of a WasmTensor: floats, or the bits of float16 / bfloat16 values. */
export type TensorArray = Float32Array | Uint16Array;

/** A rows × d tensor living in wasm memory (zero-copy API), float32 unless allocated with a dtype. */
export interface WasmTensor<A extends TensorArray = Float32Array> {
  readonly rows: number;
  readonly d: number;
  readonly length: number;
  readonly dtype: DType;
  /**
   * A view of the tensor's wasm memory (a Uint16Array of bits for float16 / bfloat16), created
   * fresh on each access. A view you keep becomes invalid (detached, length 0) when wasm memory
   * grows, which any allocation may cause: re-read `view` after allocating.
   */
  readonly view: A;
  /** Copies values (for float16 / bfloat16: bit patterns) in, from `offset` on. */
  set(data: ArrayLike<number>, offset?: number): void;
  toArray(): A;
  dispose(): void;
  readonly disposed: boolean;
  [Symbol.dispose](): void;
}

/** A LayerNorm or RMSNorm whose γ (and β) stay in wasm memory, for repeated calls. */
export interface LayerNorm {
  readonly norm: NormKind;
  readonly d: number;
  readonly eps: number;
  /** The activations it takes: a Float32Array for 'float32', else a Uint16Array of bits (or a Float16Array). */
  readonly dtype: DType;
  readonly hasGamma: boolean;
  readonly hasBeta: boolean;
  /** Normalizes x (rows·d values); writes into `out` when given (may be x), else returns a new array. */
  forward<A extends ActivationArray = Float32Array>(x: A, out?: A): A;
  /** Zero-copy: normalizes a resident tensor into another (or the same) resident tensor of its dtype. */
  forwardTensor(input: WasmTensor<TensorArray>, output: WasmTensor<TensorArray>): void;
  dispose(): void;
  readonly disposed: boolean;
  [Symbol.dispose](): void;
}

/**
 * Each norm's methods, under the names its row gives (norms.ts `api`): the call (e.g. `layerNorm`)
 * and one row's stages (`layerNormStages`); NormMethods adds a resident norm (`createLayerNorm`).
 */
export type NormCallMethods = {
  [K in NormKind as NormSpecOf<K>['api']['call']]: <A extends ActivationArray = Float32Array>(
    x: A,
    d: number,
    options?: NormCallOptions<K, A>,
  ) => A;
} & {
  [K in NormKind as NormSpecOf<K>['api']['stages']]: (
    x: ActivationArray,
    d: number,
    row: number,
    options?: NormStagesOptions<K>,
  ) => NormStages<K>;
};

export type NormMethods = NormCallMethods & {
  /** A norm whose γ (and β) stay in wasm memory. */
  [K in NormKind as NormSpecOf<K>['api']['create']]: (d: number, options?: NormOptions<K>) => LayerNorm;
};

/**
 * What a caller that only normalizes rows and reads their stages needs of a runtime (the explainer
 * element): every LayerNormRuntime is one.
 */
export interface NormCallRuntime extends NormCallMethods {
  readonly backend: Backend;
  /** Name of the kernel that actually runs, e.g. "f32_layernorm_ukernel__wasmsimd_u8". */
  readonly kernel: string;
}

export interface LayerNormRuntime extends NormCallRuntime, NormMethods {
  /** ONNX LayerNormalization (opset 17): normalizes over the dimensions of `shape` from `axis` on. */
  layerNormalization<A extends ActivationArray = Float32Array>(
    x: A,
    shape: readonly number[],
    options?: LayerNormalizationOptions,
  ): LayerNormalizationResult<A>;
  layerNormStats(x: ActivationArray, d: number, options?: { eps?: number; dtype?: DType }): LayerNormStats;
  allocate(rows: number, d: number, options?: { dtype?: 'float32' }): WasmTensor<Float32Array>;
  allocate(rows: number, d: number, options: { dtype: 'float16' | 'bfloat16' }): WasmTensor<Uint16Array>;
  /** Bytes of wasm heap currently in use by the runtime (for leak checks). */
  heapInUse(): number;
}
