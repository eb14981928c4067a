/**
 * The references' last resort: which float32 one output rounds to, decided exactly with integers,
 * for the few elements whose fast estimate lies too near the midpoint between two float32s (ties,
 * exact zeros, results that cancel). Every float32 is an integer times 2^-149 and ε an integer
 * times 2^-1074, so in units of u = 2^-149 (H = h/u, S = ΣH, P = ΣH², E = ε/2^-1074):
 *
 *   LayerNorm  x̂_j = c_j / √Q, c_j = d·H_j − S, Q = (d·P − S²) + E·d²·2^-776
 *   RMSNorm    x̂_j = c_j / √Q, c_j = H_j,       Q = (P + E·d·2^-776) / d
 *
 * and y_j / u = G·x̂_j + B (G = γ/u, B = β/u). Whether y lies above a midpoint m is the sign of
 * 2G·c/√Q − (m·2^150 − 2B), found by comparing squares: no square root is taken.
 */
import { NORMS, type NormKind } from '../norms.js';

const UNIT = 2 ** 149;
const EPS_SHIFT = 776n;
/** Where rounding to nearest leaves float32: halfway between its largest value and 2^128. */
const OVERFLOW = 2 ** 128 - 2 ** 103;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const f64 = new Float64Array(1);
const u32of64 = new Uint32Array(f64.buffer);

/** A float32 (or any multiple of 2^-149 below 2^277) as an integer count of 2^-149. */
const units = (v: number): bigint => BigInt(v * UNIT);

/** A double ≥ 0 as an integer count of 2^-1074, from its bits (v · 2^1074 would overflow). */
function epsUnits(v: number): bigint {
  if (v === 0) return 0n;
  f64[0] = v;
  const exponent = (u32of64[1]! >>> 20) & 0x7ff;
  const mantissa = (BigInt(u32of64[1]! & 0xfffff) << 32n) | BigInt(u32of64[0]!);
  return exponent === 0 ? mantissa : (mantissa | (1n << 52n)) << BigInt(exponent - 1);
}

/** Float32s as consecutive integers: −Infinity … −0 = +0 … +Infinity. */
function keyOf(v: number): number {
  f32[0] = v;
  const bits = u32[0]!;
  return bits >= 0x80000000 ? 0x80000000 - bits : bits;
}

function floatOf(key: number): number {
  u32[0] = key < 0 ? 0x80000000 - key : key;
  return f32[0]!;
}

/** The real number halfway between the float32s of keys k and k + 1. */
function midpointAbove(key: number): number {
  if (key === 0x7f7fffff) return OVERFLOW;
  if (key === -0x7f800000) return -OVERFLOW;
  return (floatOf(key) + floatOf(key + 1)) / 2;
}

const sign = (n: bigint): number => (n > 0n ? 1 : n < 0n ? -1 : 0);

/** One finite row's exact statistics, built the first time one of its outputs needs them. */
export class ExactRow {
  private readonly h: bigint[];
  private readonly S: bigint;
  private readonly Qn: bigint;
  private readonly Qd: bigint;
  private readonly centred: boolean;
  private readonly d: bigint;

  constructor(norm: NormKind, row: Float32Array, eps: number) {
    const d = BigInt(row.length);
    let S = 0n,
      P = 0n;
    this.h = Array.from(row, (v) => {
      const H = units(v);
      S += H;
      P += H * H;
      return H;
    });
    const E = epsUnits(eps);
    this.centred = NORMS[norm].centred;
    this.d = d;
    this.S = S;
    // x̂ = c / √(Qn / Qd): the moment's divisor n is d or 1, and a centred c is d times too large,
    // so its Q is d²·(Σ(h − μ)² / n + ε) = (d·P − S²)·d / n + ε·d².
    const n = NORMS[norm].divisor === 'width' ? d : 1n;
    this.Qn = this.centred ? (((d * P - S * S) * (d / n)) << EPS_SHIFT) + E * d * d : (P << EPS_SHIFT) + E * n;
    this.Qd = this.centred ? 1n << EPS_SHIFT : n << EPS_SHIFT;
  }

  /**
   * The float32 nearest to y_j = γ·x̂_j + β, ties to even, beyond the largest float32 ±Infinity;
   * y_j is known to lie in [lo, hi]. An exact zero is +0, a negative y that rounds to zero −0.
   */
  round(j: number, gamma: number, beta: number, lo: number, hi: number): number {
    const c = this.centred ? this.d * this.h[j]! - this.S : this.h[j]!;
    const A = 2n * units(gamma) * c;
    const B2 = 2n * units(beta);
    const { Qn, Qd } = this;
    // Sign of y − m (m a double: a midpoint, or 0).
    const compare = (m: number): number => {
      const W = BigInt(m * 2 * UNIT) - B2;
      const sa = sign(A),
        sw = sign(W);
      if (sa !== sw) return sa > sw ? 1 : -1;
      if (sa === 0) return 0;
      return sa * sign(A * A * Qd - W * W * Qn);
    };
    // Rounding is monotone, so the answer lies between the roundings of lo and hi: the smallest key
    // k there with y below midpoint(k, k + 1), or on it with k even.
    let a = keyOf(Math.fround(lo)),
      b = keyOf(Math.fround(hi));
    while (a < b) {
      const k = Math.floor((a + b) / 2);
      const s = compare(midpointAbove(k));
      if (s < 0 || (s === 0 && k % 2 === 0)) b = k;
      else a = k + 1;
    }
    const v = floatOf(a);
    if (v !== 0) return v;
    return compare(0) < 0 ? -0 : 0;
  }
}
