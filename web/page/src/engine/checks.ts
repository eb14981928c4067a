/**
 * Accuracy measures, accumulated over slices of rows so a file larger than memory is checked on
 * every row. Pure functions over outputs the package produced (the module's, its float64
 * reference's); nothing here computes a norm.
 */
import { ulp32 } from 'layernorm-wasm';
import { ULP_BINS, type ExactCheck, type ReferenceCheck } from './protocol';

/** 0: finite, 1: NaN, 2: +Inf, 3: −Inf. Two non-finite values agree when their classes are equal. */
export function finiteClass(v: number): number {
  if (Number.isFinite(v)) return 0;
  if (Number.isNaN(v)) return 1;
  return v > 0 ? 2 : 3;
}

/**
 * Scaled ULP of y against the expected e: |y − e| in float32 steps at the scale of the result,
 * the contract's ulp₃₂(max(|e − β|, |β|)) (e − β standing for γ·x̂), so a large β does not hide
 * an error in γ·x̂ (β = 0 without a bias).
 */
export function sulp(y: number, e: number, b: number): number {
  return Math.abs(y - e) / ulp32(Math.max(Math.abs(e - b), Math.abs(b)));
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
/** The float32 bit pattern of v (v is already a float32 value). */
export function bits32(v: number): number {
  f32[0] = v;
  return u32[0]!;
}

export function emptyReferenceCheck(): ReferenceCheck {
  return {
    compared: 0,
    maxAbs: 0,
    maxSulp: 0,
    worstIndex: -1,
    bitIdentical: 0,
    nonFiniteBoth: 0,
    nonFiniteMismatches: 0,
    histogram: new Array<number>(ULP_BINS.length).fill(0),
  };
}

/**
 * Adds the comparison of y with the reference e (both rows·d, starting at flat index `base`) to acc.
 */
export function accumulateReference(
  acc: ReferenceCheck,
  y: Float32Array,
  e: Float32Array,
  d: number,
  beta: Float32Array | null,
  base: number,
): void {
  const yb = new Uint32Array(y.buffer, y.byteOffset, y.length);
  const eb = new Uint32Array(e.buffer, e.byteOffset, e.length);
  for (let i = 0; i < y.length; i++) {
    const a = y[i]!;
    const b = e[i]!;
    const ca = finiteClass(a);
    const cb = finiteClass(b);
    if (ca !== 0 || cb !== 0) {
      if (ca === cb) acc.nonFiniteBoth++;
      else acc.nonFiniteMismatches++;
      continue;
    }
    acc.compared++;
    if (yb[i] === eb[i]) acc.bitIdentical++;
    const abs = Math.abs(a - b);
    const s = sulp(a, b, beta ? beta[i % d]! : 0);
    if (abs > acc.maxAbs || acc.worstIndex < 0) {
      acc.maxAbs = abs;
      acc.worstIndex = base + i;
    }
    if (s > acc.maxSulp) acc.maxSulp = s;
    let k = 0;
    while (s > ULP_BINS[k]!) k++;
    acc.histogram[k]!++;
  }
}

export function toExactCheck(r: ReferenceCheck): ExactCheck {
  return {
    compared: r.compared,
    maxAbs: r.maxAbs,
    maxSulp: r.maxSulp,
    bitIdentical: r.bitIdentical,
    nonFiniteMismatches: r.nonFiniteMismatches,
  };
}

/** Number of elements whose float32 bit patterns differ, and the first such index. */
export function countBitDifferences(a: Float32Array, b: Float32Array): { count: number; first: number } {
  const ua = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const ub = new Uint32Array(b.buffer, b.byteOffset, b.length);
  let count = 0;
  let first = -1;
  for (let i = 0; i < ua.length; i++) {
    if (ua[i] !== ub[i]) {
      if (first < 0) first = i;
      count++;
    }
  }
  return { count, first };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
