// From a row's float64 sums to its statistics and to the plan its micro-kernel follows. The
// numerics, chosen by measurement against exact answers (README "Numerics contract"):
// * A centred norm's moments come from one pass: s1 = sum(x), s2 = sum(x^2), used when the
// cancellation
//   in s2 - s1^2/d, times the summation's error growth (d/8 + 8 units of 2^-53, row_ukernels.h
//   sums groups of 8 into 2 lanes), stays within 2^23: the variance is then good to 2^-30 (the
//   mean within ~100 sigma of zero at d = 768, as in real activations). Other rows are summed
//   again shifted by K, the float32 nearest the first pass's mean: every value of the row is a
//   float32, so (mean - K)^2 is at most the smallest (x - mean)^2, at most the variance, and the
//   cancellation costs at most 1 bit (shifting by the first value cost up to log2(d) bits). A
//   float32 value, difference or square is exact or within 2^-53 in double and never overflows
//   there. An uncentred norm's sum of squares has no cancellation at all. web/docs/numerics.md
//   bounds it.
// * The mean stays the unevaluated sum K + m + m_lo (K = 0 for the unshifted sums), never rounded
//   to one double: m = RN(s1 / d) is off by up to 2^-53 * |m|, which is large next to |x - mean|
//   for the element nearest the mean (x[0] = 1 among pairs (0.5, 1.5) and one 1.5 + 2^-23: 706
//   units of its output at d = 100,001 with m alone), so m_lo = RN((s1 - m * d) / d) carries the
//   rest, the remainder s1 - m * d being exact in double and taken exactly without a fused
//   multiply-add (ExactRemainder). On a shifted row the terms x - K are exact in double (both
//   floats, within a factor 2^29 of each other on such rows) and so is their sum (multiples of the
//   row's finest spacing, at most log2(d) + 26 bits); on an unshifted row the sum is exact unless
//   the row spans more than 2^(29 - log2(d)) in magnitude (README, "Numerics contract"). Then the
//   mean is known to 2^-104 of itself. Both paths centre from it: the fast path through
//   mu_hi + mu_lo, each rounded once, the wide path as ((x - K) - m) - m_lo in double. x - mean is
//   then within a few units of 2^-24 of its own size for every element, however close to the
//   mean: an element other than mu_hi is at least a quarter of mu_hi's float32 spacing from the
//   mean, where |mu_lo| is at most that, and the element equal to mu_hi gets -mu_lo, itself
//   rounded once. A row whose mu_lo would be a float32 subnormal takes the wide path (PlanRow).
//   web/docs/numerics.md follows every rounding to the bound.
// * The common ("fast") row is normalized in float32 as ((x - mu_hi) - mu_lo) * rstd, then the
//   gain and the bias (an uncentred norm: x * rstd, then the gain).
// * A norm's facts (norm_traits.h) choose between the two: the centred moments or the uncentred
//   ones, each the (centred) sum of squares times 1 / d or 1 (the norm's divisor), and the
//   centred or the uncentred row kernels.
// * Rows whose spread or rstd is extreme (subnormal rows, rows near 1e30, constant rows, rstd
//   beyond float32) take the "wide" path in double, rounded once: no float32 overflow of rstd,
//   no precision lost on subnormal values, at the cost of speed on rows that are rare. So does
//   every row of a centred call whose gain could overflow float32 on the way (|gamma * x^| is at
//   most |gamma| * sqrt(d - 1)) while a bias brings the sum back into range: gamma = 3e38 with
//   beta = -3e38 must not give +Inf where the answer is 2.2e38. (And every row with a bias but no
//   gain, which no model has: see PlanRow.)
#ifndef LAYERNORM_PLAN_H_
#define LAYERNORM_PLAN_H_

#include <cmath>
#include <cstddef>
#include <limits>

#include "kernels/inline.h"
#include "kernels/ukernels.h"
#include "layernorm/layernorm.h"
#include "norm_traits.h"

namespace layernorm::detail {

using kernels::Moments;

enum class RowMode { kFast, kWide, kNonFinite };

struct RowPlan {
  RowMode mode;
  kernels::RowParams params;
};

constexpr double kMinFastVariance = 0x1p-120;  // sigma >= 2^-60
constexpr double kMaxFastVariance = 0x1p+120;  // sigma <= 2^60
constexpr double kMinFastRstd = 0x1p-60;
constexpr double kMaxFastRstd = 0x1p+60;
// Largest ratio of the mean square to the variance, times the sums' error growth, for which the
// unshifted sums are used (the variance is then within 2^-30 of itself).
constexpr double kMaxUnshiftedCancellation = 0x1p23;
// Smallest sigma^2 / (sigma^2 + eps) of a fast centred row. An element of a row whose float64
// sum is exact (README, "Numerics contract") is at least 2^-54 sigma from the mean unless it is the
// mean, so its x^ is at least 2^-54 sigma * rstd: at least 2^-104 here, never a float32
// subnormal, whose rounding (2^-150, not 2^-24 of itself) a large gain would multiply. Only an eps
// 2^100 times the variance is refused.
constexpr double kMinFastVarianceShare = 0x1p-100;

inline Moments NonFiniteMoments() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return {nan, nan, nan, nan, nan};
}

