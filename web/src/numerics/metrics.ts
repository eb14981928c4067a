/** Error metrics used by the tests, the CLI and the page to compare outputs honestly. */
import { RULES } from '../checks/rules.js';
import { checkFloat32Array, checkParam, checkRows, checkWidth, numberError } from '../checks/validate.js';

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** The float32 spacing at magnitude s: 2^(floor(log2 s) − 23), at least 2^−149. */
export function ulp32(s: number): number {
  if (typeof s !== 'number' || !(s >= 0 && s < Infinity)) throw numberError('ulp32', 's', 'a finite number >= 0', s);
  if (!(s >= 1.1754943508222875e-38)) return 1.401298464324817e-45;
  f64[0] = s;
  const exponent = ((u32[1] >>> 20) & 0x7ff) - 1023;
  return 2 ** (exponent - 23);
}

export interface Comparison {
  /** Largest |y − expected| over elements where both are finite. */
  maxAbs: number;
  /** Largest error in units of the float32 spacing of max(|γ·x̂|, |β|) (scaled ULP). */
  maxScaledUlp: number;
  /** Index of the element with the largest absolute error (−1 when none compared). */
  worstIndex: number;
  /**
   * Elements where at least one side is NaN or ±Infinity and the two are not the same kind:
   * NaN matches only NaN, +Infinity only +Infinity, −Infinity only −Infinity.
   */
  nonFiniteMismatches: number;
  /** Elements whose float32 bit patterns differ. */
  differingBits: number;
  /** Elements where both sides are finite (those maxAbs and maxScaledUlp are taken over). */
  compared: number;
}

/**
 * Compares y with an expected output of the same length. `beta` (length d) makes the scaled
 * ULP condition-aware for the bias term; pass null for the bias-free variant.
 */
export function compareOutputs(
  y: Float32Array,
  expected: Float32Array,
  d: number,
  beta: Float32Array | null = null,
): Comparison {
  const fn = 'compareOutputs';
  checkFloat32Array(fn, 'y', y);
  checkFloat32Array(fn, 'expected', expected);
  checkWidth(fn, d);
  checkRows(fn, y, d, 'y');
  if (expected.length !== y.length) {
    throw new RangeError(RULES.lengthAs(fn, 'expected', y.length, 'the same as y', expected.length));
  }
  beta = checkParam(fn, 'beta', beta, d);
  const yb = new Uint32Array(y.buffer, y.byteOffset, y.length);
  const eb = new Uint32Array(expected.buffer, expected.byteOffset, expected.length);
  let maxAbs = 0,
    maxScaledUlp = 0,
    worstIndex = -1,
    nonFiniteMismatches = 0,
    differingBits = 0,
    compared = 0;
  for (let i = 0; i < y.length; i++) {
    const a = y[i],
      e = expected[i];
    if (yb[i] !== eb[i]) differingBits++;
    if (!Number.isFinite(a) || !Number.isFinite(e)) {
      // Same kind only: NaN with NaN (any payload), +Inf with +Inf, -Inf with -Inf.
      if (!(a === e || (Number.isNaN(a) && Number.isNaN(e)))) nonFiniteMismatches++;
      continue;
    }
    compared++;
    const abs = Math.abs(a - e);
    const b = beta ? beta[i % d] : 0;
    // The contract's unit, the spacing of max(|γ·x̂|, |β|): e − β stands for γ·x̂.
    const scaled = abs / ulp32(Math.max(Math.abs(e - b), Math.abs(b)));
    if (abs > maxAbs || worstIndex < 0) {
      maxAbs = abs;
      worstIndex = i;
    }
    if (scaled > maxScaledUlp) maxScaledUlp = scaled;
  }
  return { maxAbs, maxScaledUlp, worstIndex, nonFiniteMismatches, differingBits, compared };
}
