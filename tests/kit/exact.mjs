// The exact oracle: LayerNorm and RMSNorm of float32 rows as real numbers, rounded once to the
// nearest float32 (ties to even, overflow to ±Infinity as IEEE round-to-nearest has it). It shares
// no formula with the package: every float32 is an integer times 2^-149 and every double (ε) an
// integer times 2^-1074, so the row's sum and sum of squares are exact BigInts, x − μ is exactly
// (d·x − S)/d, and the one square root is never taken: which float32 the real answer rounds to is
// decided by comparing squares of integers against the midpoints between neighbouring float32s.
// A double-precision first guess with a proven error bound settles almost every element; the exact
// comparisons confirm the rest, so rows of 10^6 take seconds.
//
// In units of u = 2^-149, with H_j = h_j / u, S = Σ H_j, P = Σ H_j², E = ε / 2^-1074:
//   LayerNorm  x̂_j = c_j / √Q, c_j = d·H_j − S, Q = (d·P − S²) + E·d²·2^-776
//   RMSNorm    x̂_j = c_j / √Q, c_j = H_j,       Q = (P + E·d·2^-776) / d
// and y_j / u = G_j·x̂_j + B_j with G = γ/u, B = β/u. Q is kept as the fraction Qn / Qd. Any norm
// given by its facts (whether it centres, and what its moment divides by, n = d or 1) is the same
// with Q = (d·P − S²)·d/n + E·d²·2^-776 (centred) or (P + E·n·2^-776) / n.

/** The facts of the norms the kit names; any other norm is passed as its facts. */
const NAMED = {
  layernorm: { centred: true, divisor: 'width', bias: true },
  rmsnorm: { centred: false, divisor: 'width', bias: false },
};
/** A norm's facts: `norm` a name of NAMED, or facts { centred, divisor: 'width' | 'one', bias? }. */
export const factsOf = (norm) => (typeof norm === 'string' ? NAMED[norm] : norm);

const UNIT_EXP = 149; // a float32 is an integer times 2^-149
const EPS_SHIFT = 776n; // 2^-1074 / (2^-149)² = 2^-776
const F32_MAX = 3.4028234663852886e38;
/** Where float32 rounding to nearest overflows: the midpoint between F32_MAX and 2^128. */
const OVERFLOW = 2 ** 128 - 2 ** 103;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const f64 = new Float64Array(1);
const u32of64 = new Uint32Array(f64.buffer);

/** h / 2^-149 as a BigInt: exact for every float32 (the product is an integer below 2^277). */
const units = (v) => BigInt(v * 2 ** UNIT_EXP);

/** ε / 2^-1074 as a BigInt, from the double's bits (ε · 2^1074 itself would overflow). */
export function epsUnits(eps) {
  if (eps === 0) return 0n;
  f64[0] = eps;
  const hi = u32of64[1],
    lo = u32of64[0];
  const exponent = (hi >>> 20) & 0x7ff;
  const mantissa = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  return exponent === 0 ? mantissa : (mantissa | (1n << 52n)) << BigInt(exponent - 1);
}

/** Bits of n ≥ 0. */
export function bitLength(n) {
  if (n === 0n) return 0;
  const hex = n.toString(16);
  return hex.length * 4 - (Math.clz32(parseInt(hex[0], 16)) - 28);
}

/** n ≈ m · 2^e with m a double holding n's leading 64 bits (truncated, then rounded: ≤ 2^-52 relative). */
function split(n) {
  const shift = Math.max(0, bitLength(n) - 64);
  return { m: Number(n >> BigInt(shift)), e: shift };
}

/** √(num / den) as a double, within 4·2^-53 relative (num, den > 0). */
function sqrtRatio(num, den) {
  const a = split(num),
    b = split(den);
  let e = a.e - b.e,
    ratio = a.m / b.m;
  if (e % 2 !== 0) {
    ratio *= 2;
    e -= 1;
  }
  // 2^(e/2) in two steps: e/2 can pass the double's exponent range where the product does not.
  const half = e / 2;
  return Math.sqrt(ratio) * 2 ** Math.trunc(half / 2) * 2 ** (half - Math.trunc(half / 2));
}

// --- float32 neighbours, by ordered key: −Inf … −0/+0 … +Inf as consecutive integers.

function keyOf(v) {
  f32[0] = v;
  const bits = u32[0];
  return bits >= 0x80000000 ? -(bits - 0x80000000) : bits;
}

function valueOf(key) {
  u32[0] = key < 0 ? 0x80000000 + -key : key;
  return f32[0];
}

/** The real number halfway between the float32s of keys k and k + 1 (a double, exactly). */
function midpointAbove(key) {
  if (key === 0x7f7fffff) return OVERFLOW;
  if (key === -0x7f800000) return -OVERFLOW;
  return (valueOf(key) + valueOf(key + 1)) / 2;
}

