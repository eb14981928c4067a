/**
 * The common calls checked in a few comparisons. A one-token call spends most of its time outside
 * the kernel, and the full checks (call.ts: a function per option, each ready to say what is wrong)
 * cost a fifth of it. This accepts a call only when every array is a plain live typed array of the
 * kind and length the full checks require and nothing else needs a look (Float16Array calls, for
 * one, go the full way); it returns the same CheckedNorm, or null, and then the full checks run and
 * either accept the call the same way or throw their error. It never throws and never accepts
 * what they refuse (tests/core/quick-check.test.ts holds the two to that on generated calls).
 */
import { FLOAT32, kindForDType, type ActivationKind } from './activations.js';
import type { CheckedNorm } from './call.js';
import { NORMS, type NormKind } from '../norms.js';
import type { ActivationArray } from '../types.js';
import { MAX_WIDTH } from './validate.js';

const NO_OPTIONS: Record<string, unknown> = {};

/** A live Float32Array of length n (n > 0: a detached view has length 0). */
const floats = (v: unknown, n: number): v is Float32Array =>
  v instanceof Float32Array && ArrayBuffer.isView(v) && v.length === n;

/** An activation array of x's kind (Float32Array or Uint16Array) and length n. */
const sameKind = (v: unknown, wide: boolean, n: number): v is ActivationArray =>
  (wide ? v instanceof Float32Array : v instanceof Uint16Array) &&
  ArrayBuffer.isView(v) &&
  (v as ActivationArray).length === n;

/** A live Float64Array of one entry per row. */
const perRow = (v: unknown, rows: number): v is Float64Array =>
  v instanceof Float64Array && ArrayBuffer.isView(v) && v.length === rows;

const absent = (v: unknown) => v === undefined || v === null;

/** Whether two views share a byte (their buffers read once each by the caller). */
const overlap = (a: ArrayBufferView, ab: ArrayBufferLike, b: ArrayBufferView, bb: ArrayBufferLike) =>
  ab === bb && a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength;

export function quickCheck(fn: string, norm: NormKind, x: unknown, d: unknown, options: unknown): CheckedNorm | null {
  if (typeof d !== 'number' || !Number.isInteger(d) || d < 1 || d > MAX_WIDTH) return null;
  let o = NO_OPTIONS;
  if (options !== undefined && options !== null) {
    if (typeof options !== 'object') return null;
    o = options as Record<string, unknown>;
  }
  const dtype = o.dtype;
  let kind: ActivationKind;
  if (x instanceof Float32Array) {
    if (dtype !== undefined && dtype !== 'float32') return null;
    kind = FLOAT32;
  } else if (x instanceof Uint16Array) {
    if (dtype !== 'float16' && dtype !== 'bfloat16') return null;
    kind = kindForDType(dtype);
  } else {
    return null;
  }
  // (isView before any property: a Proxy or an Object.create result passes instanceof, then throws.)
  if (!ArrayBuffer.isView(x)) return null;
  const n = x.length;
  if (n === 0 || n % d !== 0) return null;
  const rows = n / d;
  const wide = kind === FLOAT32;
  const { gamma, beta, eps, out, residual, bias, sumOut, mean, rstd } = o;
  if (!absent(gamma) && !floats(gamma, d)) return null;
  if (!absent(beta) && (!NORMS[norm].bias || !floats(beta, d))) return null;
  if (eps !== undefined && (typeof eps !== 'number' || !Number.isFinite(eps) || eps < 0)) return null;
  if (out !== undefined && !sameKind(out, wide, n)) return null;
  if (!absent(residual) && !sameKind(residual, wide, n)) return null;
  if (!absent(bias) && (absent(residual) || !floats(bias, d))) return null;
  if (!absent(sumOut) && (absent(residual) || !sameKind(sumOut, wide, n))) return null;
  if (!absent(mean) && (!NORMS[norm].centred || !perRow(mean, rows))) return null;
  if (!absent(rstd) && !perRow(rstd, rows)) return null;
  const c: CheckedNorm = {
    fn,
    norm,
    kind,
    rows,
    d,
    eps: eps === undefined ? 1e-5 : (eps as number),
    x: x as ActivationArray,
    out: (out ?? null) as ActivationArray | null,
    gamma: (gamma ?? null) as Float32Array | null,
    beta: (beta ?? null) as Float32Array | null,
    residual: (residual ?? null) as ActivationArray | null,
    bias: (bias ?? null) as Float32Array | null,
    sumOut: (sumOut ?? null) as ActivationArray | null,
    mean: (mean ?? null) as Float64Array | null,
    rstd: (rstd ?? null) as Float64Array | null,
  };
  return outputsApart(c) ? c : null;
}

/** No two outputs share memory (the full checks' errors otherwise); each buffer is read once. */
function outputsApart(c: CheckedNorm): boolean {
  const { out, sumOut, mean, rstd } = c;
  if (!sumOut && !mean && !rstd) return true;
  const ob = out?.buffer,
    sb = sumOut?.buffer,
    mb = mean?.buffer,
    rb = rstd?.buffer;
  if (out && sumOut && overlap(out, ob!, sumOut, sb!)) return false;
  if (mean && ((out && overlap(mean, mb!, out, ob!)) || (sumOut && overlap(mean, mb!, sumOut, sb!)))) return false;
  if (rstd && ((out && overlap(rstd, rb!, out, ob!)) || (sumOut && overlap(rstd, rb!, sumOut, sb!)))) return false;
  return !(mean && rstd && overlap(mean, mb!, rstd, rb!));
}
