#include <cstring>

#include "kernels/kernels.h"
#include "layernorm/layernorm.h"

namespace layernorm {
namespace {

const Kernel kKernels[] = {
#define LAYERNORM_KERNEL(name, isa, tile, table) {#name, isa, tile, &kernels::table},
#include "kernels/registry.inc"
#undef LAYERNORM_KERNEL
};

constexpr std::size_t kKernelCount = sizeof(kKernels) / sizeof(kKernels[0]);

}  // namespace

const Kernel* Kernels() { return kKernels; }
std::size_t KernelCount() { return kKernelCount; }
const Kernel& DefaultKernel() { return kKernels[kKernelCount - 1]; }

const Kernel* FindKernel(const char* name) {
  if (name == nullptr) return nullptr;
  for (const Kernel& k : kKernels) {
    if (std::strcmp(k.name, name) == 0) return &k;
  }
  return nullptr;
}

}  // namespace layernorm
