// Validation and dispatch. Micro-kernels trust their arguments; everything a caller can get wrong
// is checked here, once per call.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>

#include "element.h"
#include "kernels/half.h"
#include "kernels/ukernels.h"
#include "layernorm/layernorm.h"
#include "norm_traits.h"
#include "plan.h"
#include "sizes.h"
#include "validate.h"

namespace layernorm {
namespace {

using kernels::TypeUkernels;

const TypeUkernels& Table(const NormCall& c, const Kernel* kernel) {
  const Kernel& k = kernel ? *kernel : DefaultKernel();
  return static_cast<const kernels::Ukernels*>(k.table)->type[static_cast<int>(c.dtype)];
}

}  // namespace

Status detail::Validate(const NormCall& c) {
  NormTraits traits{};
  if (!detail::FindTraits(c.norm, &traits)) return Status::kInvalidNorm;
  if (ElementSize(c.dtype) == 0) return Status::kInvalidDType;
  if (c.d == 0) return Status::kInvalidWidth;
  if (!(c.eps >= 0.0) || !std::isfinite(c.eps)) return Status::kInvalidEpsilon;
  // Every size in bytes of the call's arrays must fit in size_t (sizes.h): rows * d values of the
  // type (x, y, residual, sum_out), d floats (gamma, beta, bias, a 16-bit row's float32 staging)
  // and rows doubles (mean, rstd).
  std::size_t bytes = 0;
  if (!detail::CheckedMultiply(c.rows, c.d, ElementSize(c.dtype), &bytes) ||
      !detail::BytesFit(c.d, sizeof(float)) ||
      ((c.mean || c.rstd) && !detail::BytesFit(c.rows, sizeof(double)))) {
    return Status::kSizeOverflow;
  }
  if (!traits.bias && c.beta) return Status::kBetaWithRmsNorm;
  if (!traits.centred && c.mean) return Status::kMeanWithRmsNorm;
  if (!c.residual && c.bias) return Status::kBiasWithoutResidual;
  if (!c.residual && c.sum_out) return Status::kSumOutWithoutResidual;
  if (c.sum_out && c.sum_out == c.y) return Status::kSumOutIsOutput;
  if (c.rows > 0 && (!c.x || !c.y)) return Status::kNullPointer;
  return Status::kOk;
}

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
      return "a size in bytes (rows * d values, d floats, rows statistics) overflows size_t";
    case Status::kNoKernel:
      return "no such kernel in this build";
    case Status::kInvalidNorm:
      return "norm must be LayerNorm or RMSNorm";
    case Status::kInvalidDType:
      return "dtype must be float32, float16 or bfloat16";
    case Status::kBetaWithRmsNorm:
      return "RMSNorm takes no beta";
    case Status::kMeanWithRmsNorm:
      return "RMSNorm has no mean to write";
    case Status::kBiasWithoutResidual:
      return "bias is added with the residual, and there is none";
    case Status::kSumOutWithoutResidual:
      return "sum_out receives x + residual, and there is no residual";
    case Status::kSumOutIsOutput:
      return "sum_out and y must be different arrays";
    case Status::kOutOfMemory:
      return "not enough memory for a row's float32 staging (pass scratch)";
    case Status::kResidualNotHere:
      return "statistics are of x alone: this entry point takes no residual";
  }
  return "unknown status";
}

std::size_t ElementSize(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return 4;
    case DType::kFloat16:
    case DType::kBFloat16:
      return 2;
  }
  return 0;
}

namespace {

Status Run(const NormCall& c, const Kernel* kernel) {
  const TypeUkernels& u = Table(c, kernel);
  if (c.residual) {
    // h goes to sum_out, or to y and is normalized there in place.
    u.normalize_residual_rows(c, c.x, c.residual, c.sum_out ? c.sum_out : c.y, c.y, 0, c.rows);
  } else {
    u.normalize_rows(c, c.x, c.y, 0, c.rows);
  }
  return Status::kOk;
}

// Runs run(call), or for float16 / bfloat16 rows wider than the kernels' staging on the stack
// run(a copy of call) with d floats of scratch: the caller's, or an allocation made here (the
// kernels never allocate). (Only then is the call copied: a copy per call is a visible share of a
// one-row call.)
template <class Run>
Status WithStaging(const NormCall& call, Run run) {
  if (call.dtype != DType::kFloat32 && call.d > kernels::kStageFloats && !call.scratch) {
    NormCall c = call;
    // Validate() proves the size fits; the *Validated entry points (the wasm bindings) may not
    // have been through it, and a wrapped size would allocate too little.
    std::size_t bytes = 0;
    if (!detail::CheckedMultiply(c.d, sizeof(float), &bytes)) return Status::kSizeOverflow;
    std::unique_ptr<float, void (*)(void*)> owned(static_cast<float*>(std::malloc(bytes)),
                                                  std::free);
    if (!owned) return Status::kOutOfMemory;
    c.scratch = owned.get();
    return run(c);
  }
  return run(call);
}

Status RowStatistics(const NormCall& c, RowStats* stats, const Kernel* kernel) {
  const TypeUkernels& u = Table(c, kernel);
  const char* x = static_cast<const char*>(c.x);
  const std::size_t row_bytes = c.d * ElementSize(c.dtype);
  for (std::size_t r = 0; r < c.rows; ++r) {
    stats[r] = detail::Public(u.statistics(c, x + r * row_bytes));
  }
  return Status::kOk;
}

}  // namespace

