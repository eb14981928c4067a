// The wasm builds are optimized for size (-Os), which would otherwise keep the one-instruction
// vector wrappers and per-group helpers as calls inside the kernels' loops: these are always
// inlined, the loops themselves are what -Os keeps small.
#ifndef LAYERNORM_KERNELS_INLINE_H_
#define LAYERNORM_KERNELS_INLINE_H_

#define LAYERNORM_INLINE inline __attribute__((always_inline))

#endif  // LAYERNORM_KERNELS_INLINE_H_
