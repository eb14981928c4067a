/** Accuracy measures. Pure functions over arrays the module produced; nothing here recomputes LayerNorm. */
import { ulp32 } from './pkg';

/** Histogram bins of sULP, as upper bounds. */
export const ULP_BINS = [0, 0.5, 1, 2, 4, 8, Infinity] as const;
export const ULP_BIN_LABELS = ['0', '≤ ½', '≤ 1', '≤ 2', '≤ 4', '≤ 8', '> 8'];

/**
 * Distribution of sULP = |y − e| / ulp32(|e − β| + |β|) over finite elements, in ULP_BINS
 * (the headline maxima come from the package's compareOutputs).
 */
export function ulpHistogram(y: Float32Array, e: Float32Array, d: number, beta: Float32Array | null): number[] {
  const hist = new Array(ULP_BINS.length).fill(0) as number[];
  for (let i = 0; i < y.length; i++) {
    const yi = y[i]!;
    const ei = e[i]!;
    if (!Number.isFinite(yi) || !Number.isFinite(ei)) continue;
    const b = beta ? beta[i % d]! : 0;
    const u = Math.abs(yi - ei) / ulp32(Math.abs(ei - b) + Math.abs(b));
    let k = 0;
    while (u > ULP_BINS[k]!) k++;
    hist[k]!++;
  }
  return hist;
}

/** Number of elements whose float32 bit patterns differ. */
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

export interface ExpectedReport {
  pass: boolean;
  maxAbs: number;
  worstIndex: number;
  mismatches: number;
}

/** Element-wise |y − expected| ≤ tol; NaN only matches NaN. */
export function compareToExpected(y: Float32Array, expected: ArrayLike<number>, tol: number): ExpectedReport {
  let maxAbs = 0;
  let worstIndex = 0;
  let mismatches = 0;
  for (let i = 0; i < y.length; i++) {
    const a = y[i]!;
    const b = expected[i]!;
    let err: number;
    if (Number.isNaN(a) || Number.isNaN(b)) err = Number.isNaN(a) && Number.isNaN(b) ? 0 : Infinity;
    else err = a === b ? 0 : Math.abs(a - b);
    if (err > tol) mismatches++;
    if (err > maxAbs || (i === 0 && err === maxAbs)) {
      maxAbs = err;
      worstIndex = i;
    }
  }
  return { pass: mismatches === 0, maxAbs, worstIndex, mismatches };
}

/** Plain-JavaScript LayerNorm (two-pass, float64 accumulation), the baseline for the benchmark. */
export function layerNormJS(
  x: Float32Array,
  d: number,
  gamma: Float32Array | null,
  beta: Float32Array | null,
  eps: number,
  out: Float32Array,
): Float32Array {
  const rows = x.length / d;
  for (let r = 0; r < rows; r++) {
    const o = r * d;
    let s = 0;
    for (let j = 0; j < d; j++) s += x[o + j]!;
    const mean = s / d;
    let v = 0;
    for (let j = 0; j < d; j++) {
      const c = x[o + j]! - mean;
      v += c * c;
    }
    const rstd = 1 / Math.sqrt(v / d + eps);
    for (let j = 0; j < d; j++) {
      const n = (x[o + j]! - mean) * rstd;
      out[o + j] = (gamma ? n * gamma[j]! : n) + (beta ? beta[j]! : 0);
    }
  }
  return out;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
