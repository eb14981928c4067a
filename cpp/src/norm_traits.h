// The facts of each named norm, in one table: the schedule, the moments (plan.h), the operator's
// checks and the reference read a norm's facts from here, and nothing else in the core decides by
// a norm's name. A Norm made by NormOf() (layernorm.h) carries its facts in its bits instead.
#ifndef LAYERNORM_NORM_TRAITS_H_
#define LAYERNORM_NORM_TRAITS_H_

#include "kernels/inline.h"
#include "layernorm/layernorm.h"

namespace layernorm::detail {

// Indexed by Norm: web/src/norms.ts states the same facts for the same norms.
constexpr NormTraits kNormTraits[] = {
    /* kLayerNorm */ {true, MomentDivisor::kWidth, true},
    /* kRmsNorm */ {false, MomentDivisor::kWidth, false},
};
constexpr int kNamedNorms = static_cast<int>(sizeof(kNormTraits) / sizeof(kNormTraits[0]));
constexpr int kFactsTag = 0x100;  // NormOf()'s marker; the three bits below it are the facts

// The facts of `norm`; false when it is no Norm (out of range, or a bias without centring, which
// no kernel computes).
LAYERNORM_INLINE constexpr bool FindTraits(Norm norm, NormTraits* traits) {
  const int code = static_cast<int>(norm);
  if (code >= 0 && code < kNamedNorms) {
    *traits = kNormTraits[code];
    return true;
  }
  if ((code & ~7) != kFactsTag) return false;
  const NormTraits t{(code & 1) != 0, (code & 2) ? MomentDivisor::kOne : MomentDivisor::kWidth,
                     (code & 4) != 0};
  if (t.bias && !t.centred) return false;
  *traits = t;
  return true;
}

// The facts of a norm Validate() has accepted. Both are inlined: as calls of their own (which -Os
// made them) the struct came back through memory, on the path of every one-row call.
LAYERNORM_INLINE constexpr NormTraits TraitsOf(Norm norm) {
  NormTraits t{true, MomentDivisor::kWidth, true};
  FindTraits(norm, &t);
  return t;
}

// What the moment multiplies the row's (centred) sum of squares by: 1 / d (inv_d), or 1.
LAYERNORM_INLINE double InverseDivisor(const NormTraits& t, double inv_d) {
  return t.divisor == MomentDivisor::kWidth ? inv_d : 1.0;
}

}  // namespace layernorm::detail

#endif  // LAYERNORM_NORM_TRAITS_H_
