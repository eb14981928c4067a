// The operator's check of a call (operator.cc), for every entry point that takes a NormCall.
// Each entry point validates a copy of its call in which y is what it writes and the pointers it
// does not write are cleared, so a misuse gets the same Status everywhere it applies.
#ifndef LAYERNORM_VALIDATE_H_
#define LAYERNORM_VALIDATE_H_

#include "layernorm/layernorm.h"

namespace layernorm::detail {

// The call's first problem in a fixed order (enums, width, eps, size, then the arrays), or kOk.
Status Validate(const NormCall& call);

}  // namespace layernorm::detail

#endif  // LAYERNORM_VALIDATE_H_
