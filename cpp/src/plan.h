// From a row's float64 sums to its statistics and to the plan its micro-kernel follows. The
// numerics, chosen by measurement against exact answers (README "Numerics contract"):
// * LayerNorm moments come from one pass: s1 = sum(x), s2 = sum(x^2), used when the cancellation
//   in s2 - s1^2/d costs at most 16 of double's 53 bits (the mean within a few hundred sigma of
//   zero, as in real activations). Other rows are summed again shifted by their first element K:
//   since (mean - K)^2 <= (d - 1) * var that costs at most log2(d) bits. A float32 value,
//   difference or square is exact or within 2^-53 in double and never overflows there: the
//   variance is good to ~2^-35 or better, far beyond float32. RMSNorm's sum of squares has no
//   cancellation at all.
// * The mean stays the unevaluated pair K + m, m = sum(x - K) / d (K = 0 for the unshifted sums),
//   never rounded to one double: on a shifted row that rounding is at the spacing of K, which is
//   large next to |x - mean| where the row is nearly constant (a row of 1e4 with one element one
//   float32 step higher has |x - mean| = 2^-10 / d for all the others). The shifted terms x - K
//   are exact in double (both floats, within a factor 2^29 of each other on such rows) and so is
//   their sum (multiples of the rows' finest spacing, at most log2(d) + 26 bits), so m is the exact
//   mean of x - K rounded once, and both paths centre from the pair: the fast path through
//   mu_hi + mu_lo taken from K + m with one rounding each, the wide path as (x - K) - m in double.
//   Then x - mean is accurate to a few units of 2^-24 of its own size for every element, however
//   close to the mean: an element other than mu_hi is at least half a float32 spacing from it,
//   where |mu_lo| is at most that, and the element equal to mu_hi gets -mu_lo, itself rounded once.
//   What stays: on the unshifted path the sum s1 is exact unless the row spans more than about
//   2^(53 - 24 - log2(d)) in magnitude; there an element within ~d * 2^-53 * sum|x| / d of the mean
//   carries that absolute error (README).
// * The common ("fast") row is normalized in float32 as ((x - mu_hi) - mu_lo) * rstd, then the
//   gain and the bias (RMSNorm: x * rstd, then the gain).
// * Rows whose spread or rstd is extreme (subnormal rows, rows near 1e30, constant rows, rstd
//   beyond float32) take the "wide" path in double, rounded once: no float32 overflow of rstd,
//   no precision lost on subnormal values, at the cost of speed on rows that are rare. So does
//   every row of a LayerNorm call whose gain could overflow float32 on the way (|gamma * x^| is at
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
// Largest ratio of the mean square to the variance for which the unshifted sums are used.
constexpr double kMaxUnshiftedRatio = 0x1p16;

inline Moments NonFiniteMoments() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return {nan, nan, nan, nan};
}

// 1 / d, which the variance multiplies by: a division per row sat in the chain of dependent
// operations from one row's sums to the next row's loop (a multiply is 2.5x shorter), and the two
// roundings cost at most 2^-53 more than one. The mean is divided (LayerNormMoments).
inline double InverseWidth(std::size_t d) { return 1.0 / static_cast<double>(d); }

// LayerNorm moments from the unshifted sums; the rows that need it are summed again, shifted
// (by `shifted`, the micro-kernel's shifted sums, from the row's first value).
template <class ShiftedSums>
LAYERNORM_INLINE Moments LayerNormMoments(ShiftedSums shifted, const void* x, std::size_t d,
                                          double inv_d, double eps, double s1, double s2,
                                          double first) {
  // The mean is divided, rounded once: where the exact mean is a value of the row, that value
  // must centre to exactly 0 (s1 * (1 / d) rounds twice and missed it by 1e-17 on a row of 98,
  // an output of -1.5e-17 where the answer is 0). The variance, which needs ~2^-35, multiplies,
  // and does not wait for the division.
  const double n = static_cast<double>(d);
  Moments m;
  m.shift = 0.0;
  m.mean_shift = s1 / n;
  double variance = (s2 - s1 * (s1 * inv_d)) * inv_d;
  if (!(variance > 0.0 && s2 * inv_d <= kMaxUnshiftedRatio * variance)) {
    // Offset rows (1e4 + N(0,1)), constant and nearly constant rows, non-finite rows.
    shifted(x, d, first, &s1, &s2);
    if (!std::isfinite(s1) || !std::isfinite(s2)) return NonFiniteMoments();  // NaN or Inf input
    m.shift = first;
    m.mean_shift = s1 / n;
    variance = (s2 - s1 * (s1 * inv_d)) * inv_d;
  }
  m.variance = variance > 0.0 ? variance : 0.0;
  m.rstd = 1.0 / std::sqrt(m.variance + eps);
  return m;
}

