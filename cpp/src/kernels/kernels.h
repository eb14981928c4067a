// The micro-kernel tables of every kernel set in registry.inc, one per instruction set, each
// defined in the file compiled for that instruction set.
#ifndef LAYERNORM_KERNELS_KERNELS_H_
#define LAYERNORM_KERNELS_KERNELS_H_

#include "kernels/ukernels.h"

namespace layernorm::kernels {

#define LAYERNORM_KERNEL(name, isa, tile, table) extern const Ukernels table;
#include "kernels/registry.inc"
#undef LAYERNORM_KERNEL

}  // namespace layernorm::kernels

#endif  // LAYERNORM_KERNELS_KERNELS_H_
