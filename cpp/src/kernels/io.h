// How the row micro-kernels read and write activations of each element type: float32, float16
// and bfloat16 (both held as uint16_t bits). Every value is widened exactly to float32 on load and
// rounded once on store, so the arithmetic between is the float32 kernel's, whatever the type.
#ifndef LAYERNORM_KERNELS_IO_H_
#define LAYERNORM_KERNELS_IO_H_

#include <cstdint>

#include "kernels/half.h"
#include "kernels/inline.h"

namespace layernorm::kernels {

template <class Ops>
struct F32Io {
  using T = float;
  using F32 = typename Ops::F32;
  using F64 = typename Ops::F64;

  LAYERNORM_INLINE static void Load8(const T* p, F32* lo, F32* hi) {
    *lo = Ops::Load(p);
    *hi = Ops::Load(p + 4);
  }
  LAYERNORM_INLINE static F32 Load4(const T* p) { return Ops::Load(p); }
  LAYERNORM_INLINE static void Store8(T* p, F32 lo, F32 hi) {
    Ops::Store(p, lo);
    Ops::Store(p + 4, hi);
  }
  LAYERNORM_INLINE static void Store4(T* p, F32 a) { Ops::Store(p, a); }
  // Eight values as four pairs of doubles. Half-vector loads: V8 turns each into a single
  // convert-from-memory instruction.
  LAYERNORM_INLINE static void Load8Promote(const T* p, F64* c0, F64* c1, F64* c2, F64* c3) {
    *c0 = Ops::LoadPromote(p);
    *c1 = Ops::LoadPromote(p + 2);
    *c2 = Ops::LoadPromote(p + 4);
    *c3 = Ops::LoadPromote(p + 6);
  }
  LAYERNORM_INLINE static float Get(const T* p) { return *p; }
  LAYERNORM_INLINE static void Put(T* p, float v) { *p = v; }
};

// float16 and bfloat16 share everything but the conversions.
template <class Ops, class Half>
struct HalfIo {
  using T = std::uint16_t;
  using F32 = typename Ops::F32;
  using F64 = typename Ops::F64;

  LAYERNORM_INLINE static void Load8(const T* p, F32* lo, F32* hi) { Half::Load8(p, lo, hi); }
  LAYERNORM_INLINE static void Store8(T* p, F32 lo, F32 hi) { Half::Store8(p, lo, hi); }
  // Store8's fast path alone, the lanes it got wrong marked in *redo; and its general path alone
  // (wasmsimd_ops.h).
  LAYERNORM_INLINE static void Store8Fast(T* p, F32 lo, F32 hi, F32* redo) {
    Half::Store8Fast(p, lo, hi, redo);
  }
  LAYERNORM_INLINE static void Store8Exact(T* p, F32 lo, F32 hi) { Half::Store8Exact(p, lo, hi); }
  LAYERNORM_INLINE static void Load8Promote(const T* p, F64* c0, F64* c1, F64* c2, F64* c3) {
    F32 lo, hi;
    Half::Load8(p, &lo, &hi);
    *c0 = Ops::PromoteLo(lo);
    *c1 = Ops::PromoteHi(lo);
    *c2 = Ops::PromoteLo(hi);
    *c3 = Ops::PromoteHi(hi);
  }
  LAYERNORM_INLINE static float Get(const T* p) { return Half::Widen(*p); }
  LAYERNORM_INLINE static void Put(T* p, float v) { *p = Half::Narrow(v); }
};

template <class Ops>
struct F16Conversions {
  LAYERNORM_INLINE static void Load8(const std::uint16_t* p, typename Ops::F32* lo,
                                     typename Ops::F32* hi) {
    Ops::LoadF16x8(p, lo, hi);
  }
  LAYERNORM_INLINE static void Store8(std::uint16_t* p, typename Ops::F32 lo,
                                      typename Ops::F32 hi) {
    Ops::StoreF16x8(p, lo, hi);
  }
  LAYERNORM_INLINE static void Store8Fast(std::uint16_t* p, typename Ops::F32 lo,
                                          typename Ops::F32 hi, typename Ops::F32* redo) {
    Ops::StoreF16x8Fast(p, lo, hi, redo);
  }
  LAYERNORM_INLINE static void Store8Exact(std::uint16_t* p, typename Ops::F32 lo,
                                           typename Ops::F32 hi) {
    Ops::StoreF16x8Exact(p, lo, hi);
  }
  LAYERNORM_INLINE static float Widen(std::uint16_t h) { return F16ToF32(h); }
  LAYERNORM_INLINE static std::uint16_t Narrow(float f) { return F32ToF16(f); }
};

template <class Ops>
struct BF16Conversions {
  LAYERNORM_INLINE static void Load8(const std::uint16_t* p, typename Ops::F32* lo,
                                     typename Ops::F32* hi) {
    Ops::LoadBF16x8(p, lo, hi);
  }
  LAYERNORM_INLINE static void Store8(std::uint16_t* p, typename Ops::F32 lo,
                                      typename Ops::F32 hi) {
    Ops::StoreBF16x8(p, lo, hi);
  }
  LAYERNORM_INLINE static void Store8Fast(std::uint16_t* p, typename Ops::F32 lo,
                                          typename Ops::F32 hi, typename Ops::F32* redo) {
    Ops::StoreBF16x8Fast(p, lo, hi, redo);
  }
  LAYERNORM_INLINE static void Store8Exact(std::uint16_t* p, typename Ops::F32 lo,
                                           typename Ops::F32 hi) {
    Ops::StoreBF16x8Exact(p, lo, hi);
  }
  LAYERNORM_INLINE static float Widen(std::uint16_t b) { return BF16ToF32(b); }
  LAYERNORM_INLINE static std::uint16_t Narrow(float f) { return F32ToBF16(f); }
};

template <class Ops>
using F16Io = HalfIo<Ops, F16Conversions<Ops>>;
template <class Ops>
using BF16Io = HalfIo<Ops, BF16Conversions<Ops>>;

}  // namespace layernorm::kernels

#endif  // LAYERNORM_KERNELS_IO_H_
