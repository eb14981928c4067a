// The only file that knows about JavaScript. Raw, `_`-prefixed entry points taking wasm heap
// addresses; the TypeScript façade (web/src/core/runtime.ts) validates arguments, owns the memory
// and is the public API. So they call the core's entry points that trust their call (validate.h):
// every rule the core would check, the façade has checked first, with its own typed error and
// message (tests/errors/core-rules.test.ts names the test of each); only what the run itself can
// meet (kOutOfMemory) comes back as a status. Two conventions: the statistics and the stages
// pass the wire struct (WireCall) to an Embind function; the normalizing calls, which a model
// makes per token, are plain C exports taking their arguments, which JavaScript calls as wasm
// functions: through the wire struct the one-row RMSNorm and bfloat16 calls measured 1.090x and
// 1.114x of the baseline, through arguments 1.052x and 1.073x (web/bench/NOTES.md).
#include <emscripten/bind.h>
#include <emscripten/em_macros.h>
#include <malloc.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "layernorm/layernorm.h"
#include "sizes.h"
#include "validate.h"
#include "wire_layout.h"

namespace {

using Address = std::uintptr_t;

const float* In(Address a) { return reinterpret_cast<const float*>(a); }
float* Out(Address a) { return reinterpret_cast<float*>(a); }

// A NormCall as the façade lays it out in the heap: the fields, their order, offsets and the
// struct's size are web/src/core/wire-call.ts's table (WIRE_LAYOUT), generated into wire_layout.h
// at build time (web/scripts/wire-header.mjs); the static_asserts hold the compiler's layout to it.
namespace wire_type {
using i32 = std::int32_t;
using u32 = std::uint32_t;
using f64 = double;
}  // namespace wire_type

struct WireCall {
#define LNW_WIRE_DECLARE(name, offset, type) wire_type::type name;
  LNW_WIRE_FIELDS(LNW_WIRE_DECLARE)
#undef LNW_WIRE_DECLARE
};

#define LNW_WIRE_CHECK(name, offset, type)          \
  static_assert(offsetof(WireCall, name) == offset, \
                "web/src/core/wire-call.ts writes WireCall::" #name " at byte " #offset);
LNW_WIRE_FIELDS(LNW_WIRE_CHECK)
#undef LNW_WIRE_CHECK
static_assert(sizeof(WireCall) == LNW_WIRE_BYTES,
              "web/src/core/wire-call.ts reserves LNW_WIRE_BYTES bytes");

layernorm::NormCall FromWire(Address wire) {
  const WireCall& w = *reinterpret_cast<const WireCall*>(wire);
  layernorm::NormCall c;
  c.norm = static_cast<layernorm::Norm>(w.norm);
  c.dtype = static_cast<layernorm::DType>(w.dtype);
  c.rows = w.rows;
  c.d = w.d;
  c.x = reinterpret_cast<const void*>(Address{w.x});
  c.y = reinterpret_cast<void*>(Address{w.y});
  c.gamma = In(w.gamma);
  c.beta = In(w.beta);
  c.eps = w.eps;
  c.residual = reinterpret_cast<const void*>(Address{w.residual});
  c.bias = In(w.bias);
  c.sum_out = reinterpret_cast<void*>(Address{w.sum_out});
  c.mean = reinterpret_cast<double*>(Address{w.mean});
  c.rstd = reinterpret_cast<double*>(Address{w.rstd});
  c.scratch = Out(w.scratch);
  return c;
}

// stats: rows x {mean, variance, rstd} as float64.
int StatisticsRaw(Address wire, Address stats) {
  return static_cast<int>(layernorm::detail::StatisticsValidated(
      FromWire(wire), reinterpret_cast<layernorm::RowStats*>(stats), nullptr));
}

// stages: six float arrays of length d, back to back (input, sum, centered, normalized, scaled,
// output).
int StagesRaw(Address wire, Address stats, Address stages) {
  const layernorm::NormCall c = FromWire(wire);
  float* s = Out(stages);
  const std::size_t d = c.d;
  // The façade's block holds the six vectors, so their size fits; a d whose six vectors would not
  // fit in wasm32's size_t would place them modulo 2^32, over other memory.
  if (!layernorm::detail::BytesFit(d, 6 * sizeof(float))) {
    return static_cast<int>(layernorm::Status::kSizeOverflow);
  }
  return static_cast<int>(
      layernorm::detail::StagesValidated(c, reinterpret_cast<layernorm::RowStats*>(stats),
                                         {s, s + d, s + 2 * d, s + 3 * d, s + 4 * d, s + 5 * d}));
}

std::string KernelName() { return layernorm::DefaultKernel().name; }

// Bytes handed out by malloc and not yet freed: lets tests prove the heap stays flat.
std::size_t HeapInUse() { return static_cast<std::size_t>(mallinfo().uordblks); }

}  // namespace

extern "C" {

// The plain call (float32 LayerNorm, nothing fused) in plain arguments (addresses 0 for null).
EMSCRIPTEN_KEEPALIVE int lnw_layernorm(Address x, Address y, std::uint32_t rows, std::uint32_t d,
                                       Address gamma, Address beta, double eps, Address mean,
                                       Address rstd) {
  layernorm::NormCall c;
  c.rows = rows;
  c.d = d;
  c.x = In(x);
  c.y = Out(y);
  c.gamma = In(gamma);
  c.beta = In(beta);
  c.eps = eps;
  c.mean = reinterpret_cast<double*>(mean);
  c.rstd = reinterpret_cast<double*>(rstd);
  return static_cast<int>(layernorm::detail::NormalizeValidated(c, nullptr));
}

// Any other normalizing call, every NormCall field an argument (web/src/core/executor.ts): codes as
// web/src/norms.ts and layernorm::DType number them, addresses 0 for null.
EMSCRIPTEN_KEEPALIVE int lnw_normalize(std::int32_t norm, std::int32_t dtype, std::uint32_t rows,
                                       std::uint32_t d, Address x, Address y, Address gamma,
                                       Address beta, Address residual, Address bias,
                                       Address sum_out, Address mean, Address rstd, Address scratch,
                                       double eps) {
  layernorm::NormCall c;
  c.norm = static_cast<layernorm::Norm>(norm);
  c.dtype = static_cast<layernorm::DType>(dtype);
  c.rows = rows;
  c.d = d;
  c.x = reinterpret_cast<const void*>(x);
  c.y = reinterpret_cast<void*>(y);
  c.gamma = In(gamma);
  c.beta = In(beta);
  c.eps = eps;
  c.residual = reinterpret_cast<const void*>(residual);
  c.bias = In(bias);
  c.sum_out = reinterpret_cast<void*>(sum_out);
  c.mean = reinterpret_cast<double*>(mean);
  c.rstd = reinterpret_cast<double*>(rstd);
  c.scratch = Out(scratch);
  return static_cast<int>(layernorm::detail::NormalizeValidated(c, nullptr));
}

}  // extern "C"

EMSCRIPTEN_BINDINGS(layernorm) {
  emscripten::function("_statistics", &StatisticsRaw);
  emscripten::function("_stages", &StagesRaw);
  emscripten::function("_kernelName", &KernelName);
  emscripten::function("_heapInUse", &HeapInUse);
}
