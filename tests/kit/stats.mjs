// The exact oracle's statistics and stages, for the tests that check what the kernels report
// besides their outputs (mean, variance, rstd, the stages of one row): exact rationals from the
// row's integers (exact.mjs), returned as doubles within two units of their last place.
import { bitLength, checkInputs, epsUnits, exactNormOf, factsOf, rowIntegers, rowIsFinite } from './exact.mjs';

const UNIT_EXP = 149;
const sign = (n) => (n > 0n ? 1 : n < 0n ? -1 : 0);
const abs = (n) => (n < 0n ? -n : n);

/** num / den · 2^exp as a double (num ≥ 0, den > 0): 64 quotient bits, truncated, then rounded. */
function ratioToDouble(num, den, exp) {
  if (num === 0n) return 0;
  const shift = Math.max(0, 64 - (bitLength(num) - bitLength(den)));
  const q = (num << BigInt(shift)) / den;
  const e = exp - shift;
  return Number(q) * 2 ** Math.trunc(e / 2) * 2 ** (e - Math.trunc(e / 2));
}

const signedRatio = (num, den, exp) => sign(num) * ratioToDouble(abs(num), den, exp);

/** ⌊√n⌋ by Newton's iteration from above. */
function isqrt(n) {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(bitLength(n) / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** √(Qd / Qn) · 2^exp as a double: the root taken of Qd / Qn scaled to 130 bits and more. */
function rsqrtToDouble(Qn, Qd, exp) {
  const k = Math.max(0, Math.ceil((130 - (bitLength(Qd) - bitLength(Qn))) / 2));
  const root = isqrt((Qd << BigInt(2 * k)) / Qn); // ≈ √(Qd/Qn) · 2^k, 65 bits and more
  return ratioToDouble(root, 1n, exp - k);
}

/** The name the API gives a norm's moment, by its facts: centred or not, divided by d or by 1. */
const MOMENTS = {
  centred: { width: 'variance', one: 'centredSumOfSquares' },
  uncentred: { width: 'meanSquare', one: 'sumOfSquares' },
};
const momentOf = ({ centred, divisor }) => MOMENTS[centred ? 'centred' : 'uncentred'][divisor];

/** The statistics of one finite row from its integers. */
function rowStats(norm, ints) {
  const { centred, divisor } = factsOf(norm);
  const { D, S, P, Qn, Qd } = ints;
  const N = divisor === 'width' ? D : 1n;
  // Centred: moment + ε = Q·u²/d², so rstd = d / (u·√Q); uncentred: moment + ε = Q·u², rstd = 1 / (u·√Q).
  const rstd = Qn === 0n ? Infinity : rsqrtToDouble(Qn, Qd, UNIT_EXP) * (centred ? Number(D) : 1);
  if (!centred) return { [momentOf(factsOf(norm))]: ratioToDouble(P, N, -2 * UNIT_EXP), rstd };
  return {
    mean: signedRatio(S, D, -UNIT_EXP),
    [momentOf(factsOf(norm))]: ratioToDouble(D * P - S * S, D * N, -2 * UNIT_EXP),
    rstd,
  };
}

/** The statistics' names for a norm: its mean if it centres, its moment, rstd. */
const fieldsOf = (norm) => {
  const facts = factsOf(norm);
  return [...(facts.centred ? ['mean'] : []), momentOf(facts), 'rstd'];
};

function checkNorm(fn, norm) {
  const facts = factsOf(norm);
  if (!facts || typeof facts.centred !== 'boolean' || !['width', 'one'].includes(facts.divisor))
    throw new TypeError(`${fn}: norm must be 'layernorm', 'rmsnorm' or { centred, divisor }, got ${norm}`);
}

/**
 * Each row's exact statistics as doubles (within 2 units of the last place): for 'layernorm' the
 * mean, the biased variance and rstd = 1/√(σ² + ε); for 'rmsnorm' the mean square and its rstd.
 * NaN for a row holding NaN or ±Infinity; rstd is Infinity where σ² + ε is 0.
 */
export function exactStats(h, d, { norm = 'layernorm', eps = 1e-5 } = {}) {
  checkInputs('exactStats', h, d, null, null, eps);
  checkNorm('exactStats', norm);
  const E = epsUnits(eps);
  const rows = h.length / d;
  const fields = fieldsOf(norm);
  const out = Object.fromEntries(fields.map((k) => [k, new Float64Array(rows)]));
  for (let r = 0; r < rows; r++) {
    const stats = rowIsFinite(h, r * d, d) ? rowStats(norm, rowIntegers(norm, h, r * d, d, E)) : null;
    for (const k of fields) out[k][r] = stats ? stats[k] : NaN;
  }
  return out;
}

/**
 * The exact answer and its statistics in one call: { y, mean, variance, rstd } for 'layernorm'
 * (γ, β), { y, meanSquare, rstd } for 'rmsnorm' (γ); y as exactLayerNorm / exactRmsNorm give it.
 */
export function exactReference(h, d, { norm = 'layernorm', gamma = null, beta = null, eps = 1e-5 } = {}) {
  checkNorm('exactReference', norm);
  const facts = factsOf(norm);
  const y = exactNormOf(facts, h, d, { gamma, beta: facts.bias === false ? null : beta, eps });
  return { y, ...exactStats(h, d, { norm, eps }) };
}

/**
 * One finite row's stages as exact values (doubles within a few units of their last place), as
 * layerNormStages / rmsNormStages name them: the statistics, then centered (h − μ; LayerNorm
 * only), normalized (x̂), scaled (γ ⊙ x̂).
 */
export function exactStages(h, d, row, { norm = 'layernorm', gamma = null, eps = 1e-5 } = {}) {
  checkInputs('exactStages', h, d, gamma, null, eps);
  checkNorm('exactStages', norm);
  if (!rowIsFinite(h, row * d, d)) throw new RangeError(`exactStages: row ${row} holds NaN or ±Infinity`);
  const ints = rowIntegers(norm, h, row * d, d, epsUnits(eps));
  const { D, H, S, Qn, Qd } = ints;
  const { centred } = factsOf(norm);
  const c = H.map((v) => (centred ? D * v - S : v));
  // x̂_j = c_j / √Q exactly: c_j · √(Qd/Qn), each factor within an ulp or two.
  const root = Qn === 0n ? 0 : rsqrtToDouble(Qn, Qd, 0);
  const normalized = Float64Array.from(c, (v) => (v === 0n ? 0 : signedRatio(v, 1n, 0) * root));
  const stages = {
    ...rowStats(norm, ints),
    normalized,
    scaled: normalized.map((v, j) => (gamma ? gamma[j] : 1) * v),
  };
  if (centred) stages.centered = Float64Array.from(c, (v) => signedRatio(v, D, -UNIT_EXP));
  return stages;
}
