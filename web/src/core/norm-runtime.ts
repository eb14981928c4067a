/**
 * A runtime that normalizes rows and reads their stages: one instantiated wasm module, each
 * norm's call and stages method (installed from its row in norms.ts), and the Executor that moves
 * the data through wasm memory. runtime.ts's Runtime is this plus resident norms, tensors, ONNX
 * LayerNormalization and the statistics; the explainer element takes this alone, which keeps
 * those out of its first load.
 */
import { kindOf } from '../checks/activations.js';
import {
  checkBeta,
  checkNormCall,
  checkResidual,
  dtypeOption,
  type CheckedNorm,
  type NormKind,
} from '../checks/call.js';
import { quickCheck } from '../checks/quick-check.js';
import { checkEps, checkOptions, checkParam, checkRows, checkWidth, numberError } from '../checks/validate.js';
import { halfBitsToFloat32 } from '../numerics/half.js';
import { momentKey, NORM_KINDS, NORMS } from '../norms.js';
import type { ActivationArray, Backend, NormCallMethods, NormCallRuntime } from '../types.js';
import type { LayerNormModule } from '../wasm/module.js';
import { Executor } from './executor.js';
import type { Params } from './plan.js';
import type { Heap } from './heap.js';

// The norms' methods are the table's (norms.ts `api`), installed on the prototype below.
export interface NormRuntime extends NormCallMethods {}

export class NormRuntime implements NormCallRuntime {
  readonly kernel: string;
  readonly #executor: Executor;

  constructor(
    module: LayerNormModule,
    readonly backend: Backend,
  ) {
    this.#executor = new Executor(module);
    this.kernel = module._kernelName();
  }

  heapInUse(): number {
    return this.heap.module._heapInUse();
  }

  get heap(): Heap {
    return this.#executor.heap;
  }

  get executor(): Executor {
    return this.#executor;
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
}

// Each norm's call and stages, under the names its row gives. Named functions, so that a stack
// trace reads as the method the caller called.
for (const norm of NORM_KINDS) {
  const { call, stages } = NORMS[norm].api;
  const methods = {
    [call](this: NormRuntime, x: ActivationArray, d: number, options?: unknown) {
      return this.runNorm(call, norm, x, d, options);
    },
    [stages](this: NormRuntime, x: ActivationArray, d: number, row: number, options?: unknown) {
      return this.normStages(stages, norm, x, d, row, options);
    },
  };
  for (const [name, value] of Object.entries(methods)) {
    Object.defineProperty(NormRuntime.prototype, name, { value, writable: true, configurable: true });
  }
}
