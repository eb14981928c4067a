// The one LayerNorm row algorithm, written once against a tiny vector-ops wrapper and
// instantiated for scalar_ops.h and wasmsimd_ops.h. Both wrappers have 4 float lanes and 2 double
// lanes and perform the same IEEE operations lane by lane, so every kernel produces bit-identical
// results (wasm SIMD128 has no fused multiply-add, and the native builds use -ffp-contract=off).
//
// Numerics, chosen by measurement against exact answers (see README "Numerics"):
// * Moments in one pass over the row in float64: s1 = sum(x), s2 = sum(x^2), used when the
//   cancellation in s2 - s1^2/d costs at most 16 of double's 53 bits (the mean is within a few
//   hundred sigma of zero, as in real activations). Other rows are summed again shifted by their
//   first element K: s1 = sum(x - K), s2 = sum((x - K)^2); since (mean - K)^2 <= (d - 1) * var
//   that costs at most log2(d) bits. A float32 value, difference or square is exact or within
//   2^-53 in double and never overflows or underflows there: the variance is good to ~2^-35 or
//   better, far beyond float32.
// * The common ("fast") row: the mean is split into mu_hi + mu_lo (two floats), so
//   (x - mu_hi) - mu_lo keeps the mean beyond float32 (needed for 1e4 + N(0,1) rows), then
//   float32 multiplies by rstd, gamma and adds beta.
// * Rows whose spread is extreme (sigma outside [2^-60, 2^60]: subnormal rows, rows near 1e30,
//   constant rows) or whose rstd is extreme take the "wide" path: (x - mean) * rstd in double,
//   times gamma plus beta, rounded once to float32. This avoids float32 overflow of rstd (1e-40
//   rows with eps = 0) and precision loss of subnormal centered values, at the cost of speed on
//   rows that are rare.
// * Rows are pipelined: the loop that writes row r's outputs also sums row r + 1. The output
//   loop is bound by stores and the sums by float64 conversions, which run on different execution
//   ports, and the next row's loads start while row r's stores drain (measured 12-20% faster at
//   1024-16384 rows than two loops per row). The sums are the same operations in the same order
//   as RowSums, so pipelined and standalone statistics are bit-identical.
#ifndef LAYERNORM_KERNELS_ROW_TEMPLATE_H_
#define LAYERNORM_KERNELS_ROW_TEMPLATE_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "layernorm/layernorm.h"

namespace layernorm::kernels {

enum class RowMode { kFast, kWide, kNonFinite };

// What the element pass needs to know about one row.
struct RowPlan {
  RowMode mode;
  float mu_hi;
  float mu_lo;
  float rstd32;
  double mean;
  double rstd;  // 0 for a constant row with eps == 0, so that it yields beta (x - mean is 0)
};

constexpr double kMinFastVariance = 0x1p-120;  // sigma >= 2^-60
constexpr double kMaxFastVariance = 0x1p+120;  // sigma <= 2^60
constexpr double kMinFastRstd = 0x1p-60;
constexpr double kMaxFastRstd = 0x1p+60;

// Adds 8 floats at p, less the shift when kShift, to the float64 sums s1 (values) and s2
// (squares). Each group is reduced as a tree before it meets the accumulator, so two accumulators
// carry the whole row: V8 keeps them and the pipelined output loop's constants in registers.
template <class Ops, bool kShift>
inline void SumsStep(const float* p, typename Ops::F64 shift, typename Ops::F64* s1,
                     typename Ops::F64* s2) {
  using F64 = typename Ops::F64;
  const auto center = [&shift](F64 v) { return kShift ? Ops::Sub64(v, shift) : v; };
  // Half-vector loads: V8 turns each into a single convert-from-memory instruction.
  const F64 c0 = center(Ops::LoadPromote(p));
  const F64 c1 = center(Ops::LoadPromote(p + 2));
  const F64 c2 = center(Ops::LoadPromote(p + 4));
  const F64 c3 = center(Ops::LoadPromote(p + 6));
  *s1 = Ops::Add64(*s1, Ops::Add64(Ops::Add64(c0, c1), Ops::Add64(c2, c3)));
  *s2 = Ops::Add64(*s2, Ops::Add64(Ops::Add64(Ops::Mul64(c0, c0), Ops::Mul64(c1, c1)),
                                   Ops::Add64(Ops::Mul64(c2, c2), Ops::Mul64(c3, c3))));
}

// The float64 sums of a row's last d % 8 elements, folded into the vector accumulators.
template <class Ops, bool kShift>
void FinishSums(const float* tail, std::size_t n, double shift, typename Ops::F64 s1,
                typename Ops::F64 s2, double* sum, double* squares) {
  double t1 = 0.0, t2 = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const double c = kShift ? static_cast<double>(tail[j]) - shift : static_cast<double>(tail[j]);
    t1 += c;
    t2 += c * c;
  }
  *sum = (Ops::Lane0(s1) + Ops::Lane1(s1)) + t1;
  *squares = (Ops::Lane0(s2) + Ops::Lane1(s2)) + t2;
}

