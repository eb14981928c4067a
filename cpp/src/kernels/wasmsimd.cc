// The wasm SIMD128 kernel set (natively, through SIMDe).
#include "kernels/kernels.h"
#include "kernels/make_ukernels.h"
#include "kernels/wasmsimd_ops.h"

namespace layernorm::kernels {

extern const Ukernels kWasmSimdUkernels = MakeUkernels<WasmSimdOps>();

}  // namespace layernorm::kernels
