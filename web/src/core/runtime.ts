/**
 * The runtime init() returns: the norms' calls and stages (norm-runtime.ts), and the operations
 * that keep data in wasm memory (resident norms, tensors), ONNX LayerNormalization and the
 * statistics. Each method checks its arguments (checks/) and hands the checked call to the
 * Executor, which moves the data through wasm memory.
 */
import { checkDType, kindForDType, kindOf } from '../checks/activations.js';
import { checkBeta, dtypeOption, type NormKind } from '../checks/call.js';
import { NO_OPTION_BECAUSE, RULES } from '../checks/rules.js';
import { checkEps, checkOptions, checkParam, checkRows, checkWidth, numberError } from '../checks/validate.js';
import { NORM_KINDS, NORMS } from '../norms.js';
import type {
  ActivationArray,
  DType,
  LayerNorm,
  LayerNormalizationOptions,
  LayerNormalizationResult,
  LayerNormRuntime,
  LayerNormStats,
  NormMethods,
  TensorArray,
  WasmTensor,
} from '../types.js';
import { layerNormalization } from './layer-normalization.js';
import { NormRuntime } from './norm-runtime.js';
import { ResidentNorm } from './resident.js';
import type { RuntimeCore } from './runtime-core.js';
import { Tensor } from './tensor.js';

// The norms' methods are the table's (norms.ts `api`), installed on the prototype below.
export interface Runtime extends NormMethods {}

export class Runtime extends NormRuntime implements LayerNormRuntime, RuntimeCore {
  readonly #finalizer = new FinalizationRegistry<number>((ptr) => this.heap.free(ptr));

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
    if (rows > 0) this.executor.stats({ fn, kind, x, rows, d, eps }, mean, variance, rstd);
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

  // ---- RuntimeCore: what the resident norms, tensors and layerNormalization use (runtime-core.ts)

  track(owner: object, ptr: number, token: object): void {
    this.#finalizer.register(owner, ptr, token);
  }

  untrack(token: object): void {
    this.#finalizer.unregister(token);
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

// Each norm's resident norm, under the name its row gives (its call and stages are NormRuntime's).
// A named function, so that a stack trace reads as the method the caller called.
for (const norm of NORM_KINDS) {
  const { create } = NORMS[norm].api;
  const methods = {
    [create](this: Runtime, d: number, options?: unknown) {
      return this.createNorm(create, norm, d, options);
    },
  };
  for (const [name, value] of Object.entries(methods)) {
    Object.defineProperty(Runtime.prototype, name, { value, writable: true, configurable: true });
  }
}