// Sum of (x - shift) and of its square over a row, in float64. kShift = false sums x itself
// (shift ignored), which saves a quarter of the pass's arithmetic.
template <class Ops, bool kShift>
void RowSums(const float* x, std::size_t d, double shift, double* sum, double* squares) {
  using F64 = typename Ops::F64;
  const F64 k = Ops::Splat64(shift);
  F64 s1 = Ops::Splat64(0.0), s2 = s1;
  const float* p = x;
  // Pointer increments: V8 turns them into fewer instructions than indexed addressing.
  for (const float* end = x + (d & ~std::size_t{7}); p != end; p += 8) {
    SumsStep<Ops, kShift>(p, k, &s1, &s2);
  }
  FinishSums<Ops, kShift>(p, d & 7, shift, s1, s2, sum, squares);
}

// Largest ratio of the mean square to the variance for which the unshifted sums are used: the
// cancellation in s2 - s1^2/d then costs at most 16 of double's 53 bits.
constexpr double kMaxUnshiftedRatio = 0x1p16;

// Row statistics from the unshifted sums s1 = sum(x), s2 = sum(x^2). Most rows' mean is within a
// few sigma of zero, where these are exact enough; the others are summed again here, shifted.
template <class Ops>
RowStats MomentsFromSums(const float* x, std::size_t d, double eps, double s1, double s2) {
  const double n = static_cast<double>(d);
  RowStats stats;
  double mean = s1 / n;
  double variance = (s2 - s1 * mean) / n;
  if (!(variance > 0.0 && s2 <= kMaxUnshiftedRatio * n * variance)) {
    // Offset rows (1e4 + N(0,1)), constant rows, non-finite rows: sums shifted by the first
    // element, which bounds the cancellation by log2(d) bits since (mean - K)^2 <= (d - 1) var.
    const double shift = static_cast<double>(x[0]);
    RowSums<Ops, true>(x, d, shift, &s1, &s2);
    if (!std::isfinite(s1) || !std::isfinite(s2)) {  // only a NaN or Inf input gets here
      const double nan = std::numeric_limits<double>::quiet_NaN();
      stats.mean = stats.variance = stats.rstd = nan;
      return stats;
    }
    const double mean_shift = s1 / n;
    mean = shift + mean_shift;
    variance = (s2 - s1 * mean_shift) / n;
  }
  stats.mean = mean;
  stats.variance = variance > 0.0 ? variance : 0.0;
  stats.rstd = 1.0 / std::sqrt(stats.variance + eps);
  return stats;
}

template <class Ops>
RowStats RowMoments(const float* x, std::size_t d, double eps) {
  double s1, s2;
  RowSums<Ops, false>(x, d, 0.0, &s1, &s2);
  return MomentsFromSums<Ops>(x, d, eps, s1, s2);
}

inline RowPlan PlanRow(const RowStats& s) {
  RowPlan p{};
  if (std::isnan(s.mean)) {
    p.mode = RowMode::kNonFinite;
    return p;
  }
  p.mean = s.mean;
  p.rstd = std::isinf(s.rstd) ? 0.0 : s.rstd;
  const bool fast = s.variance >= kMinFastVariance && s.variance <= kMaxFastVariance &&
                    s.rstd >= kMinFastRstd && s.rstd <= kMaxFastRstd;
  p.mode = fast ? RowMode::kFast : RowMode::kWide;
  p.mu_hi = static_cast<float>(s.mean);
  p.mu_lo = static_cast<float>(s.mean - static_cast<double>(p.mu_hi));
  p.rstd32 = static_cast<float>(s.rstd);
  return p;
}

// One element of the fast path; the vector loop below does exactly this per lane.
inline float FastNormalized(float x, const RowPlan& p) {
  const float centered = (x - p.mu_hi) - p.mu_lo;
  return centered * p.rstd32;
}

inline double WideNormalized(float x, const RowPlan& p) {
  return (static_cast<double>(x) - p.mean) * p.rstd;
}

