// The row micro-kernels of ukernels.h, written once against a tiny vector-ops wrapper (Ops:
// scalar_ops.h, wasmsimd_ops.h) and an element type (io.h). Both wrappers have 4 float lanes and
// 2 double lanes and perform the same IEEE operations lane by lane, and each tail does per element
// what the vector loop does per lane, so every ISA produces bit-identical results (wasm SIMD128
// has no fused multiply-add, and the native builds use -ffp-contract=off).
//
// Loops advance pointers rather than index: V8 turns that into fewer instructions. Sums reduce
// each group of 8 as a tree before it meets the accumulator, so two accumulators carry the whole
// row and V8 keeps them and the output loop's constants in registers.
#ifndef LAYERNORM_KERNELS_ROW_UKERNELS_H_
#define LAYERNORM_KERNELS_ROW_UKERNELS_H_

#include <cstddef>
#include <cstdint>

#include "kernels/half.h"
#include "kernels/inline.h"
#include "kernels/io.h"
#include "kernels/ukernels.h"

namespace layernorm::kernels {

template <class Ops, class IoPolicy>
struct RowUkernels {
  using Isa = Ops;
  using Io = IoPolicy;
  using T = typename Io::T;
  using F32 = typename Ops::F32;
  using F64 = typename Ops::F64;

  // ---- statistics

  // Eight values, as four pairs of doubles, into the sums s1 (values) and s2 (squares).
  LAYERNORM_INLINE static void AddSums(F64 c0, F64 c1, F64 c2, F64 c3, F64* s1, F64* s2) {
    *s1 = Ops::Add64(*s1, Ops::Add64(Ops::Add64(c0, c1), Ops::Add64(c2, c3)));
    AddSquares(c0, c1, c2, c3, s2);
  }
  LAYERNORM_INLINE static void AddSquares(F64 c0, F64 c1, F64 c2, F64 c3, F64* s2) {
    *s2 = Ops::Add64(*s2, Ops::Add64(Ops::Add64(Ops::Mul64(c0, c0), Ops::Mul64(c1, c1)),
                                     Ops::Add64(Ops::Mul64(c2, c2), Ops::Mul64(c3, c3))));
  }

  template <bool kShift>
  LAYERNORM_INLINE static void SumsStep(const T* p, F64 shift, F64* s1, F64* s2) {
    F64 c0, c1, c2, c3;
    Io::Load8Promote(p, &c0, &c1, &c2, &c3);
    if constexpr (kShift) {
      c0 = Ops::Sub64(c0, shift);
      c1 = Ops::Sub64(c1, shift);
      c2 = Ops::Sub64(c2, shift);
      c3 = Ops::Sub64(c3, shift);
    }
    AddSums(c0, c1, c2, c3, s1, s2);
  }

  LAYERNORM_INLINE static void SquaresStep(const T* p, F64* s2) {
    F64 c0, c1, c2, c3;
    Io::Load8Promote(p, &c0, &c1, &c2, &c3);
    AddSquares(c0, c1, c2, c3, s2);
  }

  // The last d % 8 elements, folded into the vector accumulators.
  template <bool kShift>
  LAYERNORM_INLINE static void FinishSums(const T* tail, std::size_t n, double shift, F64 s1,
                                          F64 s2, double* sum, double* squares) {
    double t1 = 0.0, t2 = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      const double v = static_cast<double>(Io::Get(tail + j));
      const double c = kShift ? v - shift : v;
      t1 += c;
      t2 += c * c;
    }
    *sum = (Ops::Lane0(s1) + Ops::Lane1(s1)) + t1;
    *squares = (Ops::Lane0(s2) + Ops::Lane1(s2)) + t2;
  }

