// The order in which rows go through the row micro-kernels: each fast row is written while the
// next row is summed (the output loop is bound by stores and the sums by float64 conversions,
// which run on different execution ports, and the next row's loads start while this row's stores
// drain: measured 12-20% faster at 1024-16384 rows than two loops per row), and from 32 rows on
// the two halves of the call take turns. The pipelined sums are the same operations in the same
// order as the standalone ones, so the statistics, and every output, are those of one row at a
// time.
//
// This is the operator's scheduling, written once; it is instantiated with each instruction set's
// micro-kernels (kernels/row_ukernels.h) rather than calling them through pointers, because a call
// per row through a pointer, and the inlining it prevents, measured 4-5% slower at [1024 x 768].
#ifndef LAYERNORM_SCHEDULE_H_
#define LAYERNORM_SCHEDULE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "kernels/inline.h"
#include "kernels/io.h"
#include "kernels/row_ukernels.h"
#include "layernorm/layernorm.h"
#include "plan.h"

namespace layernorm::detail {

// A fused float16 / bfloat16 call forms h a block of rows at a time (at least one row), then
// normalizes the block while it is still in L1.
constexpr std::size_t kResidualBlockBytes = 16 * 1024;
constexpr std::size_t ResidualBlockRows(std::size_t row_bytes) {
  return std::max<std::size_t>(1, kResidualBlockBytes / row_bytes);
}

// U: a RowUkernels<Ops, Io> (its static micro-kernels and element type).
template <class U>
struct Schedule {
  using T = typename U::T;

  // A norm's facts as the rows use them: which moments and row kernels, and the divisor's scalar.
  struct Facts {
    bool centred;
    double inv_d;
    double inv_div;
    double eps;
  };
  // Inlined, with one division: as a call of its own it was one more call, and a struct through
  // memory, for every run of rows.
  LAYERNORM_INLINE static Facts FactsOf(const NormCall& c) {
    const NormTraits t = TraitsOf(c.norm);
    const double inv_d = InverseWidth(c.d);
    return {t.centred, inv_d, InverseDivisor(t, inv_d), c.eps};
  }

  LAYERNORM_INLINE static Moments FromSums(const Facts& f, std::size_t d, const T* row, double s1,
                                           double s2) {
    if (!f.centred) return UncentredMoments(f.inv_div, f.eps, s2);
    return CentredMoments(&U::template Sums<true>, row, d, f.inv_d, f.inv_div, f.eps, s1, s2);
  }

  // The places that run once per call or per run (the first row, a row that cannot be pipelined,
  // Statistics()) take the moments through functions of their own, shared by every element type
  // where they can be; the pipelined step inlines FromSums. A copy in each of those places cost
  // ~3 kB of module, against the page's 250 KB first load.
  static Moments FromSumsOnce(const Facts& f, std::size_t d, const T* row, double s1, double s2) {
    if (!f.centred) return UncentredMoments(f.inv_div, f.eps, s2);
    return CentredMomentsOnce(&U::template Sums<true>, row, d, f.inv_d, f.inv_div, f.eps, s1, s2);
  }

  static Moments RowMomentsOnce(const Facts& f, std::size_t d, const T* row) {
    double s1 = 0.0, s2;
    if (f.centred) {
      U::template Sums<false>(row, d, 0.0, &s1, &s2);
    } else {
      U::Squares(row, d, &s2);
    }
    return FromSumsOnce(f, d, row, s1, s2);
  }

  // The first row of a call with a gain: its moments, and from the same pass whether the gain is
  // too large for the fast path (plan.h, GainMayOverflow). The gain's loads and integer maxima use
  // ports the float64 sums leave idle, where a pass of its own cost a one-row call 20%.
  static Moments FirstRowMoments(const Facts& f, const float* gamma, const T* row, std::size_t d,
                                 bool* wide_gain) {
    double s1, s2;
    float max_abs_gain;
    if (f.centred) {
      U::template SumsAndMaxAbs<true>(row, d, gamma, &s1, &s2, &max_abs_gain);
    } else {
      U::template SumsAndMaxAbs<false>(row, d, gamma, &s1, &s2, &max_abs_gain);
    }
    *wide_gain = GainMayOverflow(f.centred, max_abs_gain, d);
    return FromSumsOnce(f, d, row, s1, s2);
  }

  // A float16 / bfloat16 row is widened first and summed as float32 (the same values in the same
  // order: the same bits), like the rows Normalize stages: the 16-bit types then need no sums of
  // their own, 3 kB of module. Statistics() provides c.scratch for rows wider than the stack's.
  static Moments Statistics(const NormCall& c, const void* row) {
    const Facts f = FactsOf(c);
    if constexpr (std::is_same_v<T, float>) {
      return RowMomentsOnce(f, c.d, static_cast<const T*>(row));
    } else {
      using F32 = kernels::RowUkernels<typename U::Isa, kernels::F32Io<typename U::Isa>>;
      alignas(16) float stage[kernels::kStageFloats];
      float* widened = c.d <= kernels::kStageFloats ? stage : c.scratch;
      U::Widen(static_cast<const T*>(row), widened, c.d);
      return Schedule<F32>::RowMomentsOnce({f.centred, f.inv_d, f.inv_div, f.eps}, c.d, widened);
    }
  }

