#include "kernels/kernels.h"
#include "kernels/row_template.h"
#include "kernels/scalar_ops.h"

namespace layernorm::kernels {

void f32_layernorm_ukernel__scalar_u8(std::size_t rows, std::size_t d, const float* x, float* y,
                                      const float* gamma, const float* beta, double eps) {
  Normalize<ScalarOps>(rows, d, x, y, gamma, beta, eps);
}

void f32_layernorm_moments__scalar_u8(std::size_t rows, std::size_t d, const float* x, double eps,
                                      RowStats* stats) {
  Moments<ScalarOps>(rows, d, x, eps, stats);
}

}  // namespace layernorm::kernels
