// The table of micro-kernels every ISA provides. For each element type: the operator's row schedule
// (src/schedule.h: which row micro-kernel runs for which row, the statistics between them, the
// order of rows) and a row's statistics. For float32 also the row micro-kernels themselves,
// straight-line loops over one row that take what they need to know about it in a RowParams: the
// 16-bit types are normalized as float32 rows.
#ifndef LAYERNORM_KERNELS_UKERNELS_H_
#define LAYERNORM_KERNELS_UKERNELS_H_

#include <cstddef>

#include "layernorm/layernorm.h"

namespace layernorm::kernels {

// float16 / bfloat16 rows go through a float32 copy of a few rows at a time (src/schedule.h): this
// many floats (16 KiB) on the stack, in L1, or a row wider than that through NormCall::scratch.
// Each value is then widened once and narrowed once, where typed micro-kernels would widen it in
// both passes over the row (sums, then output), and the float32 micro-kernels serve every type.
// Same arithmetic, same bits; measured 1.8x faster than typed kernels for float16 at [1024 x 768],
// and the 16-bit types add no row micro-kernels of their own to the module.
constexpr std::size_t kStageFloats = 4096;

// A row's statistics as the kernels keep them: the mean as the unevaluated sum
// shift + mean_shift + mean_lo (src/plan.h says why it is never rounded to one double), the
// variance and rstd.
struct Moments {
  double shift;       // K: a value of the row, or 0
  double mean_shift;  // the mean of x - K, rounded once
  double mean_lo;     // what that rounding left out: the exact remainder over d, rounded once
  double variance;
  double rstd;
};

// One row's normalization, as the operator planned it (src/plan.h).
struct RowParams {
  // Fast path: x̂ = ((x - mu_hi) - mu_lo) * rstd32 in float32 (RMSNorm: x * rstd32).
  float mu_hi;
  float mu_lo;
  float rstd32;
  // Wide path: x̂ = (((x - shift) - mean_shift) - mean_lo) * rstd in double, then the gain and
  // bias in double.
  double shift;
  double mean_shift;
  double mean_lo;
  double rstd;
  const float* gamma;  // null: ones
  const float* beta;   // null: zeros (RMSNorm: always null)
};

// Writes one normalized row.
using RowFn = void (*)(const RowParams& p, const void* x, void* y, std::size_t d);
// h = (x + r) + bias, in float32, rounded to the element type once.
using AddFn = void (*)(const void* x, const void* r, const float* bias, void* h, std::size_t d);

// Rows [first, first + rows) of a call from x into y, scheduled as src/schedule.h describes.
using NormalizeRowsFn = void (*)(const NormCall& call, const void* x, void* y, std::size_t first,
                                 std::size_t rows);
// Rows [first, first + rows) of a fused call: h = (x + r) + bias formed into h and normalized
// into y, scheduled as src/schedule.h describes.
using NormalizeResidualRowsFn = void (*)(const NormCall& call, const void* x, const void* r,
                                         void* h, void* y, std::size_t first, std::size_t rows);
// The statistics of one row of a call.
using StatisticsFn = Moments (*)(const NormCall& call, const void* row);

// Everything for one element type on one ISA.
struct TypeUkernels {
  NormalizeRowsFn normalize_rows;
  NormalizeResidualRowsFn normalize_residual_rows;
  StatisticsFn statistics;
  // The float32 table's only: Stages() runs them one at a time on rows it has widened.
  RowFn centred_fast;
  RowFn centred_wide;
  RowFn uncentred_fast;
  RowFn uncentred_wide;
  AddFn add;
};

// One ISA's micro-kernels, by element type (layernorm::DType order: float32, float16, bfloat16).
struct Ukernels {
  TypeUkernels type[3];
};

}  // namespace layernorm::kernels

#endif  // LAYERNORM_KERNELS_UKERNELS_H_
