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

template <class U>
constexpr TypeUkernels TypeTable() {
  using S = detail::Schedule<U>;
  NormalizeResidualRowsFn residual = nullptr;
  if constexpr (std::is_same_v<typename U::T, float>) residual = &S::NormalizeResidualRows;
  return {sizeof(typename U::T),
          &S::NormalizeRows,
          residual,
          &S::Statistics,
          &U::template Sums<false>,
          &U::template Sums<true>,
          &U::LayerNormFastRow,
          &U::LayerNormFastNextRow,
          &U::LayerNormWideRow,
          &U::Squares,
          &U::RmsNormFastRow,
          &U::RmsNormFastNextRow,
          &U::RmsNormWideRow,
          &U::Add};
}

template <class Ops>
constexpr Ukernels MakeUkernels() {
  return {{TypeTable<RowUkernels<Ops, F32Io<Ops>>>(), TypeTable<RowUkernels<Ops, F16Io<Ops>>>(),
           TypeTable<RowUkernels<Ops, BF16Io<Ops>>>()}};
}

}  // namespace layernorm::kernels

#endif  // LAYERNORM_KERNELS_MAKE_UKERNELS_H_