// 1 / d, which the variance multiplies by: a division per row sat in the chain of dependent
// operations from one row's sums to the next row's loop (a multiply is 2.5x shorter), and the two
// roundings cost at most 2^-53 more than one. The mean is divided (CentredMoments).
inline double InverseWidth(std::size_t d) { return 1.0 / static_cast<double>(d); }

// s - q * n, exactly, for q = RN(s / n) and n = d (the remainder of a rounded quotient is a
// double), by Dekker's product: wasm has no fused multiply-add, and std::fma there is a library
// call. q splits into two halves of 26 bits, q_hi + q_lo; with n below 2^26 each half's product
// with n is exact, and so is the product's rounding error e; s - p is exact (p is within a few
// units of s, Sterbenz), and so is the remainder. A wider n is split too.
LAYERNORM_INLINE double ExactRemainder(double s, double q, double n) {
  constexpr double kSplit = 134217729.0;  // 2^27 + 1
  const double cq = kSplit * q;
  const double q_hi = cq - (cq - q), q_lo = q - q_hi;
  const double p = q * n;
  double e;
  if (n <= 0x1p26) {
    e = (q_hi * n - p) + q_lo * n;
  } else {
    const double cn = kSplit * n;
    const double n_hi = cn - (cn - n), n_lo = n - n_hi;
    e = (((q_hi * n_hi - p) + q_hi * n_lo) + q_lo * n_hi) + q_lo * n_lo;
  }
  return (s - p) - e;
}

// A centred norm's moments from the unshifted sums; the rows that need it are summed again,
// shifted (by `shifted`, the micro-kernel's shifted sums, by the float32 nearest their mean).
// The moment is the centred sum of squares times inv_div (InverseDivisor: 1 / d for a variance);
// the choice of sums reads the variance whatever the divisor.
template <class ShiftedSums>
LAYERNORM_INLINE Moments CentredMoments(ShiftedSums shifted, const void* x, std::size_t d,
                                        double inv_d, double inv_div, double eps, double s1,
                                        double s2) {
  // The mean is divided, rounded once: where the exact mean is a value of the row, that value
  // must centre to exactly 0 (s1 * (1 / d) rounds twice and missed it by 1e-17 on a row of 98,
  // an output of -1.5e-17 where the answer is 0). The variance, which needs ~2^-35, multiplies,
  // and does not wait for the division.
  const double n = static_cast<double>(d);
  Moments m;
  m.shift = 0.0;
  double squares = s2 - s1 * (s1 * inv_d);
  double variance = squares * inv_d;
  const double growth = n * 0.125 + 8.0;
  if (!(variance > 0.0 && (s2 * inv_d) * growth <= kMaxUnshiftedCancellation * variance)) {
    // Offset rows (1e4 + N(0,1)), constant and nearly constant rows, non-finite rows (NaN: K too).
    const double k = static_cast<double>(static_cast<float>(s1 / n));
    shifted(x, d, k, &s1, &s2);
    if (!std::isfinite(s1) || !std::isfinite(s2)) return NonFiniteMoments();  // NaN or Inf input
    m.shift = k;
    squares = s2 - s1 * (s1 * inv_d);
  }
  const double moment = squares * inv_div;
  m.mean_shift = s1 / n;
  // (m_lo needs far less than a double's precision: multiplied by 1 / d, not divided.)
  m.mean_lo = ExactRemainder(s1, m.mean_shift, n) * inv_d;
  m.variance = moment > 0.0 ? moment : 0.0;
  m.rstd = 1.0 / std::sqrt(m.variance + eps);
  return m;
}

// CentredMoments as one function shared by every element type (their shifted sums have one
// type), for the places that run once per call or per run; the pipelined step inlines it.
template <class ShiftedSums>
__attribute__((noinline)) Moments CentredMomentsOnce(ShiftedSums shifted, const void* x,
                                                     std::size_t d, double inv_d, double inv_div,
                                                     double eps, double s1, double s2) {
  return CentredMoments(shifted, x, d, inv_d, inv_div, eps, s1, s2);
}

