// The oracle: the textbook two-pass formulas in float64 on the widened inputs, rounded to float32
// once. Deliberately plain; never optimize it.
#include <cmath>
#include <limits>
#include <vector>

#include "element.h"
#include "layernorm/layernorm.h"
#include "validate.h"

namespace layernorm {
namespace {

// h as a fused call defines it: (x + r) + bias in float32, stored in the element type.
double ResidualSum(const NormCall& c, std::size_t i, std::size_t j) {
  float v = detail::WidenAt(c.dtype, c.x, i) + detail::WidenAt(c.dtype, c.residual, i);
  if (c.bias) v = v + c.bias[j];
  return detail::RoundTo(c.dtype, v);
}

}  // namespace

Status Reference(const NormCall& c, float* y) {
  // Checked as Normalize() checks it, with y as the output: it writes no statistics and no sum.
  NormCall checked = c;
  checked.y = y;
  checked.mean = checked.rstd = nullptr;
  checked.sum_out = nullptr;
  if (Status s = detail::Validate(checked); s != Status::kOk) return s;
  const double n = static_cast<double>(c.d);
  std::vector<double> h(c.d);
  for (std::size_t r = 0; r < c.rows; ++r) {
    for (std::size_t j = 0; j < c.d; ++j) {
      const std::size_t i = r * c.d + j;
      h[j] = c.residual ? ResidualSum(c, i, j) : detail::WidenAt(c.dtype, c.x, i);
    }
    double mean = 0.0;
    if (c.norm == Norm::kLayerNorm) {
      double sum = 0.0;
      for (double v : h) sum += v;
      mean = sum / n;
    }
    double squares = 0.0;
    for (double v : h) squares += (v - mean) * (v - mean);
    const double denom = std::sqrt(squares / n + c.eps);
    for (std::size_t j = 0; j < c.d; ++j) {
      // Where every centered value is 0 (a constant row; RMSNorm's zero row) with eps == 0,
      // define 0/0 as 0, so the output is beta.
      const double centered = h[j] - mean;
      double v = std::isfinite(mean) && std::isfinite(squares)
                     ? (centered == 0.0 ? 0.0 : centered / denom)
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
