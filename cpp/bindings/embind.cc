// The only file that knows about JavaScript. Raw, `_`-prefixed entry points taking wasm heap
// addresses; the TypeScript façade (web/src/core/runtime.ts) validates arguments, owns the memory
// and is the public API. So they call the core's entry points that trust their call (validate.h):
// every rule the core would check, the façade has checked first, with its own typed error and
// message (tests/errors/core-rules.test.ts names the test of each); only what the run itself can
// meet (kOutOfMemory) comes back as a status. The two calls a model makes per token are plain C
// exports, which JavaScript calls as wasm functions: an Embind function goes through a JS invoker
// that converts each argument, then an indirect call, which measured ~50 ns of a ~350 ns one-row
// call.
#include <emscripten/bind.h>
#include <emscripten/em_macros.h>
#include <malloc.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "layernorm/layernorm.h"
#include "sizes.h"
#include "validate.h"

namespace {

using Address = std::uintptr_t;

const float* In(Address a) { return reinterpret_cast<const float*>(a); }
float* Out(Address a) { return reinterpret_cast<float*>(a); }

// A NormCall as the façade lays it out in the heap (web/src/core/call-struct.ts): 32-bit fields
// (addresses 0 for null), then eps as a double at byte 56.
struct WireCall {
  std::int32_t norm, dtype;
  std::uint32_t rows, d, x, y, gamma, beta, residual, bias, sum_out, mean, rstd, scratch;
  double eps;
};
static_assert(sizeof(WireCall) == 64, "web/src/core/call-struct.ts writes 64 bytes");

// WireCall as the compiler laid it out, for tests/core/wire.test.ts to compare field by field with
// the table web/src/core/call-struct.ts writes by: a first line "WireCall <sizeof>", then one line
// per field, "name offset bytes type" (type i32, u32 or f64). The text is made at compile time, so
// the module carries only its ~200 bytes (std::string's appends or to_string would add kilobytes to
// a module the page's first load counts).
struct WireField {
  const char* name;
  unsigned offset, bytes;
  char type;  // 'i', 'u' or 'f'
};

template <typename T>
constexpr WireField Field(const char* name, unsigned offset) {
  return {name, offset, sizeof(T),
          std::is_floating_point_v<T> ? 'f'
          : std::is_signed_v<T>       ? 'i'
                                      : 'u'};
}

#define LNW_WIRE_FIELD(field) Field<decltype(WireCall::field)>(#field, offsetof(WireCall, field))
constexpr WireField kWireFields[] = {
    LNW_WIRE_FIELD(norm),  LNW_WIRE_FIELD(dtype),   LNW_WIRE_FIELD(rows),
    LNW_WIRE_FIELD(d),     LNW_WIRE_FIELD(x),       LNW_WIRE_FIELD(y),
    LNW_WIRE_FIELD(gamma), LNW_WIRE_FIELD(beta),    LNW_WIRE_FIELD(residual),
    LNW_WIRE_FIELD(bias),  LNW_WIRE_FIELD(sum_out), LNW_WIRE_FIELD(mean),
    LNW_WIRE_FIELD(rstd),  LNW_WIRE_FIELD(scratch), LNW_WIRE_FIELD(eps),
};
#undef LNW_WIRE_FIELD

// Writes the layout's text at `out` (or only counts it, when out is null); returns its length.
constexpr std::size_t WriteWireLayout(char* out) {
  std::size_t n = 0;
  auto put = [&](char c) {
    if (out) out[n] = c;
    ++n;
  };
  auto text = [&](const char* s) {
    while (*s) put(*s++);
  };
  auto number = [&](unsigned v) {
    unsigned scale = 1;
    while (v / scale >= 10) scale *= 10;
    for (; scale; scale /= 10) put(static_cast<char>('0' + v / scale % 10));
  };
  text("WireCall ");
  number(sizeof(WireCall));
  for (const WireField& f : kWireFields) {
    put('\n');
    text(f.name);
    put(' ');
    number(f.offset);
    put(' ');
    number(f.bytes);
    put(' ');
    put(f.type);
    number(8 * f.bytes);
  }
  return n;
}

constexpr auto kWireLayout = [] {
  std::array<char, WriteWireLayout(nullptr) + 1> t{};
  WriteWireLayout(t.data());
  return t;
}();

std::string WireLayout() { return kWireLayout.data(); }

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

// The common call (float32 LayerNorm, nothing fused) in plain arguments (addresses 0 for null).
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

// Any call, every NormCall field an argument (web/src/core/executor.ts): codes as web/src/norms.ts
// and layernorm::DType number them, addresses 0 for null.
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
  emscripten::function("_wireLayout", &WireLayout);
}