Status Normalize(const NormCall& call, const Kernel* kernel) {
  if (Status s = detail::Validate(call); s != Status::kOk) return s;
  return detail::NormalizeValidated(call, kernel);
}

Status detail::NormalizeValidated(const NormCall& call, const Kernel* kernel) {
  if (call.rows == 0) return Status::kOk;
  return WithStaging(call, [kernel](const NormCall& c) { return Run(c, kernel); });
}

Status Statistics(const NormCall& c, RowStats* stats, const Kernel* kernel) {
  NormCall checked = c;
  checked.y = stats;  // stats stand where the output would
  if (Status s = detail::Validate(checked); s != Status::kOk) return s;
  if (c.residual) return Status::kResidualNotHere;  // h would need storage of its own
  if (!detail::BytesFit(c.rows, sizeof(RowStats))) return Status::kSizeOverflow;
  return detail::StatisticsValidated(c, stats, kernel);
}

Status detail::StatisticsValidated(const NormCall& c, RowStats* stats, const Kernel* kernel) {
  if (c.rows == 0) return Status::kOk;
  return WithStaging(
      c, [stats, kernel](const NormCall& s) { return RowStatistics(s, stats, kernel); });
}

Status Stages(const NormCall& c, RowStats* stats, const RowStages& out) {
  NormCall checked = c;
  checked.y = out.output;
  if (Status s = detail::Validate(checked); s != Status::kOk) return s;
  if (c.rows != 1 || !stats || !out.input || !out.centered || !out.normalized || !out.scaled ||
      !out.output || (c.residual && !out.sum)) {
    return Status::kNullPointer;
  }
  return detail::StagesValidated(c, stats, out);
}

// Every stage is one of the micro-kernels run on the widened float32 row with some of the factors
// left out (rstd 1 for `centered`, no gain or bias for `normalized`, no bias for `scaled`): the
// per-element formulas exist once, and the last stage is the output bit for bit.
Status detail::StagesValidated(const NormCall& c, RowStats* stats, const RowStages& out) {
  const std::size_t d = c.d;
  for (std::size_t j = 0; j < d; ++j) out.input[j] = detail::WidenAt(c.dtype, c.x, j);
  // Widening is exact and the arithmetic is float32 whatever the type, so the float32 kernels on
  // the widened row compute what the typed kernels compute; only the stores round (h, output).
  NormCall f = c;
  f.dtype = DType::kFloat32;
  f.residual = nullptr;
  f.bias = nullptr;
  f.sum_out = nullptr;
  f.mean = f.rstd = nullptr;
  const TypeUkernels& u = Table(f, nullptr);
  const float* src = out.input;
  if (c.residual) {
    for (std::size_t j = 0; j < d; ++j) out.centered[j] = detail::WidenAt(c.dtype, c.residual, j);
    u.add(out.input, out.centered, c.bias, out.sum, d);
    for (std::size_t j = 0; j < d; ++j) out.sum[j] = detail::RoundTo(c.dtype, out.sum[j]);
    src = out.sum;
  }
  const kernels::Moments moments = u.statistics(f, src);
  *stats = detail::Public(moments);
  // The gain's check as the schedule makes it with its first row (plan.h, GainMayOverflow).
  float max_abs_gain = 0.0f;  // by bits, as the kernels take it: a NaN is above +Inf
  if (c.gamma) {
    for (std::size_t j = 0; j < d; ++j) {
      max_abs_gain = kernels::BitsFloat(
          std::max(kernels::FloatBits(max_abs_gain), kernels::FloatBits(c.gamma[j]) & 0x7fffffffu));
    }
  }
  const bool centred = detail::TraitsOf(c.norm).centred;
  const bool wide_gain = c.gamma && detail::GainMayOverflow(centred, max_abs_gain, d);
  const detail::RowPlan plan = detail::PlanRow(centred, moments, c.gamma, c.beta, wide_gain);
  const kernels::RowFn row = plan.mode == detail::RowMode::kFast
                                 ? (centred ? u.centred_fast : u.uncentred_fast)
                                 : (centred ? u.centred_wide : u.uncentred_wide);
  if (plan.mode == detail::RowMode::kNonFinite) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (float* v : {out.centered, out.normalized, out.scaled, out.output})
      std::fill(v, v + d, nan);
    return Status::kOk;
  }
  kernels::RowParams p = plan.params;
  p.gamma = p.beta = nullptr;
  if (!centred) {
    std::copy(src, src + d, out.centered);
  } else {
    kernels::RowParams centered = p;
    centered.rstd32 = 1.0f;
    centered.rstd = 1.0;
    row(centered, src, out.centered, d);
  }
  row(p, src, out.normalized, d);
  p.gamma = c.gamma;
  row(p, src, out.scaled, d);
  p.beta = c.beta;
  row(p, src, out.output, d);
  for (std::size_t j = 0; j < d; ++j) out.output[j] = detail::RoundTo(c.dtype, out.output[j]);
  return Status::kOk;
}

Status LayerNorm(const float* x, float* y, std::size_t rows, std::size_t d, const float* gamma,
                 const float* beta, double eps, const Kernel* kernel) {
  NormCall c;
  c.rows = rows;
  c.d = d;
  c.x = x;
  c.y = y;
  c.gamma = gamma;
  c.beta = beta;
  c.eps = eps;
  return Normalize(c, kernel);
}

}  // namespace layernorm