template <bool kGamma, bool kBeta>
inline float Affine(float t, const float* gamma, const float* beta, std::size_t j) {
  if constexpr (kGamma) t = t * gamma[j];
  if constexpr (kBeta) t = t + beta[j];
  return t;
}

template <class Ops, bool kGamma, bool kBeta>
inline typename Ops::F32 AffineVec(typename Ops::F32 t, const float* gamma, const float* beta,
                                   std::size_t j) {
  if constexpr (kGamma) t = Ops::Mul32(t, Ops::Load(gamma + j));
  if constexpr (kBeta) t = Ops::Add32(t, Ops::Load(beta + j));
  return t;
}

// The fast path for row x. With kSumNext it also sums the next row xn, which must not overlap y,
// into *sum and *squares (the pipelining described in the header).
template <class Ops, bool kGamma, bool kBeta, bool kSumNext>
void NormalizeRowFast(const float* x, float* y, std::size_t d, const float* gamma,
                      const float* beta, const RowPlan& p, const float* xn = nullptr,
                      double* sum = nullptr, double* squares = nullptr) {
  using F32 = typename Ops::F32;
  using F64 = typename Ops::F64;
  const F32 mu_hi = Ops::Splat32(p.mu_hi);
  const F32 mu_lo = Ops::Splat32(p.mu_lo);
  const F32 rstd = Ops::Splat32(p.rstd32);
  const F64 zero = Ops::Splat64(0.0);
  F64 s1 = zero, s2 = zero;
  const float* const end = x + d;
  for (const float* end8 = x + (d & ~std::size_t{7}); x != end8; x += 8, y += 8) {
    const F32 t0 = Ops::Mul32(Ops::Sub32(Ops::Sub32(Ops::Load(x), mu_hi), mu_lo), rstd);
    const F32 t1 = Ops::Mul32(Ops::Sub32(Ops::Sub32(Ops::Load(x + 4), mu_hi), mu_lo), rstd);
    Ops::Store(y, AffineVec<Ops, kGamma, kBeta>(t0, gamma, beta, 0));
    Ops::Store(y + 4, AffineVec<Ops, kGamma, kBeta>(t1, gamma, beta, 4));
    if constexpr (kGamma) gamma += 8;
    if constexpr (kBeta) beta += 8;
    if constexpr (kSumNext) {
      SumsStep<Ops, false>(xn, zero, &s1, &s2);
      xn += 8;
    }
  }
  for (std::size_t j = 0; x + j != end; ++j) {
    y[j] = Affine<kGamma, kBeta>(FastNormalized(x[j], p), gamma, beta, j);
  }
  if constexpr (kSumNext) FinishSums<Ops, false>(xn, d & 7, 0.0, s1, s2, sum, squares);
}

// The wide path keeps gamma and beta in double too, so each output is rounded once: the
// normalized value of an extreme row may itself be subnormal, and rounding it to float32 before
// a large gain would multiply that rounding error.
template <class Ops, bool kGamma, bool kBeta>
void NormalizeRowWide(const float* x, float* y, std::size_t d, const float* gamma,
                      const float* beta, const RowPlan& p) {
  using F32 = typename Ops::F32;
  using F64 = typename Ops::F64;
  const F64 mean = Ops::Splat64(p.mean);
  const F64 rstd = Ops::Splat64(p.rstd);
  std::size_t j = 0;
  for (; j + 4 <= d; j += 4) {
    const F32 v = Ops::Load(x + j);
    F64 lo = Ops::Mul64(Ops::Sub64(Ops::PromoteLo(v), mean), rstd);
    F64 hi = Ops::Mul64(Ops::Sub64(Ops::PromoteHi(v), mean), rstd);
    if constexpr (kGamma) {
      const F32 g = Ops::Load(gamma + j);
      lo = Ops::Mul64(lo, Ops::PromoteLo(g));
      hi = Ops::Mul64(hi, Ops::PromoteHi(g));
    }
    if constexpr (kBeta) {
      const F32 b = Ops::Load(beta + j);
      lo = Ops::Add64(lo, Ops::PromoteLo(b));
      hi = Ops::Add64(hi, Ops::PromoteHi(b));
    }
    Ops::Store(y + j, Ops::Demote(lo, hi));
  }
  for (; j < d; ++j) {
    double t = WideNormalized(x[j], p);
    if constexpr (kGamma) t = t * static_cast<double>(gamma[j]);
    if constexpr (kBeta) t = t + static_cast<double>(beta[j]);
    y[j] = static_cast<float>(t);
  }
}

