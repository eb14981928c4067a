// The scalar kernel set: compiled without auto-vectorization (see CMakeLists.txt).
#include "kernels/kernels.h"
#include "kernels/make_ukernels.h"
#include "kernels/scalar_ops.h"

namespace layernorm::kernels {

extern const Ukernels kScalarUkernels = MakeUkernels<ScalarOps>();

}  // namespace layernorm::kernels