  LAYERNORM_INLINE static void FinishSquares(const T* tail, std::size_t n, F64 s2,
                                             double* squares) {
    double t2 = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      const double v = static_cast<double>(Io::Get(tail + j));
      t2 += v * v;
    }
    *squares = (Ops::Lane0(s2) + Ops::Lane1(s2)) + t2;
  }

  template <bool kShift>
  static void Sums(const void* row, std::size_t d, double shift, double* sum, double* squares) {
    const T* p = static_cast<const T*>(row);
    const F64 k = Ops::Splat64(shift);
    F64 s1 = Ops::Splat64(0.0), s2 = s1;
    for (const T* end = p + (d & ~std::size_t{7}); p != end; p += 8) {
      SumsStep<kShift>(p, k, &s1, &s2);
    }
    FinishSums<kShift>(p, d & 7, shift, s1, s2, sum, squares);
  }

  // Sums<false> of the row (kValues), or only its squares (RMSNorm: the same sum as Squares()
  // gives), and the largest |gain_j| (as bits: a NaN is above +Inf) from the same loop: the
  // schedule's first row of a call whose gain is checked (src/schedule.h). Summing the values
  // RMSNorm does not use cost its one-row call 7%, against 330 bytes of module for this copy.
  template <bool kValues>
  static void SumsAndMaxAbs(const void* row, std::size_t d, const float* gain, double* sum,
                            double* squares, float* max_abs_gain) {
    const T* p = static_cast<const T*>(row);
    const float* g = gain;
    const F64 zero = Ops::Splat64(0.0);
    F64 s1 = zero, s2 = zero;
    F32 m = Ops::Splat32(0.0f);
    for (const T* end = p + (d & ~std::size_t{7}); p != end; p += 8, g += 8) {
      if constexpr (kValues) {
        SumsStep<false>(p, zero, &s1, &s2);
      } else {
        SquaresStep(p, &s2);
      }
      m = Ops::MaxAbsBits(Ops::MaxAbsBits(m, Ops::Load(g)), Ops::Load(g + 4));
    }
    if constexpr (kValues) {
      FinishSums<false>(p, d & 7, 0.0, s1, s2, sum, squares);
    } else {
      *sum = 0.0;
      FinishSquares(p, d & 7, s2, squares);
    }
    float top = Ops::MaxLane(m);
    for (std::size_t j = 0; j < (d & 7); ++j) top = MaxAbsScalar(top, g[j]);
    *max_abs_gain = top;
  }

  static void Squares(const void* row, std::size_t d, double* squares) {
    const T* p = static_cast<const T*>(row);
    F64 s2 = Ops::Splat64(0.0);
    for (const T* end = p + (d & ~std::size_t{7}); p != end; p += 8) SquaresStep(p, &s2);
    FinishSquares(p, d & 7, s2, squares);
  }

  // ---- the per-element formulas (vector lanes, then the same for one element)

  // (gamma and beta are only offset when present: they may be null.)
  template <bool kGamma, bool kBeta>
  LAYERNORM_INLINE static F32 AffineVec(F32 t, const float* gamma, const float* beta,
                                        std::size_t j) {
    if constexpr (kGamma) t = Ops::Mul32(t, Ops::Load(gamma + j));
    if constexpr (kBeta) t = Ops::Add32(t, Ops::Load(beta + j));
    return t;
  }

  template <bool kGamma, bool kBeta>
  LAYERNORM_INLINE static float Affine(float t, const float* gamma, const float* beta) {
    if constexpr (kGamma) t = t * *gamma;
    if constexpr (kBeta) t = t + *beta;
    return t;
  }

  // LayerNorm's fast path: the mean split in two floats keeps it beyond float32 precision.
  LAYERNORM_INLINE static F32 CenterScaleVec(F32 x, F32 mu_hi, F32 mu_lo, F32 rstd) {
    return Ops::Mul32(Ops::Sub32(Ops::Sub32(x, mu_hi), mu_lo), rstd);
  }
  LAYERNORM_INLINE static float CenterScale(float x, const RowParams& p) {
    return ((x - p.mu_hi) - p.mu_lo) * p.rstd32;
  }

  // ---- what the output loop does with the next row, 8 values per iteration

  // Nothing: the row is the last, or the next one overlaps this output.
  struct NoNext {
    LAYERNORM_INLINE void Step(F64*, F64*) {}
    LAYERNORM_INLINE void StepSquares(F64*) {}
    void Finish(std::size_t, F64, F64, double*, double*) {}
    void FinishSquares(std::size_t, F64, double*) {}
  };

  // Sums the next row.
  struct SumNext {
    const T* x;
    LAYERNORM_INLINE void Step(F64* s1, F64* s2) {
      SumsStep<false>(x, Ops::Splat64(0.0), s1, s2);
      x += 8;
    }
    LAYERNORM_INLINE void StepSquares(F64* s2) {
      SquaresStep(x, s2);
      x += 8;
    }
    LAYERNORM_INLINE void Finish(std::size_t n, F64 s1, F64 s2, double* sum, double* squares) {
      FinishSums<false>(x, n, 0.0, s1, s2, sum, squares);
    }
    LAYERNORM_INLINE void FinishSquares(std::size_t n, F64 s2, double* squares) {
      RowUkernels::FinishSquares(x, n, s2, squares);
    }
  };

  // Forms the next row of a fused call, h = (x + r) + bias, stores it and sums it: each h is made,
  // stored and loaded once. The sums are of the float32 values stored, in the order SumsStep
  // takes them, so they are those of the stored row. (The bias is tested per group of 8 rather
  // than made a template parameter: the branch always goes one way, and it saves 6 kB of module.)
  struct AddNext {
    const T* x;
    const T* r;
    const float* bias;
    T* h;
    LAYERNORM_INLINE void Form(F32* h0, F32* h1) {
      F32 x0, x1, r0, r1;
      Io::Load8(x, &x0, &x1);
      Io::Load8(r, &r0, &r1);
      *h0 = Ops::Add32(x0, r0);
      *h1 = Ops::Add32(x1, r1);
      if (bias) {
        *h0 = Ops::Add32(*h0, Ops::Load(bias));
        *h1 = Ops::Add32(*h1, Ops::Load(bias + 4));
        bias += 8;
      }
      Io::Store8(h, *h0, *h1);
      x += 8;
      r += 8;
      h += 8;
    }
    LAYERNORM_INLINE void Step(F64* s1, F64* s2) {
      F32 h0, h1;
      Form(&h0, &h1);
      AddSums(Ops::PromoteLo(h0), Ops::PromoteHi(h0), Ops::PromoteLo(h1), Ops::PromoteHi(h1), s1,
              s2);
    }
    LAYERNORM_INLINE void StepSquares(F64* s2) {
      F32 h0, h1;
      Form(&h0, &h1);
      AddSquares(Ops::PromoteLo(h0), Ops::PromoteHi(h0), Ops::PromoteLo(h1), Ops::PromoteHi(h1),
                 s2);
    }
    void FormTail(std::size_t n) {
      for (std::size_t j = 0; j < n; ++j) {
        float v = Io::Get(x + j) + Io::Get(r + j);
        if (bias) v = v + bias[j];
        Io::Put(h + j, v);
      }
    }
    void Finish(std::size_t n, F64 s1, F64 s2, double* sum, double* squares) {
      FormTail(n);
      FinishSums<false>(h, n, 0.0, s1, s2, sum, squares);
    }
    void FinishSquares(std::size_t n, F64 s2, double* squares) {
      FormTail(n);
      RowUkernels::FinishSquares(h, n, s2, squares);
    }
  };

  // ---- centred rows (LayerNorm)

  template <bool kGamma, bool kBeta, class Next>
  static void CentredFast(const RowParams& p, const T* x, T* y, std::size_t d, Next next,
                          double* sum, double* squares) {
    const float* gamma = p.gamma;
    const float* beta = p.beta;
    const F32 mu_hi = Ops::Splat32(p.mu_hi);
    const F32 mu_lo = Ops::Splat32(p.mu_lo);
    const F32 rstd = Ops::Splat32(p.rstd32);
    const F64 zero = Ops::Splat64(0.0);
    F64 s1 = zero, s2 = zero;
    const T* const end = x + d;
    for (const T* end8 = x + (d & ~std::size_t{7}); x != end8; x += 8, y += 8) {
      F32 a, b;
      Io::Load8(x, &a, &b);
      const F32 t0 = CenterScaleVec(a, mu_hi, mu_lo, rstd);
      const F32 t1 = CenterScaleVec(b, mu_hi, mu_lo, rstd);
      Io::Store8(y, AffineVec<kGamma, kBeta>(t0, gamma, beta, 0),
                 AffineVec<kGamma, kBeta>(t1, gamma, beta, 4));
      if constexpr (kGamma) gamma += 8;
      if constexpr (kBeta) beta += 8;
      next.Step(&s1, &s2);
    }
    for (; x != end; ++x, ++y) {
      Io::Put(y, Affine<kGamma, kBeta>(CenterScale(Io::Get(x), p), gamma, beta));
      if constexpr (kGamma) ++gamma;
      if constexpr (kBeta) ++beta;
    }
    next.Finish(d & 7, s1, s2, sum, squares);
  }

  // The wide path keeps the gain and bias in double too, so each output is rounded once: the
  // normalized value of an extreme row may itself be subnormal, and rounding it to float32 before
  // a large gain would multiply that rounding error; and a gain near the float32 maximum that a
  // bias brings back into range does not overflow there. It centres on the mean's three parts,
  // ((x - shift) - mean_shift) - mean_lo (plan.h). kCenter = false is RMSNorm's (mean 0).
  // (One body for every gain and bias: the wide path is for rare rows, and a copy per combination
  // cost 1.2 kB of module.)
  template <bool kCenter>
  static void Wide(const RowParams& p, const T* x, T* y, std::size_t d) {
    const F64 shift = Ops::Splat64(p.shift);
    const F64 mean_shift = Ops::Splat64(p.mean_shift);
    const F64 mean_lo = Ops::Splat64(p.mean_lo);
    const F64 rstd = Ops::Splat64(p.rstd);
    std::size_t j = 0;
    for (; j + 4 <= d; j += 4) {
      const F32 v = Io::Load4(x + j);
      F64 lo = Ops::PromoteLo(v), hi = Ops::PromoteHi(v);
      if constexpr (kCenter) {
        lo = Ops::Sub64(Ops::Sub64(Ops::Sub64(lo, shift), mean_shift), mean_lo);
        hi = Ops::Sub64(Ops::Sub64(Ops::Sub64(hi, shift), mean_shift), mean_lo);
      }
      lo = Ops::Mul64(lo, rstd);
      hi = Ops::Mul64(hi, rstd);
      if (p.gamma) {
        const F32 g = Ops::Load(p.gamma + j);
        lo = Ops::Mul64(lo, Ops::PromoteLo(g));
        hi = Ops::Mul64(hi, Ops::PromoteHi(g));
      }
      if (p.beta) {
        const F32 b = Ops::Load(p.beta + j);
        lo = Ops::Add64(lo, Ops::PromoteLo(b));
        hi = Ops::Add64(hi, Ops::PromoteHi(b));
      }
      Io::Store4(y + j, Ops::Demote(lo, hi));
    }
    for (; j < d; ++j) {
      double t = static_cast<double>(Io::Get(x + j));
      if constexpr (kCenter) t = ((t - p.shift) - p.mean_shift) - p.mean_lo;
      t = t * p.rstd;
      if (p.gamma) t = t * static_cast<double>(p.gamma[j]);
      if (p.beta) t = t + static_cast<double>(p.beta[j]);
      Io::Put(y + j, static_cast<float>(t));
    }
  }

  // ---- uncentred rows (RMSNorm): x̂ = x * rstd, then the gain

  // With a gain, x̂ is formed 2^64 times too large and the product scaled back by that power of two
  // (exact unless the output is subnormal, rounded once more then): an element far below the
  // row's root mean square has a subnormal x̂, and rounding it before a large gain multiplies that
  // error (1e-40 among ones, gain 1000: 24 units). LayerNorm's x - mean is not that small on a
  // fast row. plan.h keeps 2^64 * |gamma * x̂| finite (GainMayOverflow) and rstd * 2^64 is below
  // 2^124 on a fast row.
  static constexpr float kRmsUp = 0x1p64f;
  static constexpr float kRmsDown = 0x1p-64f;

  template <bool kGamma, class Next>
  static void UncentredFast(const RowParams& p, const T* x, T* y, std::size_t d, Next next,
                            double* squares) {
    const float* gamma = p.gamma;
    const float r = kGamma ? p.rstd32 * kRmsUp : p.rstd32;
    const F32 rstd = Ops::Splat32(r);
    const F32 down = Ops::Splat32(kRmsDown);
    F64 s2 = Ops::Splat64(0.0);
    const T* const end = x + d;
    for (const T* end8 = x + (d & ~std::size_t{7}); x != end8; x += 8, y += 8) {
      F32 a, b;
      Io::Load8(x, &a, &b);
      a = AffineVec<kGamma, false>(Ops::Mul32(a, rstd), gamma, nullptr, 0);
      b = AffineVec<kGamma, false>(Ops::Mul32(b, rstd), gamma, nullptr, 4);
      if constexpr (kGamma) {
        a = Ops::Mul32(a, down);
        b = Ops::Mul32(b, down);
        gamma += 8;
      }
      Io::Store8(y, a, b);
      next.StepSquares(&s2);
    }
    for (; x != end; ++x, ++y) {
      float t = Affine<kGamma, false>(Io::Get(x) * r, gamma, nullptr);
      if constexpr (kGamma) {
        t *= kRmsDown;
        ++gamma;
      }
      Io::Put(y, t);
    }
    next.FinishSquares(d & 7, s2, squares);
  }

  // ---- whole rows to and from float32 (the staging of the 16-bit types, src/schedule.h)

  static void Widen(const T* x, float* out, std::size_t n) {
    std::size_t j = 0;
    for (; j + 8 <= n; j += 8) {
      F32 a, b;
      Io::Load8(x + j, &a, &b);
      Ops::Store(out + j, a);
      Ops::Store(out + j + 4, b);
    }
    for (; j < n; ++j) out[j] = Io::Get(x + j);
  }

  // Groups of 8 through the fast rounding alone, a span of them at a time; only a span with a value
  // that rounding does not take (NaN; float16: also subnormal, zero, overflowing) is stored again,
  // group by group, through the general conversions. Such outputs are rare (a NaN row; float16: an
  // output within 6e-5 of zero, about one in 20,000 of a unit normal's), and the span keeps what
  // one costs small.
  static constexpr std::size_t kNarrowSpan = 512;
  static void Narrow(const float* in, T* y, std::size_t n) {
    const std::size_t groups = n & ~std::size_t{7};
    for (std::size_t at = 0; at < groups; at += kNarrowSpan) {
      const std::size_t end = at + kNarrowSpan < groups ? at + kNarrowSpan : groups;
      F32 redo = Ops::Splat32(0.0f);
      for (std::size_t j = at; j < end; j += 8) {
        Io::Store8Fast(y + j, Ops::Load(in + j), Ops::Load(in + j + 4), &redo);
      }
      if (!Ops::AnyLane(redo)) continue;
      for (std::size_t j = at; j < end; j += 8) {
        Io::Store8Exact(y + j, Ops::Load(in + j), Ops::Load(in + j + 4));
      }
    }
    for (std::size_t j = groups; j < n; ++j) Io::Put(y + j, in[j]);
  }

  // ---- the largest |gamma_j| of a call (plan.h, GainMayOverflow)

  static float MaxAbs(const float* v, std::size_t n) {
    F32 acc = Ops::Splat32(0.0f);
    std::size_t j = 0;
    for (; j + 4 <= n; j += 4) acc = Ops::MaxAbsBits(acc, Ops::Load(v + j));
    float m = Ops::MaxLane(acc);
    for (; j < n; ++j) m = MaxAbsScalar(m, v[j]);
    return m;
  }
  // The larger of m and |v| by their bits, so a NaN (above +Inf) wins as in the vector lanes.
  static float MaxAbsScalar(float m, float v) {
    const std::uint32_t a = FloatBits(v) & 0x7fffffffu;
    return a > FloatBits(m) ? BitsFloat(a) : m;
  }

  // ---- the residual add of a fused call

  // One row's h = (x + r) + bias on its own: AddNext's formation, without the sums.
  static void Add(const void* x, const void* r, const float* bias, void* h, std::size_t d) {
    AddNext add{static_cast<const T*>(x), static_cast<const T*>(r), bias, static_cast<T*>(h)};
    for (std::size_t j = 0; j + 8 <= d; j += 8) {
      F32 h0, h1;
      add.Form(&h0, &h1);
    }
    add.FormTail(d & 7);
  }

  // ---- entry points: the gain/bias specialization is picked once per row

  template <class Next>
  static void CentredWith(const RowParams& p, const void* xv, void* yv, std::size_t d, Next next,
                          double* sum, double* squares) {
    const T* x = static_cast<const T*>(xv);
    T* y = static_cast<T*>(yv);
    // (A bias without a gain, which no model has, takes the wide path: plan.h.)
    if (p.gamma && p.beta) return CentredFast<true, true>(p, x, y, d, next, sum, squares);
    if (p.gamma) return CentredFast<true, false>(p, x, y, d, next, sum, squares);
    return CentredFast<false, false>(p, x, y, d, next, sum, squares);
  }
  template <class Next>
  static void UncentredWith(const RowParams& p, const void* xv, void* yv, std::size_t d, Next next,
                            double* squares) {
    const T* x = static_cast<const T*>(xv);
    T* y = static_cast<T*>(yv);
    if (p.gamma) return UncentredFast<true>(p, x, y, d, next, squares);
    return UncentredFast<false>(p, x, y, d, next, squares);
  }

  static void CentredFastRow(const RowParams& p, const void* x, void* y, std::size_t d) {
    CentredWith(p, x, y, d, NoNext{}, nullptr, nullptr);
  }
  static void CentredFastNextRow(const RowParams& p, const void* x, void* y, std::size_t d,
                                 const void* xn, double* sum, double* squares) {
    CentredWith(p, x, y, d, SumNext{static_cast<const T*>(xn)}, sum, squares);
  }
  static void UncentredFastRow(const RowParams& p, const void* x, void* y, std::size_t d) {
    UncentredWith(p, x, y, d, NoNext{}, nullptr);
  }
  static void UncentredFastNextRow(const RowParams& p, const void* x, void* y, std::size_t d,
                                   const void* xn, double* squares) {
    UncentredWith(p, x, y, d, SumNext{static_cast<const T*>(xn)}, squares);
  }
  // The next row of a fused call: h = (xn + rn) + bias formed into hn while this row is written.
  static void CentredFastAddNextRow(const RowParams& p, const void* x, void* y, std::size_t d,
                                    const T* xn, const T* rn, const float* bias, T* hn, double* sum,
                                    double* squares) {
    CentredWith(p, x, y, d, AddNext{xn, rn, bias, hn}, sum, squares);
  }
  static void UncentredFastAddNextRow(const RowParams& p, const void* x, void* y, std::size_t d,
                                      const T* xn, const T* rn, const float* bias, T* hn,
                                      double* squares) {
    UncentredWith(p, x, y, d, AddNext{xn, rn, bias, hn}, squares);
  }
  static void CentredWideRow(const RowParams& p, const void* x, void* y, std::size_t d) {
    Wide<true>(p, static_cast<const T*>(x), static_cast<T*>(y), d);
  }
  static void UncentredWideRow(const RowParams& p, const void* x, void* y, std::size_t d) {
    Wide<false>(p, static_cast<const T*>(x), static_cast<T*>(y), d);
  }
};

}  // namespace layernorm::kernels

#endif  // LAYERNORM_KERNELS_ROW_UKERNELS_H_