// True when the float ranges [a, a + na) and [b, b + nb) share no element.
inline bool DoNotOverlap(const float* a, std::size_t na, const float* b, std::size_t nb) {
  const auto ia = reinterpret_cast<std::uintptr_t>(a), ib = reinterpret_cast<std::uintptr_t>(b);
  return ia + na * sizeof(float) <= ib || ib + nb * sizeof(float) <= ia;
}

// A run of consecutive rows, normalized one row per Step: each fast row is written while the next
// row is summed (see the header).
template <class Ops, bool kGamma, bool kBeta>
class RowRun {
 public:
  RowRun(const float* x, float* y, std::size_t rows, std::size_t d, double eps)
      : x_(x), y_(y), left_(rows) {
    if (rows > 0) plan_ = PlanRow(RowMoments<Ops>(x, d, eps));
  }

  bool done() const { return left_ == 0; }

  void Step(std::size_t d, const float* gamma, const float* beta, double eps) {
    const float* next = x_ + d;
    const bool has_next = left_ > 1;
    // The pipelined loop reads the next row while it writes this one, so the two must be apart:
    // always true in place (y == x) and for the disjoint buffers layernorm.h requires.
    if (plan_.mode == RowMode::kFast && has_next && DoNotOverlap(y_, d, next, d)) {
      double s1, s2;
      NormalizeRowFast<Ops, kGamma, kBeta, true>(x_, y_, d, gamma, beta, plan_, next, &s1, &s2);
      plan_ = PlanRow(MomentsFromSums<Ops>(next, d, eps, s1, s2));
    } else {
      switch (plan_.mode) {
        case RowMode::kFast:
          NormalizeRowFast<Ops, kGamma, kBeta, false>(x_, y_, d, gamma, beta, plan_);
          break;
        case RowMode::kWide:
          NormalizeRowWide<Ops, kGamma, kBeta>(x_, y_, d, gamma, beta, plan_);
          break;
        case RowMode::kNonFinite:
          for (std::size_t j = 0; j < d; ++j) y_[j] = std::numeric_limits<float>::quiet_NaN();
          break;
      }
      if (has_next) plan_ = PlanRow(RowMoments<Ops>(next, d, eps));
    }
    x_ = next;
    y_ += d;
    --left_;
  }

 private:
  const float* x_;
  float* y_;
  std::size_t left_;
  RowPlan plan_{};
};

// From this many rows on, the two halves are normalized as two runs taking turns row by row.
// Two read and two write streams keep more memory requests in flight than one (the hardware
// prefetchers follow each stream on its own and stop at every 4 KiB page): measured 4-8% faster
// at 1024-16384 rows of 768. Rows are independent, so the order changes no result.
constexpr std::size_t kTwoRunsMinRows = 32;

template <class Ops, bool kGamma, bool kBeta>
void NormalizeRows(std::size_t rows, std::size_t d, const float* x, float* y, const float* gamma,
                   const float* beta, double eps) {
  if (rows < kTwoRunsMinRows) {
    RowRun<Ops, kGamma, kBeta> run(x, y, rows, d, eps);
    while (!run.done()) run.Step(d, gamma, beta, eps);
    return;
  }
  const std::size_t half = rows / 2;
  RowRun<Ops, kGamma, kBeta> a(x, y, half, d, eps);
  RowRun<Ops, kGamma, kBeta> b(x + half * d, y + half * d, rows - half, d, eps);
  while (!a.done()) {
    a.Step(d, gamma, beta, eps);
    b.Step(d, gamma, beta, eps);
  }
  while (!b.done()) b.Step(d, gamma, beta, eps);
}

// The kernel entry point: picks the gamma/beta specialization once per call.
template <class Ops>
void Normalize(std::size_t rows, std::size_t d, const float* x, float* y, const float* gamma,
               const float* beta, double eps) {
  if (gamma && beta) return NormalizeRows<Ops, true, true>(rows, d, x, y, gamma, beta, eps);
  if (gamma) return NormalizeRows<Ops, true, false>(rows, d, x, y, gamma, beta, eps);
  if (beta) return NormalizeRows<Ops, false, true>(rows, d, x, y, gamma, beta, eps);
  return NormalizeRows<Ops, false, false>(rows, d, x, y, gamma, beta, eps);
}

template <class Ops>
void Moments(std::size_t rows, std::size_t d, const float* x, double eps, RowStats* stats) {
  for (std::size_t r = 0; r < rows; ++r, x += d) stats[r] = RowMoments<Ops>(x, d, eps);
}

}  // namespace layernorm::kernels

#endif  // LAYERNORM_KERNELS_ROW_TEMPLATE_H_
