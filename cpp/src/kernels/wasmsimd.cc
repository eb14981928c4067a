#include "kernels/kernels.h"
#include "kernels/row_template.h"
#include "kernels/wasmsimd_ops.h"

namespace layernorm::kernels {

void f32_layernorm_ukernel__wasmsimd_u8(std::size_t rows, std::size_t d, const float* x, float* y,
                                        const float* gamma, const float* beta, double eps) {
  Normalize<WasmSimdOps>(rows, d, x, y, gamma, beta, eps);
}

void f32_layernorm_moments__wasmsimd_u8(std::size_t rows, std::size_t d, const float* x, double eps,
                                        RowStats* stats) {
  Moments<WasmSimdOps>(rows, d, x, eps, stats);
}

}  // namespace layernorm::kernels
