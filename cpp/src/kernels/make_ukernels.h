// One instruction set's table of micro-kernels, for the three element types: the row micro-kernels
// and the operator's row schedule instantiated with them.
#ifndef LAYERNORM_KERNELS_MAKE_UKERNELS_H_
#define LAYERNORM_KERNELS_MAKE_UKERNELS_H_

#include <type_traits>

#include "kernels/io.h"
#include "kernels/row_ukernels.h"
#include "kernels/ukernels.h"
#include "schedule.h"

namespace layernorm::kernels {

// float32 has every micro-kernel; the 16-bit types are staged through float32 (src/schedule.h),
// so they need only their conversions, statistics and residual add.
template <class U>
constexpr TypeUkernels TypeTable() {
  using S = detail::Schedule<U>;
  TypeUkernels t{};
  t.element_size = sizeof(typename U::T);
  t.normalize_rows = &S::NormalizeRows;
  t.statistics = &S::Statistics;
  t.sums = &U::template Sums<false>;
  t.sums_shifted = &U::template Sums<true>;
  t.squares = &U::Squares;
  t.add = &U::Add;
  if constexpr (std::is_same_v<typename U::T, float>) {
    t.normalize_residual_rows = &S::NormalizeResidualRows;
    t.layernorm_fast = &U::LayerNormFastRow;
    t.layernorm_fast_next = &U::LayerNormFastNextRow;
    t.layernorm_wide = &U::LayerNormWideRow;
    t.rmsnorm_fast = &U::RmsNormFastRow;
    t.rmsnorm_fast_next = &U::RmsNormFastNextRow;
    t.rmsnorm_wide = &U::RmsNormWideRow;
  }
  return t;
}

template <class Ops>
constexpr Ukernels MakeUkernels() {
  return {{TypeTable<RowUkernels<Ops, F32Io<Ops>>>(), TypeTable<RowUkernels<Ops, F16Io<Ops>>>(),
           TypeTable<RowUkernels<Ops, BF16Io<Ops>>>()}};
}

}  // namespace layernorm::kernels

#endif  // LAYERNORM_KERNELS_MAKE_UKERNELS_H_