  // True when the ranges [a, a + n) and [b, b + n) share no element.
  static bool DoNotOverlap(const T* a, const T* b, std::size_t n) {
    const auto ia = reinterpret_cast<std::uintptr_t>(a), ib = reinterpret_cast<std::uintptr_t>(b);
    const std::size_t bytes = n * sizeof(T);
    return ia + bytes <= ib || ib + bytes <= ia;
  }

  // Where a fused call's rows come from: x and r, added into h, which is what gets normalized.
  struct Residual {
    const T* x;
    const T* r;
    T* h;
  };

  // A run of consecutive rows, normalized one row per Step. With kResidual, row i is first formed
  // as h = (x + r) + bias (the next row's while this one is written, like the sums). Everything a
  // row needs of the call is copied in here, and every per-row step is inlined into Step: a row of
  // 768 takes ~700 cycles, and calls and reloads between rows measured 6-8% of that.
  template <bool kResidual>
  class RowRun {
   public:
    RowRun(const NormCall& c, const T* x, T* y, std::size_t first, std::size_t rows,
           Residual in = {})
        : x_(kResidual ? in.h : x),
          y_(y),
          in_(in),
          left_(rows),
          d_(c.d),
          facts_(FactsOf(c)),
          gamma_(c.gamma),
          beta_(c.beta),
          bias_(c.bias),
          mean_(c.mean ? c.mean + first : nullptr),
          rstd_(c.rstd ? c.rstd + first : nullptr) {
      if (rows == 0) return;
      if constexpr (kResidual) U::Add(in_.x, in_.r, bias_, in_.h, d_);
      if (gamma_) {
        Plan(FirstRowMoments(facts_, gamma_, x_, d_, &wide_gain_));
      } else {
        Plan(RowMomentsOnce(facts_, d_, x_));
      }
    }

    bool done() const { return left_ == 0; }

    void Step() {
      const std::size_t d = d_;
      const T* next = x_ + d;
      const bool has_next = left_ > 1;
      const kernels::RowParams& p = plan_.params;
      // The pipelined loop reads (or forms) the next row while it writes this one, so the two
      // must be apart: always true in place and for the disjoint buffers layernorm.h requires.
      if (plan_.mode == RowMode::kFast && has_next && Apart(next)) {
        double s1 = 0.0, s2;
        if constexpr (kResidual) {
          const T* xn = in_.x + d;
          const T* rn = in_.r + d;
          T* hn = in_.h + d;
          if (facts_.centred) {
            U::CentredFastAddNextRow(p, x_, y_, d, xn, rn, bias_, hn, &s1, &s2);
          } else {
            U::UncentredFastAddNextRow(p, x_, y_, d, xn, rn, bias_, hn, &s2);
          }
        } else if (facts_.centred) {
          U::CentredFastNextRow(p, x_, y_, d, next, &s1, &s2);
        } else {
          U::UncentredFastNextRow(p, x_, y_, d, next, &s2);
        }
        Advance();
        Plan(FromSums(facts_, d, x_, s1, s2));
        return;
      }
      switch (plan_.mode) {
        case RowMode::kFast:
          (facts_.centred ? U::CentredFastRow : U::UncentredFastRow)(p, x_, y_, d);
          break;
        case RowMode::kWide:
          (facts_.centred ? U::CentredWideRow : U::UncentredWideRow)(p, x_, y_, d);
          break;
        case RowMode::kNonFinite:
          for (std::size_t j = 0; j < d; ++j)
            U::Io::Put(y_ + j, std::numeric_limits<float>::quiet_NaN());
          break;
      }
      Advance();
      if (!has_next) return;
      if constexpr (kResidual) U::Add(in_.x, in_.r, bias_, in_.h, d);
      Plan(RowMomentsOnce(facts_, d, x_));
    }

   private:
    LAYERNORM_INLINE bool Apart(const T* next) const {
      const std::size_t d = d_;
      if constexpr (kResidual) {
        // The next row's x, r and h against this row's output, and its h against this row's h.
        return DoNotOverlap(y_, in_.x + d, d) && DoNotOverlap(y_, in_.r + d, d) &&
               DoNotOverlap(y_, in_.h + d, d) && DoNotOverlap(x_, in_.h + d, d);
      }
      return DoNotOverlap(y_, next, d);
    }

    void Plan(const Moments& m) {
      if (mean_) *mean_++ = MeanOf(m);
      if (rstd_) *rstd_++ = m.rstd;
      plan_ = PlanRow(facts_.centred, m, gamma_, beta_, wide_gain_);
    }