// LayerNormMoments as one function shared by every element type (their shifted sums have one
// type), for the places that run once per call or per run; the pipelined step inlines it.
template <class ShiftedSums>
__attribute__((noinline)) Moments LayerNormMomentsOnce(ShiftedSums shifted, const void* x,
                                                       std::size_t d, double inv_d, double eps,
                                                       double s1, double s2, double first) {
  return LayerNormMoments(shifted, x, d, inv_d, eps, s1, s2, first);
}

// RMSNorm statistics (mean 0, variance the mean square) from the sum of squares.
LAYERNORM_INLINE Moments RmsNormMoments(double inv_d, double eps, double s2) {
  if (!std::isfinite(s2)) return NonFiniteMoments();
  const double ms = s2 * inv_d;
  return {0.0, 0.0, ms, 1.0 / std::sqrt(ms + eps)};
}

// The statistics a caller sees: the mean as one double (K + m, rounded once).
LAYERNORM_INLINE RowStats Public(const Moments& m) {
  return {m.shift + m.mean_shift, m.variance, m.rstd};
}

// Whether a call's gain is too large for the fast path. LayerNorm with a bias: gamma * x^ could
// overflow float32 before the bias is added; |x^| <= sqrt(d - 1), so only a gain within a factor
// sqrt(d) of FLT_MAX can (with a margin for the float32 rounding of x^). RMSNorm with a gain: its
// fast path forms 2^64 * gamma * x^ (kernels/row_ukernels.h, RmsNormFast), which must stay finite.
// max_abs_gain: the largest |gamma_j| (NaN when a gain is NaN).
inline bool GainMayOverflow(Norm norm, float max_abs_gain, std::size_t d) {
  const double g = static_cast<double>(max_abs_gain);
  const double limit = norm == Norm::kRmsNorm ? 0x1p120 : 0x1p252;
  return !(g * g * static_cast<double>(d) < limit);  // (squared: no square root per call)
}

// The path a row with these statistics takes.
LAYERNORM_INLINE RowMode ModeOf(Norm norm, double variance, double rstd, bool wide_gain) {
  if (std::isnan(rstd)) return RowMode::kNonFinite;
  const bool rstd_fits = rstd >= kMinFastRstd && rstd <= kMaxFastRstd;
  const bool fast = norm == Norm::kRmsNorm ? rstd_fits && !wide_gain
                                           : rstd_fits && variance >= kMinFastVariance &&
                                                 variance <= kMaxFastVariance && !wide_gain;
  return fast ? RowMode::kFast : RowMode::kWide;
}
inline RowMode ModeOf(Norm norm, const RowStats& s) {
  return ModeOf(norm, s.variance, s.rstd, false);
}

// wide_gain: GainMayOverflow() of the call (LayerNorm with a bias, RMSNorm with a gain).
LAYERNORM_INLINE RowPlan PlanRow(Norm norm, const Moments& s, const float* gamma, const float* beta,
                                 bool wide_gain) {
  RowPlan p{};
  p.params.gamma = gamma;
  p.params.beta = beta;
  // A bias without a gain (LayerNorm(x, beta), which no model has) takes the wide path too: its
  // own fast loop cost 1.5 kB of module, against the page's 250 KB first load.
  p.mode = ModeOf(norm, s.variance, s.rstd, wide_gain || (!gamma && beta));
  if (p.mode == RowMode::kNonFinite) return p;
  // rstd is +inf only where every centered value is 0 (a constant row, or RMSNorm's zero row,
  // with eps == 0): 0 there makes the output beta (RMSNorm: 0) instead of 0 * inf.
  p.params.rstd = std::isinf(s.rstd) ? 0.0 : s.rstd;
  p.params.shift = s.shift;
  p.params.mean_shift = s.mean_shift;
  // mu_hi rounds K + m once; K - mu_hi is exact (two floats), so mu_lo rounds the rest once.
  p.params.mu_hi = static_cast<float>(s.shift + s.mean_shift);
  p.params.mu_lo =
      static_cast<float>((s.shift - static_cast<double>(p.params.mu_hi)) + s.mean_shift);
  p.params.rstd32 = static_cast<float>(s.rstd);
  return p;
}

}  // namespace layernorm::detail

#endif  // LAYERNORM_PLAN_H_
