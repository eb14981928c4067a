/**
 * The runtime: one instantiated wasm module and the public operations on it. Each method checks
 * its arguments (call.ts, validate.ts) and hands the checked call to the Executor, which moves the
 * data through wasm memory.
 */
import { checkDType, kindForDType, kindOf } from './activations.js';
import { checkBeta, checkNormCall, checkResidual, dtypeOption, type CheckedNorm, type NormKind } from './call.js';
import { Executor, type Params } from './executor.js';
import { halfBitsToFloat32 } from './half.js';
import type { Heap } from './heap.js';
import { layerNormalization } from './onnx.js';
import { quickCheck } from './quick-check.js';
import { ResidentNorm } from './resident.js';
import { NO_OPTION_BECAUSE, RULES } from './rules.js';
import type { RuntimeCore } from './runtime-core.js';
import { Tensor } from './tensor.js';
import type {
  ActivationArray,
  Backend,
  DType,
  LayerNorm,
  LayerNormalizationOptions,
  LayerNormalizationResult,
  LayerNormCallOptions,
  LayerNormOptions,
  LayerNormRuntime,
  LayerNormStages,
  LayerNormStagesOptions,
  LayerNormStats,
  RmsNormCallOptions,
  RmsNormOptions,
  RmsNormStages,
  RmsNormStagesOptions,
  TensorArray,
  WasmTensor,
} from './types.js';
import { checkEps, checkOptions, checkParam, checkRows, checkWidth, numberError } from './validate.js';
import type { LayerNormModule } from './wasm/module.js';

export class Runtime implements LayerNormRuntime, RuntimeCore {
  readonly kernel: string;
  readonly #executor: Executor;
  readonly #finalizer = new FinalizationRegistry<number>((ptr) => this.heap.free(ptr));

  constructor(
    module: LayerNormModule,
    readonly backend: Backend,
  ) {
    this.#executor = new Executor(module);
    this.kernel = module._kernelName();
  }

  layerNorm<A extends ActivationArray = Float32Array>(x: A, d: number, options?: LayerNormCallOptions<A>): A {
    const c =
      quickCheck('layerNorm', 'layernorm', x, d, options) ?? checkNormCall('layerNorm', 'layernorm', x, d, options);
    return this.normalize(c, null) as A;
  }

  rmsNorm<A extends ActivationArray = Float32Array>(x: A, d: number, options?: RmsNormCallOptions<A>): A {
    const c = quickCheck('rmsNorm', 'rmsnorm', x, d, options) ?? checkNormCall('rmsNorm', 'rmsnorm', x, d, options);
    return this.normalize(c, null) as A;
  }

  layerNormalization<A extends ActivationArray = Float32Array>(
    x: A,
    shape: readonly number[],
    options?: LayerNormalizationOptions,
  ): LayerNormalizationResult<A> {
    return layerNormalization(this, x, shape, options);
  }

  layerNormStats(x: ActivationArray, d: number, options?: { eps?: number; dtype?: DType }): LayerNormStats {
    const fn = 'layerNormStats';
    const kind = kindOf(fn, 'x', x, dtypeOption(fn, options));
    checkWidth(fn, d);
    const rows = checkRows(fn, x, d);
    const o = checkOptions(fn, options);
    const eps = checkEps(fn, o.eps);
    // The fused residual's options would change what the statistics are of: refused, not ignored.
    for (const name of ['residual', 'bias', 'sumOut'] as const) {
      if (o[name] !== undefined && o[name] !== null) {
        throw new TypeError(RULES.noOption(fn, NO_OPTION_BECAUSE.statisticsOfX(), name, o[name]));
      }
    }
    const mean = new Float64Array(rows),
      variance = new Float64Array(rows),
      rstd = new Float64Array(rows);
    if (rows > 0) this.#executor.stats({ fn, kind, x, rows, d, eps }, mean, variance, rstd);
    return { mean, variance, rstd };
  }

  layerNormStages(x: ActivationArray, d: number, row: number, options?: LayerNormStagesOptions): LayerNormStages {
    const s = this.#stages('layerNormStages', 'layernorm', x, d, row, options);
    return {
      row,
      d,
      eps: s.eps,
      dtype: s.dtype,
      mean: s.stats[0],
      variance: s.stats[1],
      rstd: s.stats[2],
      ...s.inputs,
      centered: s.vectors[2],
      normalized: s.vectors[3],
      scaled: s.vectors[4],
      output: s.vectors[5],
    };
  }

