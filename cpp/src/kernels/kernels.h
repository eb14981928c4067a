// Declarations of every kernel in registry.inc: a normalize function and the moments function
// that computes the same row statistics with the identical arithmetic.
#ifndef LAYERNORM_KERNELS_KERNELS_H_
#define LAYERNORM_KERNELS_KERNELS_H_

#include <cstddef>

#include "layernorm/layernorm.h"

namespace layernorm::kernels {

#define LAYERNORM_KERNEL(normalize, moments, isa, tile)                                         \
  void normalize(std::size_t rows, std::size_t d, const float* x, float* y, const float* gamma, \
                 const float* beta, double eps);                                                \
  void moments(std::size_t rows, std::size_t d, const float* x, double eps, RowStats* stats);
#include "kernels/registry.inc"
#undef LAYERNORM_KERNEL

}  // namespace layernorm::kernels

#endif  // LAYERNORM_KERNELS_KERNELS_H_