// An uncentred norm's statistics (mean 0, its moment the sum of squares times inv_div: the mean
// square for 1 / d).
LAYERNORM_INLINE Moments UncentredMoments(double inv_div, double eps, double s2) {
  if (!std::isfinite(s2)) return NonFiniteMoments();
  const double ms = s2 * inv_div;
  return {0.0, 0.0, 0.0, ms, 1.0 / std::sqrt(ms + eps)};
}

// The mean as one double (K + (m + m_lo)).
LAYERNORM_INLINE double MeanOf(const Moments& m) { return m.shift + (m.mean_shift + m.mean_lo); }

// The statistics a caller sees.
LAYERNORM_INLINE RowStats Public(const Moments& m) { return {MeanOf(m), m.variance, m.rstd}; }

// Whether a call's gain is too large for the fast path. Centred: gamma * x^ could overflow
// float32 before the bias is added (gamma = 3e38, beta = -3e38 must not give +Inf where the
// answer is 2.2e38), or, without one, where the exact answer rounds to FLT_MAX but the float32 x^
// is rounded up; |x^| <= sqrt(d - 1), so only a gain within a factor sqrt(d) of FLT_MAX can (with
// a margin for the float32 rounding of x^). Uncentred with a gain: its fast path forms
// 2^64 * gamma * x^ (kernels/row_ukernels.h, UncentredFast), which must stay finite. (With the
// divisor 1, |x^| <= 1: the bounds for d hold with room.)
// max_abs_gain: the largest |gamma_j| (NaN when a gain is NaN).
inline bool GainMayOverflow(bool centred, float max_abs_gain, std::size_t d) {
  const double g = static_cast<double>(max_abs_gain);
  const double limit = centred ? 0x1p252 : 0x1p120;
  return !(g * g * static_cast<double>(d) < limit);  // (squared: no square root per call)
}

// The path a row with these statistics takes.
LAYERNORM_INLINE RowMode ModeOf(bool centred, double variance, double rstd, bool wide_gain) {
  if (std::isnan(rstd)) return RowMode::kNonFinite;
  const bool rstd_fits = rstd >= kMinFastRstd && rstd <= kMaxFastRstd;
  const bool fast = centred ? rstd_fits && variance >= kMinFastVariance &&
                                  variance <= kMaxFastVariance &&
                                  variance * rstd * rstd >= kMinFastVarianceShare && !wide_gain
                            : rstd_fits && !wide_gain;
  return fast ? RowMode::kFast : RowMode::kWide;
}
inline RowMode ModeOf(Norm norm, const RowStats& s) {
  return ModeOf(TraitsOf(norm).centred, s.variance, s.rstd, false);
}

// wide_gain: GainMayOverflow() of the call (any call with a gain).
LAYERNORM_INLINE RowPlan PlanRow(bool centred, const Moments& s, const float* gamma,
                                 const float* beta, bool wide_gain) {
  RowPlan p{};
  p.params.gamma = gamma;
  p.params.beta = beta;
  // mu_hi rounds K + m; K - mu_hi is exact (two floats, K the float32 nearest the first pass's
  // mean on a shifted row) and (K - mu_hi) + m + m_lo is within 2^-52 of the rest of the mean, so
  // mu_lo is that rest rounded once to float32 (give or take 2^-52 of itself) where it is a normal
  // float32 or 0.
  const float mu_hi = static_cast<float>(s.shift + s.mean_shift);
  const double rest = ((s.shift - static_cast<double>(mu_hi)) + s.mean_shift) + s.mean_lo;
  // A bias without a gain (LayerNorm(x, beta), which no model has) takes the wide path too: its
  // own fast loop cost 1.5 kB of module, against the page's 250 KB first load. So does a rest of
  // the mean below float32's normal range, whose rounding (2^-150) is not small next to the
  // element equal to mu_hi, rest away from the mean (a mean below 2^-102, or a row spanning 2^26
  // binades between its smallest spacing and its spread, summed exactly).
  const bool subnormal_rest = rest != 0.0 && std::fabs(rest) < 0x1p-126;
  p.mode = ModeOf(centred, s.variance, s.rstd, wide_gain || (!gamma && beta) || subnormal_rest);
  if (p.mode == RowMode::kNonFinite) return p;
  // rstd is +inf only where every centered value is 0 (a constant row, or an uncentred norm's zero
  // row, with eps == 0): 0 there makes the output beta (without one: 0) instead of 0 * inf.
  p.params.rstd = std::isinf(s.rstd) ? 0.0 : s.rstd;
  p.params.shift = s.shift;
  p.params.mean_shift = s.mean_shift;
  p.params.mean_lo = s.mean_lo;
  p.params.mu_hi = mu_hi;
  p.params.mu_lo = static_cast<float>(rest);
  p.params.rstd32 = static_cast<float>(s.rstd);
  return p;
}

}  // namespace layernorm::detail

#endif  // LAYERNORM_PLAN_H_
