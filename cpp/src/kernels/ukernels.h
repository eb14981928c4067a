// The row micro-kernels every ISA provides, for each activation type: straight-line loops over one
// row, taking what they need to know about the row in a RowParams. Which one runs for which row,
// the statistics between them and the order of rows are the operator's (src/schedule.h).
#ifndef LAYERNORM_KERNELS_UKERNELS_H_
#define LAYERNORM_KERNELS_UKERNELS_H_

#include <cstddef>

#include "layernorm/layernorm.h"

namespace layernorm::kernels {

// float16 / bfloat16 rows of at most this many values are staged through float32 on the stack
// (src/schedule.h); wider ones through NormCall::scratch.
constexpr std::size_t kStageFloats = 4096;

// One row's normalization, as the operator planned it (src/plan.h).
struct RowParams {
  // Fast path: x̂ = ((x - mu_hi) - mu_lo) * rstd32 in float32 (RMSNorm: x * rstd32).
  float mu_hi;
  float mu_lo;
  float rstd32;
  // Wide path: x̂ = (x - mean) * rstd in double, then the gain and bias in double too.
  double mean;
  double rstd;
  const float* gamma;  // null: ones
  const float* beta;   // null: zeros (RMSNorm: always null)
};

// float64 sums of a row's values and squares, less `shift` (sums_shifted) or as they are (sums).
using SumsFn = void (*)(const void* x, std::size_t d, double shift, double* sum, double* squares);
// float64 sum of a row's squares.
using SquaresFn = void (*)(const void* x, std::size_t d, double* squares);
// Writes one normalized row.
using RowFn = void (*)(const RowParams& p, const void* x, void* y, std::size_t d);
// Writes one normalized row while summing the next one, xn, which must not overlap y: the output
// loop is bound by stores and the sums by float64 conversions, which run on different ports.
using RowSumsNextFn = void (*)(const RowParams& p, const void* x, void* y, std::size_t d,
                               const void* xn, double* sum, double* squares);
using RowSquaresNextFn = void (*)(const RowParams& p, const void* x, void* y, std::size_t d,
                                  const void* xn, double* squares);
// h = (x + r) + bias, in float32, rounded to the element type once.
using AddFn = void (*)(const void* x, const void* r, const float* bias, void* h, std::size_t d);

// Rows [first, first + rows) of a call from x into y, scheduled as src/schedule.h describes.
using NormalizeRowsFn = void (*)(const NormCall& call, const void* x, void* y, std::size_t first,
                                 std::size_t rows);
// Rows [first, first + rows) of a fused call: h = (x + r) + bias formed into h and normalized
// into y, the next row formed while this one is written.
using NormalizeResidualRowsFn = void (*)(const NormCall& call, const void* x, const void* r,
                                         void* h, void* y, std::size_t first, std::size_t rows);
// The statistics of one row of a call.
using StatisticsFn = RowStats (*)(const NormCall& call, const void* row);

// Everything for one element type on one ISA. The row micro-kernels (fast, wide, next) are the
// float32 table's only: the 16-bit types go through float32 rows.
struct TypeUkernels {
  std::size_t element_size;
  NormalizeRowsFn normalize_rows;
  // float32 only; the 16-bit types form h block by block and normalize it as staged rows.
  NormalizeResidualRowsFn normalize_residual_rows;
  StatisticsFn statistics;
  SumsFn sums;
  SumsFn sums_shifted;
  RowFn layernorm_fast;
  RowSumsNextFn layernorm_fast_next;
  RowFn layernorm_wide;
  SquaresFn squares;
  RowFn rmsnorm_fast;
  RowSquaresNextFn rmsnorm_fast_next;
  RowFn rmsnorm_wide;
  AddFn add;
};

// One ISA's micro-kernels, by element type (layernorm::DType order: float32, float16, bfloat16).
struct Ukernels {
  TypeUkernels type[3];
};

}  // namespace layernorm::kernels

#endif  // LAYERNORM_KERNELS_UKERNELS_H_
