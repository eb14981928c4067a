// From a row's float64 sums to its statistics and to the plan its micro-kernel follows. The
// numerics, chosen by measurement against exact answers (README "Numerics"):
// * LayerNorm moments come from one pass: s1 = sum(x), s2 = sum(x^2), used when the cancellation
//   in s2 - s1^2/d costs at most 16 of double's 53 bits (the mean within a few hundred sigma of
//   zero, as in real activations). Other rows are summed again shifted by their first element K:
//   since (mean - K)^2 <= (d - 1) * var that costs at most log2(d) bits. A float32 value,
//   difference or square is exact or within 2^-53 in double and never overflows there: the
//   variance is good to ~2^-35 or better, far beyond float32. RMSNorm's sum of squares has no
//   cancellation at all.
// * The common ("fast") row is normalized in float32 (LayerNorm: the mean split into two floats,
//   so (x - mu_hi) - mu_lo keeps it beyond float32, as 1e4 + N(0,1) rows need).
// * Rows whose spread or rstd is extreme (subnormal rows, rows near 1e30, constant rows, rstd
//   beyond float32) take the "wide" path in double, rounded once: no float32 overflow of rstd,
//   no precision lost on subnormal values, at the cost of speed on rows that are rare.
#ifndef LAYERNORM_PLAN_H_
#define LAYERNORM_PLAN_H_

#include <cmath>
#include <cstddef>
#include <limits>

#include "kernels/ukernels.h"
#include "layernorm/layernorm.h"

namespace layernorm::detail {

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

inline RowStats NonFiniteStats() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  return {nan, nan, nan};
}

// LayerNorm statistics from the unshifted sums; the rows that need it are summed again, shifted
// (by `shifted`, the micro-kernel's shifted sums, from the row's first value).
template <class ShiftedSums>
RowStats LayerNormMoments(ShiftedSums shifted, const void* x, std::size_t d, double eps, double s1,
                          double s2, double first) {
  const double n = static_cast<double>(d);
  double mean = s1 / n;
  double variance = (s2 - s1 * mean) / n;
  if (!(variance > 0.0 && s2 <= kMaxUnshiftedRatio * n * variance)) {
    // Offset rows (1e4 + N(0,1)), constant rows, non-finite rows.
    shifted(x, d, first, &s1, &s2);
    if (!std::isfinite(s1) || !std::isfinite(s2)) return NonFiniteStats();  // NaN or Inf input
    const double mean_shift = s1 / n;
    mean = first + mean_shift;
    variance = (s2 - s1 * mean_shift) / n;
  }
  RowStats stats;
  stats.mean = mean;
  stats.variance = variance > 0.0 ? variance : 0.0;
  stats.rstd = 1.0 / std::sqrt(stats.variance + eps);
  return stats;
}

// RMSNorm statistics (mean 0, variance the mean square) from the sum of squares.
inline RowStats RmsNormMoments(std::size_t d, double eps, double s2) {
  if (!std::isfinite(s2)) return NonFiniteStats();
  const double ms = s2 / static_cast<double>(d);
  return {0.0, ms, 1.0 / std::sqrt(ms + eps)};
}

inline RowPlan PlanRow(Norm norm, const RowStats& s, const float* gamma, const float* beta) {
  RowPlan p{};
  p.params.gamma = gamma;
  p.params.beta = beta;
  if (std::isnan(s.mean)) {
    p.mode = RowMode::kNonFinite;
    return p;
  }
  // rstd is +inf only where every centered value is 0 (a constant row, or RMSNorm's zero row,
  // with eps == 0): 0 there makes the output beta (RMSNorm: 0) instead of 0 * inf.
  const double rstd = std::isinf(s.rstd) ? 0.0 : s.rstd;
  const bool rstd_fits = s.rstd >= kMinFastRstd && s.rstd <= kMaxFastRstd;
  const bool fast = norm == Norm::kRmsNorm ? rstd_fits
                                           : rstd_fits && s.variance >= kMinFastVariance &&
                                                 s.variance <= kMaxFastVariance;
  p.mode = fast ? RowMode::kFast : RowMode::kWide;
  p.params.mean = s.mean;
  p.params.rstd = rstd;
  p.params.mu_hi = static_cast<float>(s.mean);
  p.params.mu_lo = static_cast<float>(s.mean - static_cast<double>(p.params.mu_hi));
  p.params.rstd32 = static_cast<float>(s.rstd);
  return p;
}

}  // namespace layernorm::detail

#endif  // LAYERNORM_PLAN_H_
