// The only file that knows about JavaScript. Raw, `_`-prefixed entry points taking wasm heap
// addresses; the TypeScript façade (web/src/core/runtime.ts) validates arguments, owns the memory
// and is the public API. So they call the core's entry points that trust their call (validate.h):
// every rule the core would check, the façade has checked first, with its own typed error and
// message (tests/errors/core-rules.test.ts names the test of each); only what the run itself can
// meet (kOutOfMemory) comes back as a status. Two conventions: the statistics and the stages
// pass the wire struct (WireCall) to an Embind function; the normalizing calls, which a model
// makes per token, go through one plain C export taking their arguments (lnw_normalize), which
// JavaScript calls as a wasm function: through the wire struct the one-row RMSNorm and bfloat16
// calls measured 1.090x and 1.114x of the baseline, through arguments 1.052x and 1.073x
// (web/bench/NOTES.md). Its optional areas, which stay where they are from call to call, are read
// from a CallAreas struct written when they are laid out.
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

// The structs as the façade lays them out in the heap: their fields, order, offsets and sizes are
// web/src/core/wire-call.ts's tables (WIRE_LAYOUT, AREAS_LAYOUT), generated into wire_layout.h at
// build time (web/scripts/wire-header.mjs); the static_asserts hold the compiler's layout to them.
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

// Where a normalizing call's optional areas are (wire-call.ts: CallAreas).
struct CallAreas {
#define LNW_AREAS_DECLARE(name, offset, type) wire_type::type name;
  LNW_AREAS_FIELDS(LNW_AREAS_DECLARE)
#undef LNW_AREAS_DECLARE
};

#define LNW_AREAS_CHECK(name, offset, type)          \
  static_assert(offsetof(CallAreas, name) == offset, \
                "web/src/core/wire-call.ts writes CallAreas::" #name " at byte " #offset);
LNW_AREAS_FIELDS(LNW_AREAS_CHECK)
#undef LNW_AREAS_CHECK
static_assert(sizeof(CallAreas) == LNW_AREAS_BYTES,
              "web/src/core/wire-call.ts reserves LNW_AREAS_BYTES bytes");

// Each area's bit in a form: FORM_AREAS_SHIFT plus its row in AREAS_LAYOUT.
enum AreaBit : std::uint32_t {
#define LNW_AREAS_BIT(name, offset, type) k_##name##_at,
  LNW_AREAS_FIELDS(LNW_AREAS_BIT)
#undef LNW_AREAS_BIT
};

// An area's address if the form says the call uses it, else 0 (null).
template <AreaBit kBit>
Address Used(std::uint32_t form, std::uint32_t address) {
  return (form >> (LNW_FORM_AREAS_SHIFT + kBit)) & 1u ? Address{address} : Address{0};
}

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

// Any normalizing call. `form` is its norm's wire code (layernorm::NormOf's bits), its dtype's code
// from bit LNW_FORM_DTYPE_SHIFT, and from bit LNW_FORM_AREAS_SHIFT which of the areas at `areas`
// (a CallAreas; 0: none) it uses; addresses 0 for null.
EMSCRIPTEN_KEEPALIVE int lnw_normalize(std::uint32_t form, std::uint32_t rows, std::uint32_t d,
                                       Address x, Address y, Address gamma, Address beta,
                                       double eps, Address areas) {
  static const CallAreas kNone{};
  const CallAreas& a = areas != 0 ? *reinterpret_cast<const CallAreas*>(areas) : kNone;
  layernorm::NormCall c;
  constexpr std::uint32_t kDTypeMask = (1u << (LNW_FORM_AREAS_SHIFT - LNW_FORM_DTYPE_SHIFT)) - 1;
  c.norm = static_cast<layernorm::Norm>(form & ((1u << LNW_FORM_DTYPE_SHIFT) - 1));
  c.dtype = static_cast<layernorm::DType>((form >> LNW_FORM_DTYPE_SHIFT) & kDTypeMask);
  c.rows = rows;
  c.d = d;
  c.x = reinterpret_cast<const void*>(x);
  c.y = reinterpret_cast<void*>(y);
  c.gamma = In(gamma);
  c.beta = In(beta);
  c.eps = eps;
  c.residual = reinterpret_cast<const void*>(Used<k_residual_at>(form, a.residual));
  c.bias = In(Used<k_bias_at>(form, a.bias));
  c.sum_out = reinterpret_cast<void*>(Used<k_sum_out_at>(form, a.sum_out));
  c.mean = reinterpret_cast<double*>(Used<k_mean_at>(form, a.mean));
  c.rstd = reinterpret_cast<double*>(Used<k_rstd_at>(form, a.rstd));
  c.scratch = Out(Used<k_scratch_at>(form, a.scratch));
  return static_cast<int>(layernorm::detail::NormalizeValidated(c, nullptr));
}

}  // extern "C"

EMSCRIPTEN_BINDINGS(layernorm) {
  emscripten::function("_statistics", &StatisticsRaw);
  emscripten::function("_stages", &StagesRaw);
  emscripten::function("_kernelName", &KernelName);
  emscripten::function("_heapInUse", &HeapInUse);
}
