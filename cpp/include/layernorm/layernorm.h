// layernorm-wasm public C++ API.
//
//   y = gamma * (x - mean) / sqrt(var + eps) + beta      over each row of width d
//
// mean and the biased variance (divided by d) are computed in float64 from float32 inputs; the
// per-element arithmetic is float32 with the mean carried as a hi+lo pair of floats. A row that
// contains NaN or +-Inf comes out as a row of NaN. A constant row comes out as exactly beta.
#ifndef LAYERNORM_LAYERNORM_H_
#define LAYERNORM_LAYERNORM_H_

#include <cstddef>

namespace layernorm {

enum class Status : int {
  kOk = 0,
  kNullPointer = 1,
  kInvalidWidth = 2,    // d == 0
  kInvalidEpsilon = 3,  // eps negative, NaN or infinite
  kSizeOverflow = 4,    // rows * d does not fit in size_t
  kNoKernel = 5,        // the requested kernel is not in this build
};

// A short English description of a status, for error messages.
const char* StatusMessage(Status status);

// Statistics of one row as the kernels compute them. rstd is 1 / sqrt(variance + eps)
// (+inf for a constant row with eps == 0). All NaN for a row with a NaN or infinite value.
struct RowStats {
  double mean;
  double variance;
  double rstd;
};

// Normalizes `rows` contiguous rows of width d. gamma and beta may be null (ones / zeros).
// y may equal x (in place); otherwise the ranges must not overlap. No validation: callers go
// through LayerNorm() below.
using NormalizeFn = void (*)(std::size_t rows, std::size_t d, const float* x, float* y,
                             const float* gamma, const float* beta, double eps);
// Computes RowStats for `rows` rows.
using MomentsFn = void (*)(std::size_t rows, std::size_t d, const float* x, double eps,
                           RowStats* stats);

struct Kernel {
  const char* name;  // e.g. "f32_layernorm_ukernel__wasmsimd_u8"
  const char* isa;   // "scalar" or "wasmsimd"
  std::size_t tile;  // floats per main-loop iteration
  NormalizeFn normalize;
  MomentsFn moments;
};

// Every kernel compiled into this build, in registry order (see src/kernels/registry.inc).
const Kernel* Kernels();
std::size_t KernelCount();
// The kernel LayerNorm() uses when none is named: the last (fastest) one registered.
const Kernel& DefaultKernel();
// nullptr when no kernel has that name.
const Kernel* FindKernel(const char* name);

// Validating entry points. `kernel` null means DefaultKernel().
Status LayerNorm(const float* x, float* y, std::size_t rows, std::size_t d, const float* gamma,
                 const float* beta, double eps, const Kernel* kernel = nullptr);
Status LayerNormStats(const float* x, std::size_t rows, std::size_t d, double eps, RowStats* stats,
                      const Kernel* kernel = nullptr);

// The stages of one row, computed with exactly the kernels' arithmetic:
// centered = x - mean, normalized = centered * rstd, scaled = gamma * normalized,
// output = scaled + beta (bit-identical to LayerNorm()'s output for that row; a NaN gamma or
// beta on a finite row gives NaN in both, possibly with another payload).
struct RowStages {
  float* centered;
  float* normalized;
  float* scaled;
  float* output;
};
Status LayerNormStages(const float* x_row, std::size_t d, const float* gamma, const float* beta,
                       double eps, RowStats* stats, const RowStages& stages);

// The float64 oracle: two plain passes in double, one rounding to float32 at the end.
Status LayerNormReference(const float* x, float* y, std::size_t rows, std::size_t d,
                          const float* gamma, const float* beta, double eps);

}  // namespace layernorm

#endif  // LAYERNORM_LAYERNORM_H_
