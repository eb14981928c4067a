/**
 * The checks of a normalizing call, `layerNorm(x, d, options)` or `rmsNorm(x, d, options)`, in
 * the order a caller reads them: x and d, then each option. Everything the core would refuse is
 * refused here first, with a message that says what was expected and what came.
 */
import { checkDType, checkSameKind, kindOf, type ActivationKind } from './activations.js';
import { NORMS, type NormKind } from '../norms.js';
import { NO_OPTION_BECAUSE, RULES } from './rules.js';
import type { ActivationArray } from '../types.js';
import {
  checkEps,
  checkFloat32Array,
  checkOptions,
  checkParam,
  checkRows,
  checkLiveView,
  checkWidth,
  sharesMemory,
} from './validate.js';

export type { NormKind } from '../norms.js';

export interface CheckedNorm {
  fn: string;
  norm: NormKind;
  kind: ActivationKind;
  rows: number;
  d: number;
  eps: number;
  x: ActivationArray;
  out: ActivationArray | null;
  gamma: Float32Array | null;
  beta: Float32Array | null;
  residual: ActivationArray | null;
  bias: Float32Array | null;
  sumOut: ActivationArray | null;
  mean: Float64Array | null;
  rstd: Float64Array | null;
}

/** A per-row statistics output: a Float64Array of one entry per row. */
function checkRowOutput(fn: string, name: string, value: unknown, rows: number): Float64Array | null {
  if (value === undefined || value === null) return null;
  if (!(value instanceof Float64Array)) {
    throw new TypeError(RULES.mustBe(fn, name, 'a Float64Array (one entry per row)', value));
  }
  checkLiveView(fn, name, value, 'Float64Array');
  if (value.length !== rows) {
    throw new RangeError(RULES.lengthAs(fn, name, rows, 'one entry per row', value.length));
  }
  return value;
}

/**
 * The dtype option, read before the options object itself is checked: x's kind depends on it, and
 * the options are checked after x and d, in the order the arguments are written.
 */
export function dtypeOption(fn: string, options: unknown) {
  const raw = options !== null && typeof options === 'object' ? (options as { dtype?: unknown }).dtype : undefined;
  return checkDType(fn, raw);
}

/** beta, which a norm without a bias term (RMSNorm) refuses outright. */
export function checkBeta(fn: string, norm: NormKind, beta: unknown, d: number): Float32Array | null {
  if (!NORMS[norm].bias && beta !== undefined && beta !== null) {
    throw new TypeError(RULES.noOption(fn, NO_OPTION_BECAUSE.noBias(NORMS[norm].name), 'beta', beta));
  }
  return checkParam(fn, 'beta', beta, d);
}

/** The residual (of x's kind and length) and the bias added with it (length d; needs the residual). */
export function checkResidual(
  fn: string,
  o: { residual?: unknown; bias?: unknown },
  kind: ActivationKind,
  length: number,
  d: number,
): { residual: ActivationArray | null; bias: Float32Array | null } {
  const residual =
    o.residual === undefined || o.residual === null ? null : checkSameKind(fn, 'residual', o.residual, kind, length);
  let bias: Float32Array | null = null;
  if (o.bias !== undefined && o.bias !== null) {
    if (!residual) throw new TypeError(RULES.needsResidual(fn, 'bias', o.bias));
    bias = checkFloat32Array(fn, 'bias', o.bias);
    if (bias.length !== d) throw new RangeError(RULES.lengthD(fn, 'bias', d, bias.length));
  }
  return { residual, bias };
}

export function checkNormCall(fn: string, norm: NormKind, x: unknown, d: unknown, options: unknown): CheckedNorm {
  const kind = kindOf(fn, 'x', x, dtypeOption(fn, options));
  const input = x as ActivationArray;
  const width = checkWidth(fn, d);
  const rows = checkRows(fn, input, width);
  const o = checkOptions(fn, options);
  const gamma = checkParam(fn, 'gamma', o.gamma, width);
  const beta = checkBeta(fn, norm, o.beta, width);
  const eps = checkEps(fn, o.eps);
  const length = input.length;
  const out = o.out === undefined ? null : checkSameKind(fn, 'out', o.out, kind, length);
  const { residual, bias } = checkResidual(fn, o, kind, length, width);
  let sumOut: ActivationArray | null = null;
  if (o.sumOut !== undefined && o.sumOut !== null) {
    if (!residual) throw new TypeError(RULES.needsResidual(fn, 'sumOut', o.sumOut));
    sumOut = checkSameKind(fn, 'sumOut', o.sumOut, kind, length);
    if (out && sharesMemory(out, sumOut)) throw new RangeError(RULES.apart(fn, 'sumOut', 'out'));
  }
  if (!NORMS[norm].centred && o.mean !== undefined && o.mean !== null) {
    throw new TypeError(RULES.noOption(fn, NO_OPTION_BECAUSE.noMean(NORMS[norm].name), 'mean', o.mean));
  }
  const mean = checkRowOutput(fn, 'mean', o.mean, rows);
  const rstd = checkRowOutput(fn, 'rstd', o.rstd, rows);
  if (mean || rstd) checkStatsApart(fn, mean, rstd, out, sumOut);
  return { fn, norm, kind, rows, d: width, eps, x: input, out, gamma, beta, residual, bias, sumOut, mean, rstd };
}

/**
 * The statistics outputs share memory with no other output: outputs are written chunk by chunk,
 * each after the other, and two that share memory would leave a mix of both. (Each array's buffer
 * is read once: the getter costs ~12 ns, a visible share of a one-row call.)
 */
function checkStatsApart(
  fn: string,
  mean: Float64Array | null,
  rstd: Float64Array | null,
  out: ActivationArray | null,
  sumOut: ActivationArray | null,
): void {
  const mb = mean?.buffer,
    rb = rstd?.buffer,
    ob = out?.buffer,
    sb = sumOut?.buffer;
  if (mean && rstd && mb === rb && overlap(mean, rstd)) {
    throw new RangeError(RULES.apart(fn, 'mean', 'rstd'));
  }
  const apart = (name: string, stat: Float64Array | null, b: ArrayBufferLike | undefined) => {
    if (!stat) return;
    if (out && b === ob && overlap(stat, out)) {
      throw new RangeError(RULES.apart(fn, name, 'out'));
    }
    if (sumOut && b === sb && overlap(stat, sumOut)) {
      throw new RangeError(RULES.apart(fn, name, 'sumOut'));
    }
  };
  apart('mean', mean, mb);
  apart('rstd', rstd, rb);
}

/** Whether two views of one buffer share a byte. */
function overlap(a: ArrayBufferView, b: ArrayBufferView): boolean {
  return a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength;
}

/**
 * Whether the call is plain: float32, nothing fused (its statistics, mean and rstd, allowed). A
 * plain call whose rows fit the chunk is a per-token call (core/plan.ts: isPerToken).
 */
export function isPlain(c: CheckedNorm): boolean {
  return c.kind.dtype === 'float32' && !c.residual;
}
