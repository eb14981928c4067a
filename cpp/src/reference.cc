// The oracle: plain two-pass formulas in float64 on the widened inputs, rounded to float32 once.
// Deliberately plain and never optimized, but not the naive mean: sum(x) / d in double is rounded
// at the spacing of the row's magnitude, which on a nearly constant row at an offset (1e4 with one
// element one float32 step higher: every other element is 2^-10 / d from the mean) is far from
// small next to x - mean, and the oracle would share the error it is there to catch.
//
// What it guarantees: the mean is kept as K + q + q_lo (K the row's first value, q + q_lo the
// mean of x - K as a double-double, its sum compensated), so every centered value (x - K) - q -
// q_lo is within a few units of 2^-53 of its own size, however close to the mean; the variance is
// a sum of positive squares; the gain and bias are applied in double. Every output is then the
// exact answer within about 2^-50 of max(|gamma * x^|, |beta|) before its one rounding to float32:
// the float32 nearest to the exact answer, unless that lies within ~2^-26 of a spacing from the
// midpoint between two floats. (tests/kit/exact.mjs is the arbitrary-precision oracle the JS tests
// hold both this and the kernels to.)
#include <cmath>
#include <limits>
#include <vector>

#include "element.h"
#include "layernorm/layernorm.h"
#include "norm_traits.h"
#include "sizes.h"
#include "validate.h"

namespace layernorm {
namespace {

// h as a fused call defines it: (x + r) + bias in float32, stored in the element type.
double ResidualSum(const NormCall& c, std::size_t i, std::size_t j) {
  float v = detail::WidenAt(c.dtype, c.x, i) + detail::WidenAt(c.dtype, c.residual, i);
  if (c.bias) v = v + c.bias[j];
  return detail::RoundTo(c.dtype, v);
}

// A sum as an unevaluated pair hi + lo (Neumaier's compensated summation).
struct Pair {
  double hi;
  double lo;
};

Pair CompensatedSum(const std::vector<double>& terms) {
  double s = 0.0, c = 0.0;
  for (double t : terms) {
    const double u = s + t;
    c += std::fabs(s) >= std::fabs(t) ? (s - u) + t : (t - u) + s;
    s = u;
  }
  const double hi = s + c;
  return {hi, c - (hi - s)};
}

// The mean of x - K as q + q_lo: q rounds the quotient, q_lo carries its exact remainder.
Pair MeanOf(Pair sum, double n) {
  const double q = sum.hi / n;
  const double remainder = std::fma(-q, n, sum.hi);  // exact
  return {q, (remainder + sum.lo) / n};
}

}  // namespace

Status Reference(const NormCall& c, float* y) {
  // Checked as Normalize() checks it, with y as the output: it writes no statistics and no sum.
  NormCall checked = c;
  checked.y = y;
  checked.mean = checked.rstd = nullptr;
  checked.sum_out = nullptr;
  if (Status s = detail::Validate(checked); s != Status::kOk) return s;
  // Its two rows of d doubles (sizes.h): wider than size_t can count, std::vector would throw.
  if (!detail::BytesFit(c.d, 2 * sizeof(double))) return Status::kSizeOverflow;
  const double n = static_cast<double>(c.d);
  const NormTraits traits = detail::TraitsOf(c.norm);
  const double divisor = traits.divisor == MomentDivisor::kWidth ? n : 1.0;
  std::vector<double> h(c.d), centered(c.d);
  for (std::size_t r = 0; r < c.rows; ++r) {
    bool finite = true;
    for (std::size_t j = 0; j < c.d; ++j) {
      const std::size_t i = r * c.d + j;
      h[j] = c.residual ? ResidualSum(c, i, j) : detail::WidenAt(c.dtype, c.x, i);
      finite = finite && std::isfinite(h[j]);
    }
    if (traits.centred) {
      const double k = h[0];
      for (std::size_t j = 0; j < c.d; ++j) centered[j] = h[j] - k;  // exact for nearby values
      const Pair mean = MeanOf(CompensatedSum(centered), n);
      for (double& v : centered) v = (v - mean.hi) - mean.lo;
    } else {
      centered = h;
    }
    double squares = 0.0;
    for (double v : centered) squares += v * v;
    const double denom = std::sqrt(squares / divisor + c.eps);
    for (std::size_t j = 0; j < c.d; ++j) {
      // Where every centered value is 0 (a constant row; an uncentred norm's zero row) with eps ==
      // 0, define 0/0 as 0, so the output is beta.
      double v = finite && std::isfinite(squares) ? (centered[j] == 0.0 ? 0.0 : centered[j] / denom)
                                                  : std::numeric_limits<double>::quiet_NaN();
      if (c.gamma) v *= c.gamma[j];
      if (c.beta) v += c.beta[j];
      y[r * c.d + j] = static_cast<float>(v);
    }
  }
  return Status::kOk;
}

Status LayerNormReference(const float* x, float* y, std::size_t rows, std::size_t d,
                          const float* gamma, const float* beta, double eps) {
  NormCall c;
  c.rows = rows;
  c.d = d;
  c.x = x;
  c.gamma = gamma;
  c.beta = beta;
  c.eps = eps;
  return Reference(c, y);
}

}  // namespace layernorm
