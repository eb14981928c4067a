/** The raw module built from cpp/bindings/embind.cc. Internal: use the façade. */
export interface LayerNormModule {
  HEAPU8: Uint8Array;
  HEAPU16: Uint16Array;
  HEAPF32: Float32Array;
  HEAPF64: Float64Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  /**
   * Any normalizing call in plain arguments (a plain wasm export, not Embind): its form (formOf and
   * AREA_BIT, web/src/core/wire-call.ts) and the address of the CallAreas struct its optional
   * areas are read from (0: none); addresses 0 for null.
   */
  _lnw_normalize(
    form: number,
    rows: number,
    d: number,
    x: number,
    y: number,
    gamma: number,
    beta: number,
    eps: number,
    areas: number,
  ): number;
  /** rows × { mean, variance, rstd } (float64) of the rows at x into `stats` (Embind). */
  _statistics(form: number, rows: number, d: number, x: number, eps: number, areas: number, stats: number): number;
  /** One row's { mean, variance, rstd } at `out`, then its six stage vectors of d floats (Embind). */
  _stages(
    form: number,
    d: number,
    x: number,
    gamma: number,
    beta: number,
    eps: number,
    areas: number,
    out: number,
  ): number;
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