const evenKey = (key) => (Math.abs(key) & 1) === 0; // ±Inf and ±0 count as even, as IEEE has it

/**
 * The float32 the real y rounds to, y known to lie in [lo, hi] (doubles); compare(m) is the sign
 * of y − m for a double m. Binary search over the keys between round(lo) and round(hi): rounding is
 * monotone, so the answer is among them. Exactly zero gives +0, a tiny negative y −0.
 */
function roundBetween(lo, hi, compare) {
  let a = keyOf(Math.fround(lo)),
    b = keyOf(Math.fround(hi));
  // y rounds to key k or below iff y < midpoint(k, k+1), or y is on it and k is the even one.
  while (a < b) {
    const k = Math.floor((a + b) / 2); // below b, so never +Infinity's key
    const c = compare(midpointAbove(k));
    if (c < 0 || (c === 0 && evenKey(k))) b = k;
    else a = k + 1;
  }
  const v = valueOf(a);
  return v === 0 && compare(0) < 0 ? -0 : v === 0 ? 0 : v;
}

const sign = (n) => (n > 0n ? 1 : n < 0n ? -1 : 0);

/**
 * One finite row's exact integers, in units of 2^-149: H_j, S = ΣH, P = ΣH², and Q = Qn / Qd of
 * kind 'layernorm' or 'rmsnorm' (see the top of this file), E being ε / 2^-1074.
 */
export function rowIntegers(kind, h, base, d, E) {
  const { centred, divisor } = factsOf(kind);
  const D = BigInt(d);
  const N = divisor === 'width' ? D : 1n;
  const H = new Array(d);
  let S = 0n,
    P = 0n;
  for (let j = 0; j < d; j++) {
    const v = units(h[base + j]);
    H[j] = v;
    S += v;
    P += v * v;
  }
  const Qn = centred ? (((D * P - S * S) * (D / N)) << EPS_SHIFT) + E * D * D : (P << EPS_SHIFT) + E * N;
  const Qd = centred ? 1n << EPS_SHIFT : N << EPS_SHIFT;
  return { D, H, S, P, Qn, Qd };
}

/** Normalizes one finite row into out[base …]: kind 'layernorm' or 'rmsnorm'. */
function normalizeRow(kind, h, base, d, gamma, beta, E, out, guessless) {
  const { D, H, S, Qn, Qd } = rowIntegers(kind, h, base, d, E);
  // Qn = 0: every centred value is 0 and ε = 0. 0/0 is defined as 0, so y = β.
  const r = Qn === 0n ? 0 : sqrtRatio(Qd, Qn);
  for (let j = 0; j < d; j++) {
    const b = beta ? beta[j] : 0;
    const g = gamma ? gamma[j] : 1;
    const c = factsOf(kind).centred ? D * H[j] - S : H[j];
    if (c === 0n || g === 0) {
      out[base + j] = b === 0 ? 0 : b; // exactly β; an exact zero is +0
      continue;
    }
    // The first guess and its bound: Number(c), r and each product are within a few 2^-53
    // relative, so |guess − y| < 2^-49 (|γ·x̂| + |β|); 2^-46 leaves room for forming lo and hi.
    const gx = g * (Number(c) * r);
    const guess = gx + b;
    const delta = (Math.abs(gx) + Math.abs(b)) * 2 ** -46;
    const lo = guess - delta,
      hi = guess + delta;
    if (!guessless && Object.is(Math.fround(lo), Math.fround(hi))) {
      out[base + j] = Math.fround(guess);
      continue;
    }
    // Exact: sign of y − m = sign of 2·G·c / √Q − (m·2^150 − 2·B), compared by squares.
    const A = 2n * units(g) * c;
    const B2 = 2n * units(b);
    const compare = (m) => {
      const W = BigInt(m * 2 ** (UNIT_EXP + 1)) - B2;
      const sa = sign(A),
        sw = sign(W);
      if (sa !== sw) return sa > sw ? 1 : -1;
      if (sa === 0) return 0;
      return sa * sign(A * A * Qd - W * W * Qn);
    };
    out[base + j] = guessless ? roundBetween(-Infinity, Infinity, compare) : roundBetween(lo, hi, compare);
  }
}

export function checkInputs(fn, h, d, gamma, beta, eps) {
  if (!Number.isInteger(d) || d < 1) throw new RangeError(`${fn}: d must be an integer >= 1, got ${d}`);
  if (h.length % d !== 0) throw new RangeError(`${fn}: h.length ${h.length} is not a multiple of d = ${d}`);
  if (typeof eps !== 'number' || !(eps >= 0 && eps < Infinity))
    throw new RangeError(`${fn}: eps must be a finite number >= 0, got ${eps}`);
  for (const [name, a, n] of [
    ['h', h, h.length],
    ['gamma', gamma, d],
    ['beta', beta, d],
  ]) {
    if (a === null || a === undefined) continue;
    if (a.length !== n) throw new RangeError(`${fn}: ${name} must have length ${n}, got ${a.length}`);
    for (let i = 0; i < n; i++) {
      const v = a[i];
      if (typeof v !== 'number' || (Math.fround(v) !== v && v === v))
        throw new TypeError(`${fn}: ${name}[${i}] = ${v} is not a float32 value`);
      if (name !== 'h' && !Number.isFinite(v)) throw new RangeError(`${fn}: ${name}[${i}] = ${v} is not finite`);
    }
  }
}

