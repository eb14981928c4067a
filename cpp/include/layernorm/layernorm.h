// layernorm-wasm public C++ API: the final norms of transformer models, over each row of width d.
//
//   LayerNorm: y = gamma * (x - mean) / sqrt(var + eps) + beta     (biased variance, divided by d)
//   RMSNorm:   y = gamma * x / sqrt(mean(x^2) + eps)
//
// Optionally on h = (x + residual) + bias instead of x (the residual add before a norm, fused:
// onnxruntime's SkipLayerNormalization), with h written out too, and the per-row statistics.
//
// Statistics are computed in float64 from the float32 values; the per-element arithmetic is
// float32 (the mean carried as a hi+lo pair of floats), or float64 for rows of extreme spread.
// Activations may be float32, float16 or bfloat16: each value is widened exactly, the arithmetic
// is the float32 one, and each output is rounded once to the type. A row that contains NaN or
// +-Inf comes out as a row of NaN. A constant row comes out as exactly beta (RMSNorm: a row of
// zeros gives zeros, also with eps == 0).
#ifndef LAYERNORM_LAYERNORM_H_
#define LAYERNORM_LAYERNORM_H_

#include <cstddef>

namespace layernorm {

enum class Status : int {
  kOk = 0,
  kNullPointer = 1,
  kInvalidWidth = 2,    // d == 0
  kInvalidEpsilon = 3,  // eps negative, NaN or infinite
  kSizeOverflow = 4,  // a size in bytes (rows * d values, d floats, rows doubles) overflows size_t
  kNoKernel = 5,      // the requested kernel is not in this build
  kInvalidNorm = 6,   // not a Norm
  kInvalidDType = 7,  // not a DType
  kBetaWithRmsNorm = 8,  // RMSNorm has no bias term
  kMeanWithRmsNorm = 9,  // RMSNorm has no mean
  kBiasWithoutResidual = 10,
  kSumOutWithoutResidual = 11,
  kSumOutIsOutput = 12,   // sum_out and y are the same array
  kResidualNotHere = 13,  // Statistics() takes no residual (Stages() does, for one row)
  kOutOfMemory = 14,      // a wide 16-bit row's staging could not be allocated (pass scratch)
};

// A short English description of a status, for error messages.
const char* StatusMessage(Status status);

enum class Norm : int { kLayerNorm = 0, kRmsNorm = 1 };

// What a norm's second moment divides the row's sum of squares by: its width d (LayerNorm's
// variance, RMSNorm's mean square) or nothing (a sum of squares: y = gamma * x / sqrt(sum(x^2) +
// eps), the L2 normalization).
enum class MomentDivisor : int { kWidth = 0, kOne = 1 };

// The facts of a norm's arithmetic, which is all the core knows of it: whether it subtracts the
// row's mean, what its moment divides by, and whether it adds a bias beta. The gain always
// multiplies (a checkpoint that stores w for 1 + w is converted by its loader). The named norms
// are rows of a table (src/norm_traits.h); any other facts are a Norm too, by NormOf().
struct NormTraits {
  bool centred;
  MomentDivisor divisor;
  bool bias;
};

// The Norm that computes `traits`: the kernels follow from the facts, so a norm that has no name
// here runs as any named one does. A bias without centring is no Norm (kInvalidNorm): the
// uncentred kernels add none.
constexpr Norm NormOf(NormTraits traits) {
  return static_cast<Norm>(0x100 | (traits.centred ? 1 : 0) |
                           (traits.divisor == MomentDivisor::kOne ? 2 : 0) | (traits.bias ? 4 : 0));
}

// The type of the activations (x, residual, y, sum_out); gamma, beta and bias are float32.
// float16 and bfloat16 values are their 16 bits, as std::uint16_t.
enum class DType : int { kFloat32 = 0, kFloat16 = 1, kBFloat16 = 2 };

// Bytes per element of a DType (0 for an invalid one).
std::size_t ElementSize(DType dtype);

struct Kernel;

// One call: what to compute, on what. Zero-initialized fields mean "not used".
struct NormCall {
  Norm norm = Norm::kLayerNorm;
  DType dtype = DType::kFloat32;
  std::size_t rows = 0;
  std::size_t d = 0;
  const void* x = nullptr;
  void* y = nullptr;             // may be x (in place); otherwise must not overlap x
  const float* gamma = nullptr;  // d values; null means ones
  const float* beta = nullptr;   // d values; null means zeros (a norm with a bias only)
  double eps = 1e-5;
  const void* residual = nullptr;  // rows * d: normalizes h = (x + residual) + bias
  const float* bias = nullptr;     // d values added with the residual (needs residual)
  void* sum_out = nullptr;         // receives h (needs residual); may be x or residual, not y
  double* mean = nullptr;          // rows values: each row's mean (a centred norm only)
  double* rstd = nullptr;          // rows values: 1 / sqrt(moment + eps) (RowStats)
  // d floats of working memory for float16 / bfloat16 rows wider than 4096 values; when null such
  // calls allocate it (pass it to keep a call from allocating).
  float* scratch = nullptr;
};

// Statistics of one row as the kernels compute them. rstd is 1 / sqrt(variance + eps)
// (+inf for a constant row with eps == 0). All NaN for a row with a NaN or infinite value.
// variance is the norm's moment: for an uncentred norm the mean is 0 and it is the mean square
// (MomentDivisor::kWidth) or the sum of squares (kOne); a centred norm with kOne has d times the
// variance.
struct RowStats {
  double mean;
  double variance;
  double rstd;
};

// Normalizes call.rows rows. `kernel` null means DefaultKernel().
Status Normalize(const NormCall& call, const Kernel* kernel = nullptr);

// The statistics Normalize() would use for each row (of h, with a residual), into stats[rows].
Status Statistics(const NormCall& call, RowStats* stats, const Kernel* kernel = nullptr);

// The stages of one row (call.rows must be 1), computed with exactly the kernels' arithmetic:
// sum = h (only with a residual), centered = x - mean (RMSNorm: x), normalized = centered * rstd,
// scaled = gamma * normalized, output = scaled + beta (bit-identical to Normalize()'s output for
// that row, rounded to call.dtype and widened back). Every vector is d floats; `sum` may be null
// without a residual. A NaN gamma or beta on a finite row gives NaN in both, possibly with
// another payload.
struct RowStages {
  float* input;  // x widened to float32
  float* sum;
  float* centered;
  float* normalized;
  float* scaled;
  float* output;
};
Status Stages(const NormCall& call, RowStats* stats, const RowStages& stages);

// The float64 oracle: plain passes in double over the widened inputs (h rounded to the type as
// Normalize() rounds it), one rounding to float32 at the end. y holds float32 values whatever
// call.dtype is; sum_out, mean and rstd are not written. The call is checked as Normalize() checks
// it, with y as its output and those three ignored.
Status Reference(const NormCall& call, float* y);

// The float32 LayerNorm (GPT-2's ln_f) in one call, for callers that need no other norm or dtype.
Status LayerNorm(const float* x, float* y, std::size_t rows, std::size_t d, const float* gamma,
                 const float* beta, double eps, const Kernel* kernel = nullptr);
Status LayerNormReference(const float* x, float* y, std::size_t rows, std::size_t d,
                          const float* gamma, const float* beta, double eps);

// ---- kernels

// One instruction set's micro-kernels. The name is its float32 LayerNorm row kernel's, e.g.
// "f32_layernorm_ukernel__wasmsimd_u8"; every norm and element type of the set is bit-identical
// to the scalar set's.
struct Kernel {
  const char* name;
  const char* isa;    // "scalar" or "wasmsimd"
  std::size_t tile;   // elements per main-loop iteration
  const void* table;  // the micro-kernels (internal)
};

// Every kernel compiled into this build, in registry order (see src/kernels/registry.inc).
const Kernel* Kernels();
std::size_t KernelCount();
// The kernel used when none is named: the last (fastest) one registered.
const Kernel& DefaultKernel();
// nullptr when no kernel has that name.
const Kernel* FindKernel(const char* name);

}  // namespace layernorm

#endif  // LAYERNORM_LAYERNORM_H_
