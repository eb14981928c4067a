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
import { layerNormalization } from './layer-normalization.js';
import { quickCheck } from './quick-check.js';
import { ResidentNorm } from './resident.js';
import { momentKey, NORM_KINDS, NORMS } from './norms.js';
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
  LayerNormRuntime,
  LayerNormStats,
  NormMethods,
  TensorArray,
  WasmTensor,
} from './types.js';
import { checkEps, checkOptions, checkParam, checkRows, checkWidth, numberError } from './validate.js';
import type { LayerNormModule } from './wasm/module.js';

// The norms' methods are the table's (norms.ts `api`), installed on the prototype below.
export interface Runtime extends NormMethods {}

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

  /** A norm's call (its `api.call` method): the one-token checks first, the full ones otherwise. */
  runNorm(fn: string, norm: NormKind, x: ActivationArray, d: number, options: unknown): ActivationArray {
    const c = quickCheck(fn, norm, x, d, options) ?? checkNormCall(fn, norm, x, d, options);
    return this.normalize(c, null);
  }

  /** One row's stages (a norm's `api.stages` method), with the statistics and steps its row has. */
  normStages(fn: string, norm: NormKind, x: ActivationArray, d: number, row: number, options: unknown): object {
    const spec = NORMS[norm];
    const s = this.#stages(fn, norm, x, d, row, options);
    const [mean, moment, rstd] = s.stats;
    const [, , centered, normalized, scaled, output] = s.vectors;
    return {
      row,
      d,
      eps: s.eps,
      dtype: s.dtype,
      ...(spec.centred ? { mean } : {}),
      [momentKey(spec)]: moment,
      rstd,
      ...s.inputs,
      ...(spec.centred ? { centered } : {}),
      normalized,
      ...(spec.bias ? { scaled } : {}),
      output,
    };
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

  /** A resident norm (a norm's `api.create` method). */
  createNorm(fn: string, norm: NormKind, d: number, options: unknown): LayerNorm {
    checkWidth(fn, d);
    const o = checkOptions(fn, options);
    const gamma = checkParam(fn, 'gamma', o.gamma, d);
    const beta = checkBeta(fn, norm, o.beta, d);
    const eps = checkEps(fn, o.eps);
    const dtype = checkDType(fn, o.dtype) ?? 'float32';
    return new ResidentNorm(this, norm, kindForDType(dtype), d, gamma, beta, eps);
  }
}

// Each norm's call, stages and resident norm, under the names its row gives. Named functions, so
// that a stack trace reads as the method the caller called.
for (const norm of NORM_KINDS) {
  const { call, stages, create } = NORMS[norm].api;
  const methods = {
    [call](this: Runtime, x: ActivationArray, d: number, options?: unknown) {
      return this.runNorm(call, norm, x, d, options);
    },
    [stages](this: Runtime, x: ActivationArray, d: number, row: number, options?: unknown) {
      return this.normStages(stages, norm, x, d, row, options);
    },
    [create](this: Runtime, d: number, options?: unknown) {
      return this.createNorm(create, norm, d, options);
    },
  };
  for (const [name, value] of Object.entries(methods)) {
    Object.defineProperty(Runtime.prototype, name, { value, writable: true, configurable: true });
  }
}
