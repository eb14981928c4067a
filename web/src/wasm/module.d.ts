/** The raw module built from cpp/bindings/embind.cc. Internal: use the façade. */
export interface LayerNormModule {
  HEAPU8: Uint8Array;
  HEAPU16: Uint16Array;
  HEAPF32: Float32Array;
  HEAPF64: Float64Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  /**
   * The float32 LayerNorm in plain arguments (a plain wasm export, not Embind), with its per-row
   * mean and rstd when asked for; addresses 0 for null.
   */
  _lnw_layernorm(
    x: number,
    y: number,
    rows: number,
    d: number,
    gamma: number,
    beta: number,
    eps: number,
    mean: number,
    rstd: number,
  ): number;
  /** Any call, each NormCall field an argument (norm and dtype by their wire codes); a plain wasm export too. */
  _lnw_normalize(
    norm: number,
    dtype: number,
    rows: number,
    d: number,
    x: number,
    y: number,
    gamma: number,
    beta: number,
    residual: number,
    bias: number,
    sumOut: number,
    mean: number,
    rstd: number,
    scratch: number,
    eps: number,
  ): number;
  /** rows × { mean, variance, rstd } (float64) of the call at `wire` into `stats`. */
  _statistics(wire: number, stats: number): number;
  /** One row's stats and six stage vectors of d floats (input, sum, centered, normalized, scaled, output). */
  _stages(wire: number, stats: number, stages: number): number;
  _kernelName(): string;
  _heapInUse(): number;
}

export interface ModuleOptions {
  /** Instantiates the module with the glue's imports and hands the instance to `receive`. */
  instantiateWasm(
    imports: WebAssembly.Imports,
    receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void,
  ): object;
  print?: (text: string) => void;
  printErr?: (text: string) => void;
  onAbort?: (what: unknown) => void;
}

export type ModuleFactory = (options: ModuleOptions) => Promise<LayerNormModule>;
