/**
 * LayerNorm and RMSNorm of float32 rows, each output the float32 nearest to the exact real
 * answer: ties to even, ±Infinity only where the exact answer is beyond the largest float32, an
 * exact zero +0. A row holding NaN or ±Infinity gives NaN; a row whose centred values are all 0
 * gives β, also with ε = 0 (0/0 := 0), as the kernels do. A NaN or infinite γ_j or β_j (no real
 * answer) gives what double arithmetic gives.
 *
 * Per row: Σh exactly (an expansion, exact-sum.ts), so that each centred value (d·h_j − Σh)/d
 * comes out within 2^-52 of itself however close h_j lies to the mean; Σc² by compensated
 * addition; then y_j = γ_j·x̂_j + β_j in doubles with a bound on its error. Where every value
 * within that bound rounds to the same float32, that is the answer; otherwise (ties, exact zeros,
 * cancellation between γ·x̂ and β) exact-rounding.ts decides with integers.
 */
import { ExactRow } from './exact-rounding.js';
import { ExactSum } from './exact-sum.js';
import { NORMS, type NormKind } from '../norms.js';

export interface RowParams {
  norm: NormKind;
  d: number;
  eps: number;
  gamma: Float32Array | null;
  beta: Float32Array | null;
}

const rowSum = new ExactSum();
const wideSum = new ExactSum();
let centred = new Float64Array(0);
let slack = new Float64Array(0);

/** The bound of sumMinus's last result's error beyond 2^-52 of it. */
let sumMinusSlack = 0;

/**
 * Σh − d·v rounded to a double, by the general expansion (rows whose Σh takes more than two
 * doubles). d·v is exact in one double for d ≤ 2^29 (24 + 29 bits); wider rows take it in two
 * exact parts.
 */
function sumMinus(d: number, v: number): number {
  if (d <= 2 ** 29) {
    const value = rowSum.plus(-d * v);
    sumMinusSlack = rowSum.lastSlack;
    return value;
  }
  const high = d - (d % 2 ** 24);
  wideSum.copy(rowSum);
  wideSum.add(-high * v);
  const value = wideSum.plus(-(d - high) * v);
  sumMinusSlack = wideSum.lastSlack;
  return value;
}

/** Normalizes the finite row h[base … base + d) into y[base …]; Σh is in rowSum when centred. */
function normalizeRow(h: Float32Array, base: number, y: Float32Array, p: RowParams): void {
  const { d, eps, gamma, beta } = p;
  const { centred: isCentred, divisor } = NORMS[p.norm];
  if (centred.length < d) {
    centred = new Float64Array(d);
    slack = new Float64Array(d);
  }
  // Σh in at most two doubles (s0 the smaller), as almost every row has it: grown with d·h_j inline.
  const twoParts = rowSum.length <= 2 && d <= 2 ** 29;
  const s0 = rowSum.length === 2 ? rowSum.parts[0]! : 0;
  const s1 = rowSum.length === 2 ? rowSum.parts[1]! : rowSum.length === 1 ? rowSum.parts[0]! : 0;
  // c_j, the bound s_j on its error beyond 2^-51 of it, and Σc_j² (Neumaier's compensated sum:
  // the terms are ≥ 0, so it is within 2^-52 + d·2^-105 of their sum).
  let squares = 0,
    carry = 0,
    squaresSlack = 0;
  for (let j = 0; j < d; j++) {
    let c = h[base + j]!,
      s = 0;
    if (isCentred) {
      let sumMinusDv: number;
      if (twoParts) {
        // Two error-free additions (Knuth's TwoSum): −d·c + s0 + s1 = high + e0 + e1 exactly.
        const x = -d * c;
        const a = x + s0;
        let bv = a - x;
        const e0 = x - (a - bv) + (s0 - bv);
        const high = a + s1;
        bv = high - a;
        const e1 = a - (high - bv) + (s1 - bv);
        sumMinusDv = high + (e0 + e1);
        s = (2 ** -51 * (Math.abs(e0) + Math.abs(e1))) / d;
      } else {
        sumMinusDv = sumMinus(d, c);
        s = sumMinusSlack / d;
      }
      c = -sumMinusDv / d;
      if (s !== 0) squaresSlack += s * (2 * Math.abs(c) + s);
    }
    centred[j] = c;
    slack[j] = s;
    const t = c * c;
    const total = squares + t;
    carry += squares >= t ? squares - total + t : t - total + squares;
    squares = total;
  }
  squares += carry;
  const rstd = 1 / Math.sqrt((divisor === 'width' ? squares / d : squares) + eps);
  // The error of y_j relative to |γ·x̂| + |β|, each rounding 2^-53: c_j within 2^-51.4, c_j²
  // within 2^-50.2, Σc² within 2^-49.9 + d·2^-106 (Neumaier), σ² + ε within 2^-49.7, rstd within
  // 2^-50.2, x̂ within 2^-49.5, γ·x̂ and y within 2^-49.2 (+ d·2^-107). The bound below is nine
  // times that (d² for d), plus what the centred values' slack adds: to x̂_j directly (four times
  // it), and to every x̂ through Σc² (twice its share of Σc², kept below 2^-20 or the row is exact).
  const squaresShare = squaresSlack / squares;
  const relative = 2 ** -46 + d * d * 2 ** -104 + 2 * squaresShare;
  const exactAll = !(squaresShare < 2 ** -20); // also NaN: 0/0 where every c_j is 0
  let exact: ExactRow | null = null;
  for (let j = 0; j < d; j++) {
    const b = beta ? beta[j]! : 0;
    const g = gamma ? gamma[j]! : 1;
    const c = centred[j]!;
    if (!Number.isFinite(g) || !Number.isFinite(b)) {
      y[base + j] = g * (c === 0 ? 0 : c * rstd) + b; // no real answer: double arithmetic's NaN or ±Infinity
      continue;
    }
    if (c === 0 || g === 0) {
      y[base + j] = b === 0 ? 0 : b; // exactly β
      continue;
    }
    const gx = g * (c * rstd);
    const value = gx + b;
    const delta = relative * (Math.abs(gx) + Math.abs(b)) + 4 * Math.abs(g) * slack[j]! * rstd;
    const lo = value - delta,
      hi = value + delta;
    const rounded = Math.fround(lo),
      other = Math.fround(hi);
    if (rounded === other && (rounded !== 0 || Object.is(rounded, other)) && !exactAll) {
      y[base + j] = rounded;
      continue;
    }
    exact ??= new ExactRow(p.norm, h.subarray(base, base + d), eps);
    y[base + j] = exactAll ? exact.round(j, g, b, -Infinity, Infinity) : exact.round(j, g, b, lo, hi);
  }
}

/** Every row of h (length a multiple of d), correctly rounded; NaN rows where h holds NaN or ±Infinity. */
export function normalizeRows(h: Float32Array, p: RowParams): Float32Array {
  const y = new Float32Array(h.length);
  const { d } = p;
  const isCentred = NORMS[p.norm].centred;
  for (let base = 0; base < h.length; base += d) {
    // Σh exactly (LayerNorm), and whether the row is finite: v − v is NaN for NaN and ±Infinity.
    rowSum.reset();
    let finite = true;
    for (let j = 0; j < d; j++) {
      const v = h[base + j]!;
      if (v - v !== 0) {
        finite = false;
        break;
      }
      if (isCentred) rowSum.add(v);
    }
    if (finite) normalizeRow(h, base, y, p);
    else y.fill(NaN, base, base + d);
  }
  return y;
}