export function rowIsFinite(h, base, d) {
  for (let j = 0; j < d; j++) if (!Number.isFinite(h[base + j])) return false;
  return true;
}

function exactNorm(fn, kind, h, d, { gamma = null, beta = null, eps = 1e-5, guessless = false } = {}) {
  checkInputs(fn, h, d, gamma, beta, eps);
  const E = epsUnits(eps);
  const out = new Float32Array(h.length);
  for (let base = 0; base < h.length; base += d) {
    if (rowIsFinite(h, base, d)) normalizeRow(kind, h, base, d, gamma, beta, E, out, guessless);
    else out.fill(NaN, base, base + d);
  }
  return out;
}

/**
 * LayerNorm y = γ ⊙ (h − μ) / √(σ² + ε) + β of each row of width d (biased variance), each output
 * the float32 nearest the real answer. gamma, beta: float32 arrays of length d or null (bias-free:
 * beta null). A row holding NaN or ±Infinity gives a row of NaN; a row whose centred values are all
 * 0 with ε = 0 gives β (0/0 := 0). An exact zero is +0; a negative y that rounds to zero is −0.
 * `guessless: true` (to test the oracle itself) decides every element by exact comparisons over
 * the whole float32 range, ignoring the first guess and its bound.
 */
export function exactLayerNorm(h, d, options) {
  return exactNorm('exactLayerNorm', 'layernorm', h, d, options);
}

/**
 * The norm with these facts ({ centred, divisor: 'width' | 'one' }), correctly rounded as
 * exactLayerNorm: y = γ ⊙ c / √(Σc² / n + ε) + β, c = h − μ or h, n = d or 1.
 */
export function exactNormOf(facts, h, d, options) {
  return exactNorm('exactNormOf', facts, h, d, options);
}

/** RMSNorm y = γ ⊙ h / √(mean(h²) + ε), correctly rounded as exactLayerNorm; a zero row gives 0. */
export function exactRmsNorm(h, d, options) {
  return exactNorm('exactRmsNorm', 'rmsnorm', h, d, { ...options, beta: null });
}

// --- the metric of the accuracy contract

/** The float32 spacing at magnitude s ≥ 0: 2^(⌊log2 s⌋ − 23), at least 2^-149. */
export function ulp32(s) {
  if (!(s >= 2 ** -126)) return 2 ** -149;
  if (s === Infinity) return Infinity;
  f64[0] = s;
  return 2 ** (((u32of64[1] >>> 20) & 0x7ff) - 1023 - 23);
}

/**
 * Compares y with the exact answer: the largest scaled-ULP error |y − e| / ulp32(max(|e − β|, |β|))
 * over elements where both are finite (β of column i % d; null for none), where it is, how many
 * elements are non-finite where the exact answer is finite (lost), NaN/±Inf of another kind than
 * the exact answer's (nonFinite), and how many differ in value (+0 and −0 count as equal).
 */
export function compareToExact(y, exact, beta, d) {
  if (y.length !== exact.length)
    throw new RangeError(`compareToExact: y has length ${y.length}, exact ${exact.length}`);
  let maxSulp = 0,
    worst = -1,
    lost = 0,
    nonFinite = 0,
    differing = 0;
  for (let i = 0; i < y.length; i++) {
    const a = y[i],
      e = exact[i];
    if (Number.isFinite(a) && Number.isFinite(e)) {
      if (a !== e) differing++;
      const b = beta ? beta[i % d] : 0;
      const s = Math.abs(a - e) / ulp32(Math.max(Math.abs(e - b), Math.abs(b)));
      if (s > maxSulp || worst < 0) {
        maxSulp = s;
        worst = i;
      }
      continue;
    }
    const same = a === e || (a !== a && e !== e);
    if (!same) {
      differing++;
      nonFinite++;
      if (Number.isFinite(e)) lost++;
    }
  }
  return { maxSulp, worst, lost, nonFinite, differing };
}

/** The largest scaled-ULP error of y against the exact answer (compareOutputs' maxScaledUlp, computed independently). */
export function sulp(y, exact, beta, d) {
  return compareToExact(y, exact, beta, d).maxSulp;
}

/** The fused residual's h = (x + r) + bias as the package forms it: in float32, each sum rounded. */
export function residualSum(x, r, bias, d) {
  const h = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const s = Math.fround(x[i] + r[i]);
    h[i] = bias ? s + bias[i % d] : s;
  }
  return h;
}

export { F32_MAX };
