// Validation and dispatch. Kernels trust their arguments; everything a caller can get wrong is
// checked here, once per call.
#include <cmath>
#include <limits>

#include "kernels/row_template.h"
#include "kernels/scalar_ops.h"
#include "layernorm/layernorm.h"

namespace layernorm {
namespace {

Status Validate(const void* x, const void* y, std::size_t rows, std::size_t d, double eps) {
  if (d == 0) return Status::kInvalidWidth;
  if (!(eps >= 0.0) || !std::isfinite(eps)) return Status::kInvalidEpsilon;
  if (rows > std::numeric_limits<std::size_t>::max() / d) return Status::kSizeOverflow;
  if (rows > 0 && (x == nullptr || y == nullptr)) return Status::kNullPointer;
  return Status::kOk;
}

}  // namespace

const char* StatusMessage(Status status) {
  switch (status) {
    case Status::kOk:
      return "ok";
    case Status::kNullPointer:
      return "a required pointer is null";
    case Status::kInvalidWidth:
      return "d must be a positive integer";
    case Status::kInvalidEpsilon:
      return "eps must be a finite number >= 0";
    case Status::kSizeOverflow:
      return "rows * d overflows the address space";
    case Status::kNoKernel:
      return "no such kernel in this build";
  }
  return "unknown status";
}

Status LayerNorm(const float* x, float* y, std::size_t rows, std::size_t d, const float* gamma,
                 const float* beta, double eps, const Kernel* kernel) {
  if (Status s = Validate(x, y, rows, d, eps); s != Status::kOk) return s;
  if (rows == 0) return Status::kOk;
  const Kernel& k = kernel ? *kernel : DefaultKernel();
  k.normalize(rows, d, x, y, gamma, beta, eps);
  return Status::kOk;
}

Status LayerNormStats(const float* x, std::size_t rows, std::size_t d, double eps, RowStats* stats,
                      const Kernel* kernel) {
  if (Status s = Validate(x, stats, rows, d, eps); s != Status::kOk) return s;
  if (rows == 0) return Status::kOk;
  const Kernel& k = kernel ? *kernel : DefaultKernel();
  k.moments(rows, d, x, eps, stats);
  return Status::kOk;
}

// Every kernel is bit-identical to the scalar one, so the scalar element functions reproduce
// the output of whichever kernel ran, while exposing the intermediate values.
Status LayerNormStages(const float* x, std::size_t d, const float* gamma, const float* beta,
                       double eps, RowStats* stats, const RowStages& out) {
  if (Status s = Validate(x, stats, 1, d, eps); s != Status::kOk) return s;
  if (!out.centered || !out.normalized || !out.scaled || !out.output) return Status::kNullPointer;
  using kernels::RowMode;
  *stats = kernels::RowMoments<kernels::ScalarOps>(x, d, eps);
  const kernels::RowPlan plan = kernels::PlanRow(*stats);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::size_t j = 0; j < d; ++j) {
    float centered = nan, normalized = nan, scaled = nan, output = nan;
    if (plan.mode == RowMode::kFast) {
      centered = (x[j] - plan.mu_hi) - plan.mu_lo;
      normalized = kernels::FastNormalized(x[j], plan);
      scaled = gamma ? normalized * gamma[j] : normalized;
      output = beta ? scaled + beta[j] : scaled;
    } else if (plan.mode == RowMode::kWide) {  // double throughout, each stage rounded once
      const double t = kernels::WideNormalized(x[j], plan);
      const double s = gamma ? t * static_cast<double>(gamma[j]) : t;
      centered = static_cast<float>(static_cast<double>(x[j]) - plan.mean);
      normalized = static_cast<float>(t);
      scaled = static_cast<float>(s);
      output = static_cast<float>(beta ? s + static_cast<double>(beta[j]) : s);
    }
    out.centered[j] = centered;
    out.normalized[j] = normalized;
    out.scaled[j] = scaled;
    out.output[j] = output;
  }
  return Status::kOk;
}

}  // namespace layernorm
