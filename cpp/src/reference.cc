// The oracle: the textbook two-pass formula in float64, rounded to float32 once. Deliberately
// plain; never optimize it.
#include <cmath>
#include <limits>

#include "layernorm/layernorm.h"

namespace layernorm {

Status LayerNormReference(const float* x, float* y, std::size_t rows, std::size_t d,
                          const float* gamma, const float* beta, double eps) {
  if (d == 0) return Status::kInvalidWidth;
  if (!(eps >= 0.0) || !std::isfinite(eps)) return Status::kInvalidEpsilon;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * d;
    float* yr = y + r * d;
    double sum = 0.0;
    for (std::size_t j = 0; j < d; ++j) sum += xr[j];
    const double mean = sum / static_cast<double>(d);
    double squares = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
      const double c = xr[j] - mean;
      squares += c * c;
    }
    const double variance = squares / static_cast<double>(d);
    const double denom = std::sqrt(variance + eps);
    for (std::size_t j = 0; j < d; ++j) {
      // A constant row has x - mean == 0 exactly; define 0/0 as 0 there, so it yields beta.
      const double c = xr[j] - mean;
      double v = std::isfinite(mean) ? (c == 0.0 ? 0.0 : c / denom)
                                     : std::numeric_limits<double>::quiet_NaN();
      if (gamma) v *= gamma[j];
      if (beta) v += beta[j];
      yr[j] = static_cast<float>(v);
    }
  }
  return Status::kOk;
}

}  // namespace layernorm
