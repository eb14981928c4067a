// The only file that knows about JavaScript. Raw, `_`-prefixed entry points taking wasm heap
// addresses; the TypeScript façade (web/src/runtime.ts) validates arguments, owns the memory and
// is the public API.
#include <emscripten/bind.h>
#include <malloc.h>

#include <cstdint>
#include <string>

#include "layernorm/layernorm.h"

namespace {

using Address = std::uintptr_t;

const float* In(Address a) { return reinterpret_cast<const float*>(a); }
float* Out(Address a) { return reinterpret_cast<float*>(a); }

int LayerNormRaw(Address x, Address y, std::size_t rows, std::size_t d, Address gamma, Address beta,
                 double eps) {
  return static_cast<int>(layernorm::LayerNorm(In(x), Out(y), rows, d, In(gamma), In(beta), eps));
}

// stats: rows x {mean, variance, rstd} as float64.
int LayerNormStatsRaw(Address x, std::size_t rows, std::size_t d, double eps, Address stats) {
  return static_cast<int>(layernorm::LayerNormStats(In(x), rows, d, eps,
                                                    reinterpret_cast<layernorm::RowStats*>(stats)));
}

// stages: four float arrays of length d, back to back (centered, normalized, scaled, output).
int LayerNormStagesRaw(Address x, std::size_t d, Address gamma, Address beta, double eps,
                       Address stats, Address stages) {
  float* s = Out(stages);
  return static_cast<int>(layernorm::LayerNormStages(In(x), d, In(gamma), In(beta), eps,
                                                     reinterpret_cast<layernorm::RowStats*>(stats),
                                                     {s, s + d, s + 2 * d, s + 3 * d}));
}

std::string KernelName() { return layernorm::DefaultKernel().name; }

std::string StatusText(int status) {
  return layernorm::StatusMessage(static_cast<layernorm::Status>(status));
}

// Bytes handed out by malloc and not yet freed: lets tests prove the heap stays flat.
std::size_t HeapInUse() { return static_cast<std::size_t>(mallinfo().uordblks); }

}  // namespace

EMSCRIPTEN_BINDINGS(layernorm) {
  emscripten::function("_layerNorm", &LayerNormRaw);
  emscripten::function("_layerNormStats", &LayerNormStatsRaw);
  emscripten::function("_layerNormStages", &LayerNormStagesRaw);
  emscripten::function("_kernelName", &KernelName);
  emscripten::function("_statusText", &StatusText);
  emscripten::function("_heapInUse", &HeapInUse);
}