    LAYERNORM_INLINE void Advance() {
      x_ += d_;
      y_ += d_;
      if constexpr (kResidual) {
        in_.x += d_;
        in_.r += d_;
        in_.h += d_;
      }
      --left_;
    }

    const T* x_;  // the row normalized: x, or h
    T* y_;
    Residual in_;
    std::size_t left_;
    const std::size_t d_;
    const Facts facts_;
    const float* const gamma_;
    const float* const beta_;
    const float* const bias_;
    double* mean_;  // this run's next row's statistics outputs (null: not asked for)
    double* rstd_;

    bool wide_gain_ = false;  // set with the first row
    RowPlan plan_;            // (set by the constructor for the first row: no zeroing per call)
  };

  // From this many rows on, the two halves are normalized as two runs taking turns row by row.
  // Two read and two write streams keep more memory requests in flight than one (the hardware
  // prefetchers follow each stream on its own and stop at every 4 KiB page): measured 4-8%
  // faster at 1024-16384 rows of 768. Rows are independent, so the order changes no result.
  static constexpr std::size_t kTwoRunsMinRows = 32;

  // Rows [first, first + rows) of a call, from x into y (the call's own, or its residual sum h
  // and y). Writes the call's mean / rstd for those rows when it asks for them. float16 /
  // bfloat16 rows are staged through float32 (kernels::kStageFloats says why).
  static void NormalizeRows(const NormCall& c, const void* xv, void* yv, std::size_t first,
                            std::size_t rows) {
    const T* x = static_cast<const T*>(xv);
    T* y = static_cast<T*>(yv);
    if constexpr (std::is_same_v<T, float>) {
      Direct(c, x, y, first, rows);
    } else if (c.d <= kernels::kStageFloats) {
      alignas(16) float stage[kernels::kStageFloats];
      Staged(c, x, y, first, rows, stage, kernels::kStageFloats);
    } else {
      Staged(c, x, y, first, rows, c.scratch, c.d);  // Normalize() provides it for wide rows
    }
  }

  static void Staged(const NormCall& c, const T* x, T* y, std::size_t first, std::size_t rows,
                     float* stage, std::size_t stage_floats) {
    using F32 = kernels::RowUkernels<typename U::Isa, kernels::F32Io<typename U::Isa>>;
    const std::size_t block = stage_floats / c.d;
    for (std::size_t r = 0; r < rows; r += block) {
      const std::size_t n = std::min(block, rows - r) * c.d;
      U::Widen(x + r * c.d, stage, n);
      Schedule<F32>::Direct(c, stage, stage, first + r, n / c.d);
      U::Narrow(stage, y + r * c.d, n);
    }
  }

  template <bool kResidual = false>
  static void Direct(const NormCall& c, const T* x, T* y, std::size_t first, std::size_t rows,
                     Residual in = {}) {
    if (rows < kTwoRunsMinRows) {
      RowRun<kResidual> run(c, x, y, first, rows, in);
      while (!run.done()) run.Step();
      return;
    }
    const std::size_t half = rows / 2, offset = half * c.d;
    Residual second{};  // (offset only when there is one: in's pointers are null otherwise)
    if constexpr (kResidual) second = {in.x + offset, in.r + offset, in.h + offset};
    RowRun<kResidual> a(c, x, y, first, half, in);
    RowRun<kResidual> b(c, x + offset, y + offset, first + half, rows - half, second);
    while (!a.done()) {
      a.Step();
      b.Step();
    }
    while (!b.done()) b.Step();
  }

  // Rows [first, first + rows) of a fused call: h = (x + r) + bias formed into h (the call's
  // sum_out, or y) and normalized into y. float32 forms each row while the one before it is
  // written; float16 / bfloat16 form a block of rows, then normalize it as staged rows.
  static void NormalizeResidualRows(const NormCall& c, const void* xv, const void* rv, void* hv,
                                    void* yv, std::size_t first, std::size_t rows) {
    const T* x = static_cast<const T*>(xv);
    const T* r = static_cast<const T*>(rv);
    T* h = static_cast<T*>(hv);
    T* y = static_cast<T*>(yv);
    if constexpr (std::is_same_v<T, float>) {
      Direct<true>(c, h, y, first, rows, {x, r, h});
    } else {
      const std::size_t d = c.d, block = ResidualBlockRows(d * sizeof(T));
      for (std::size_t b = 0; b < rows; b += block) {
        const std::size_t n = std::min(block, rows - b), at = b * d;
        for (std::size_t i = at; i < at + n * d; i += d) U::Add(x + i, r + i, c.bias, h + i, d);
        NormalizeRows(c, h + at, y + at, first + b, n);
      }
    }
  }
};

}  // namespace layernorm::detail

#endif  // LAYERNORM_SCHEDULE_H_
