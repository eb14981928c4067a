// One instruction set's table of micro-kernels (ukernels.h), for the three element types: the
// operator's row schedule instantiated with that set's row micro-kernels.
#ifndef LAYERNORM_KERNELS_MAKE_UKERNELS_H_
#define LAYERNORM_KERNELS_MAKE_UKERNELS_H_

#include <type_traits>

#include "kernels/io.h"
#include "kernels/row_ukernels.h"
#include "kernels/ukernels.h"
#include "schedule.h"

namespace layernorm::kernels {

// Every type gets the row schedule (src/schedule.h) and its statistics. The 16-bit types are
// staged through float32 and reach the row micro-kernels only through their schedule, so only the
// float32 table holds the micro-kernels themselves, for Stages() (which widens the row first).
template <class U>
constexpr TypeUkernels TypeTable() {
  using S = detail::Schedule<U>;
  TypeUkernels t{};
  t.normalize_rows = &S::NormalizeRows;
  t.normalize_residual_rows = &S::NormalizeResidualRows;
  t.statistics = &S::Statistics;
  if constexpr (std::is_same_v<typename U::T, float>) {
    t.centred_fast = &U::CentredFastRow;
    t.centred_wide = &U::CentredWideRow;
    t.uncentred_fast = &U::UncentredFastRow;
    t.uncentred_wide = &U::UncentredWideRow;
    t.add = &U::Add;
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
