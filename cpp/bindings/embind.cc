// The only file that knows about JavaScript. Raw, `_`-prefixed entry points taking wasm heap
// addresses; the TypeScript façade (web/src/core/runtime.ts) validates arguments, owns the memory
// and is the public API. So they call the core's entry points that trust their call (validate.h):
// every rule the core would check, the façade has checked first, with its own typed error and
// message (tests/errors/core-rules.test.ts names the test of each); only what the run itself can
// meet (kOutOfMemory) comes back as a status. One convention (web/src/core/wire-call.ts): each
// call's form (its norm's facts, its dtype, which optional areas it uses), counts and addresses
// as arguments, and the optional areas' addresses in a CallAreas struct that the façade writes
// when a plan's areas are laid out, not per call. The normalizing call, which a model makes per
// token, is a plain C export that JavaScript calls as a wasm function; the statistics and the
// stages are Embind functions. A struct of every argument written per call measured 4-8% slower
// at one row (web/bench/NOTES.md).
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

// Where a call's optional areas are, as the façade lays the struct out in the heap: its fields,
// their order and offsets and its size are web/src/core/wire-call.ts's table (AREAS_LAYOUT),
// generated into wire_layout.h at build time (web/scripts/wire-header.mjs); the static_asserts
// hold the compiler's layout to it.
namespace wire_type {
using u32 = std::uint32_t;
}  // namespace wire_type

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

// Each area's bit in a form: LNW_FORM_AREAS_SHIFT plus its row in AREAS_LAYOUT.
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

// The call a form describes: its norm's wire code (layernorm::NormOf's bits) below bit
// LNW_FORM_DTYPE_SHIFT, its dtype's code from there, and from bit LNW_FORM_AREAS_SHIFT which of
// the areas at `areas` (a CallAreas; 0: none) it uses. Addresses 0 for null.
layernorm::NormCall CallOf(std::uint32_t form, std::uint32_t rows, std::uint32_t d, Address x,
                           double eps, Address areas) {
  static const CallAreas kNone{};
  const CallAreas& a = areas != 0 ? *reinterpret_cast<const CallAreas*>(areas) : kNone;
  constexpr std::uint32_t kDTypeMask = (1u << (LNW_FORM_AREAS_SHIFT - LNW_FORM_DTYPE_SHIFT)) - 1;
  layernorm::NormCall c;
  c.norm = static_cast<layernorm::Norm>(form & ((1u << LNW_FORM_DTYPE_SHIFT) - 1));
  c.dtype = static_cast<layernorm::DType>((form >> LNW_FORM_DTYPE_SHIFT) & kDTypeMask);
  c.rows = rows;
  c.d = d;
  c.x = reinterpret_cast<const void*>(x);
  c.eps = eps;
  c.residual = reinterpret_cast<const void*>(Used<k_residual_at>(form, a.residual));
  c.bias = In(Used<k_bias_at>(form, a.bias));
  c.sum_out = reinterpret_cast<void*>(Used<k_sum_out_at>(form, a.sum_out));
  c.mean = reinterpret_cast<double*>(Used<k_mean_at>(form, a.mean));
  c.rstd = reinterpret_cast<double*>(Used<k_rstd_at>(form, a.rstd));
  c.scratch = Out(Used<k_scratch_at>(form, a.scratch));
  return c;
}

// The statistics and the stages write records, not the per-row arrays of a normalizing call.
layernorm::NormCall RecordsCall(std::uint32_t form, std::uint32_t rows, std::uint32_t d, Address x,
                                double eps, Address areas) {
  layernorm::NormCall c = CallOf(form, rows, d, x, eps, areas);
  c.sum_out = nullptr;
  c.mean = c.rstd = nullptr;
  return c;
}

// stats: rows x {mean, variance, rstd} as float64.
int StatisticsRaw(std::uint32_t form, std::uint32_t rows, std::uint32_t d, Address x, double eps,
                  Address areas, Address stats) {
  return static_cast<int>(layernorm::detail::StatisticsValidated(
      RecordsCall(form, rows, d, x, eps, areas), reinterpret_cast<layernorm::RowStats*>(stats),
      nullptr));
}

static_assert(sizeof(layernorm::RowStats) == 24,
              "web/src/core/plan.ts lays out a row's record as 24 bytes (Planner.stages)");

// One row: at `out` its {mean, variance, rstd} (float64), then six float arrays of length d back
// to back (input, sum, centered, normalized, scaled, output).
int StagesRaw(std::uint32_t form, std::uint32_t d, Address x, Address gamma, Address beta,
              double eps, Address areas, Address out) {
  layernorm::NormCall c = RecordsCall(form, 1, d, x, eps, areas);
  c.gamma = In(gamma);
  c.beta = In(beta);
  float* s = Out(out + sizeof(layernorm::RowStats));
  // The façade's block holds the six vectors, so their size fits; a d whose six vectors would not
  // fit in wasm32's size_t would place them modulo 2^32, over other memory.
  if (!layernorm::detail::BytesFit(d, 6 * sizeof(float))) {
    return static_cast<int>(layernorm::Status::kSizeOverflow);
  }
  const std::size_t n = d;
  return static_cast<int>(
      layernorm::detail::StagesValidated(c, reinterpret_cast<layernorm::RowStats*>(out),
                                         {s, s + n, s + 2 * n, s + 3 * n, s + 4 * n, s + 5 * n}));
}

std::string KernelName() { return layernorm::DefaultKernel().name; }

// Bytes handed out by malloc and not yet freed: lets tests prove the heap stays flat.
std::size_t HeapInUse() { return static_cast<std::size_t>(mallinfo().uordblks); }

}  // namespace

extern "C" {

// Any normalizing call (CallOf), with its output, gain and bias.
EMSCRIPTEN_KEEPALIVE int lnw_normalize(std::uint32_t form, std::uint32_t rows, std::uint32_t d,
                                       Address x, Address y, Address gamma, Address beta,
                                       double eps, Address areas) {
  layernorm::NormCall c = CallOf(form, rows, d, x, eps, areas);
  c.y = reinterpret_cast<void*>(y);
  c.gamma = In(gamma);
  c.beta = In(beta);
  return static_cast<int>(layernorm::detail::NormalizeValidated(c, nullptr));
}

}  // extern "C"

EMSCRIPTEN_BINDINGS(layernorm) {
  emscripten::function("_statistics", &StatisticsRaw);
  emscripten::function("_stages", &StagesRaw);
  emscripten::function("_kernelName", &KernelName);
  emscripten::function("_heapInUse", &HeapInUse);
}