  rmsNormStages(x: ActivationArray, d: number, row: number, options?: RmsNormStagesOptions): RmsNormStages {
    const s = this.#stages('rmsNormStages', 'rmsnorm', x, d, row, options);
    return {
      row,
      d,
      eps: s.eps,
      dtype: s.dtype,
      meanSquare: s.stats[1],
      rstd: s.stats[2],
      ...s.inputs,
      normalized: s.vectors[3],
      output: s.vectors[5],
    };
  }

  createLayerNorm(d: number, options?: LayerNormOptions): LayerNorm {
    return this.#resident('createLayerNorm', 'layernorm', d, options);
  }

  createRmsNorm(d: number, options?: RmsNormOptions): LayerNorm {
    return this.#resident('createRmsNorm', 'rmsnorm', d, options);
  }

  allocate(rows: number, d: number, options?: { dtype?: 'float32' }): WasmTensor<Float32Array>;
  allocate(rows: number, d: number, options: { dtype: 'float16' | 'bfloat16' }): WasmTensor<Uint16Array>;
  allocate(rows: number, d: number, options?: { dtype?: DType }): WasmTensor<TensorArray> {
    const fn = 'allocate';
    checkWidth(fn, d);
    if (typeof rows !== 'number' || !Number.isInteger(rows) || rows < 0) {
      throw numberError(fn, 'rows', 'an integer >= 0', rows);
    }
    const dtype = checkDType(fn, checkOptions(fn, options).dtype) ?? 'float32';
    return new Tensor(this, rows, d, dtype);
  }

  heapInUse(): number {
    return this.heap.module._heapInUse();
  }

  // ---- RuntimeCore: what the resident norms, tensors and layerNormalization use (runtime-core.ts)

  get heap(): Heap {
    return this.#executor.heap;
  }

  get executor(): Executor {
    return this.#executor;
  }

  track(owner: object, ptr: number, token: object): void {
    this.#finalizer.register(owner, ptr, token);
  }

  untrack(token: object): void {
    this.#finalizer.unregister(token);
  }

  /** Runs a checked call; `resident` holds a LayerNorm object's gain and bias in the heap. */
  normalize(c: CheckedNorm, resident: Params | null): ActivationArray {
    return this.#executor.normalize(c, resident);
  }

  #stages(fn: string, norm: NormKind, x: ActivationArray, d: number, row: number, options: unknown) {
    const kind = kindOf(fn, 'x', x, dtypeOption(fn, options));
    checkWidth(fn, d);
    const rows = checkRows(fn, x, d);
    if (typeof row !== 'number' || !Number.isInteger(row) || row < 0 || row >= rows) {
      throw numberError(fn, 'row', `an integer in [0, ${rows})`, row);
    }
    const o = checkOptions(fn, options);
    const gamma = checkParam(fn, 'gamma', o.gamma, d);
    const beta = checkBeta(fn, norm, o.beta, d);
    const eps = checkEps(fn, o.eps);
    const { residual, bias } = checkResidual(fn, o, kind, x.length, d);
    const slice = (a: ActivationArray) => a.subarray(row * d, (row + 1) * d) as ActivationArray;
    // The residual row as float32 values, read now: the call below allocates, which may grow wasm
    // memory and detach a residual that views it.
    const rowResidual = residual && slice(residual);
    let residualValues: Float32Array | undefined;
    if (rowResidual) {
      const units = kind.units(rowResidual);
      residualValues =
        kind.dtype === 'float32'
          ? (units as Float32Array).slice()
          : halfBitsToFloat32(units as Uint16Array, kind.dtype);
    }
    const result = this.#executor.stages({
      fn,
      norm,
      kind,
      d,
      eps,
      x: slice(x),
      residual: rowResidual,
      gamma,
      beta,
      bias,
    });
    const inputs: { input: Float32Array; residual?: Float32Array; sum?: Float32Array } = { input: result.vectors[0] };
    if (residualValues) {
      inputs.residual = residualValues;
      inputs.sum = result.vectors[1];
    }
    return { ...result, eps, dtype: kind.dtype, inputs };
  }

  #resident(fn: string, norm: NormKind, d: number, options: unknown): LayerNorm {
    checkWidth(fn, d);
    const o = checkOptions(fn, options);
    const gamma = checkParam(fn, 'gamma', o.gamma, d);
    const beta = checkBeta(fn, norm, o.beta, d);
    const eps = checkEps(fn, o.eps);
    const dtype = checkDType(fn, o.dtype) ?? 'float32';
    return new ResidentNorm(this, norm, kindForDType(dtype), d, gamma, beta, eps);
  }
}
