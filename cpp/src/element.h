// One element of activations in any of the element types, one value at a time: the operator's
// stages, the reference and the tests read and round values through these, so they cannot disagree
// on what "the value the type holds" is.
#ifndef LAYERNORM_ELEMENT_H_
#define LAYERNORM_ELEMENT_H_

#include <cstddef>
#include <cstdint>

#include "kernels/half.h"
#include "layernorm/layernorm.h"

namespace layernorm::detail {

// Element i of activations of type t at p, widened exactly to float32.
inline float WidenAt(DType t, const void* p, std::size_t i) {
  switch (t) {
    case DType::kFloat16:
      return kernels::F16ToF32(static_cast<const std::uint16_t*>(p)[i]);
    case DType::kBFloat16:
      return kernels::BF16ToF32(static_cast<const std::uint16_t*>(p)[i]);
    case DType::kFloat32:
      break;
  }
  return static_cast<const float*>(p)[i];
}

// A float32 value rounded to the type and widened back (the value the type holds).
inline float RoundTo(DType t, float v) {
  switch (t) {
    case DType::kFloat16:
      return kernels::F16ToF32(kernels::F32ToF16(v));
    case DType::kBFloat16:
      return kernels::BF16ToF32(kernels::F32ToBF16(v));
    case DType::kFloat32:
      break;
  }
  return v;
}

}  // namespace layernorm::detail

#endif  // LAYERNORM_ELEMENT_H_
