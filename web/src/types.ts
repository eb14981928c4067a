/** Public types of layernorm-wasm. Everything here is re-exported from the package root. */

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

export interface LayerNormOptions {
  /** Gain γ of length d; null or omitted means ones. */
  gamma?: Float32Array | null;
  /** Bias β of length d; null or omitted means zeros (the bias-free variant). */
  beta?: Float32Array | null;
  /** ε added to the variance; any finite number ≥ 0. Default 1e-5. */
  eps?: number;
}

export interface LayerNormCallOptions extends LayerNormOptions {
  /** Where to write the result (length rows·d). May be `x` itself (in place). */
  out?: Float32Array;
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

/** Every stage of the computation for one row, as the kernel's own arithmetic produces it. */
export interface LayerNormStages {
  row: number;
  d: number;
  mean: number;
  variance: number;
  rstd: number;
  eps: number;
  input: Float32Array; // x
  centered: Float32Array; // x − μ
  normalized: Float32Array; // x̂ = (x − μ) · rstd
  scaled: Float32Array; // γ ⊙ x̂
  output: Float32Array; // γ ⊙ x̂ + β  (bit-identical to layerNorm's output)
}

/** A rows × d float32 tensor living in wasm memory (zero-copy API). */
export interface WasmTensor {
  readonly rows: number;
  readonly d: number;
  readonly length: number;
  /**
   * A Float32Array view of the tensor's wasm memory, created fresh on each access.
   * A view you keep becomes invalid (detached, length 0) when wasm memory grows, which any
   * allocation may cause: re-read `view` after allocating.
   */
  readonly view: Float32Array;
  set(data: ArrayLike<number>, offset?: number): void;
  toArray(): Float32Array;
  dispose(): void;
  readonly disposed: boolean;
  [Symbol.dispose](): void;
}

export interface LayerNorm {
  readonly d: number;
  readonly eps: number;
  readonly hasGamma: boolean;
  readonly hasBeta: boolean;
  /** Normalizes x (rows·d values); writes into `out` when given (may be x), else returns a new array. */
  forward(x: Float32Array, out?: Float32Array): Float32Array;
  /** Zero-copy: normalizes a resident tensor into another (or the same) resident tensor. */
  forwardTensor(input: WasmTensor, output: WasmTensor): void;
  dispose(): void;
  readonly disposed: boolean;
  [Symbol.dispose](): void;
}

export interface LayerNormRuntime {
  readonly backend: Backend;
  /** Name of the kernel that actually runs, e.g. "f32_layernorm_ukernel__wasmsimd_u8". */
  readonly kernel: string;
  layerNorm(x: Float32Array, d: number, options?: LayerNormCallOptions): Float32Array;
  layerNormStats(x: Float32Array, d: number, options?: { eps?: number }): LayerNormStats;
  layerNormStages(x: Float32Array, d: number, row: number, options?: LayerNormOptions): LayerNormStages;
  createLayerNorm(d: number, options?: LayerNormOptions): LayerNorm;
  allocate(rows: number, d: number): WasmTensor;
  /** Bytes of wasm heap currently in use by the runtime (for leak checks). */
  heapInUse(): number;
}
