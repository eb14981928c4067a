// The operator's check of a call (operator.cc), for every entry point that takes a NormCall.
// Each entry point validates a copy of its call in which y is what it writes and the pointers it
// does not write are cleared, so a misuse gets the same Status everywhere it applies.
//
// The public entry points (layernorm.h) are Validate followed by the *Validated one here. The wasm
// bindings call the *Validated ones directly: the TypeScript façade checks every rule Validate
// checks, with messages of its own, before a call reaches the module
// (tests/errors/core-rules.test.ts names the test of each), so checking again per chunk would only
// cost time and module bytes. What only the run can tell (kOutOfMemory) they still return.
#ifndef LAYERNORM_VALIDATE_H_
#define LAYERNORM_VALIDATE_H_

#include "layernorm/layernorm.h"

namespace layernorm::detail {

// The call's first problem in a fixed order (enums, width, eps, size, then the arrays), or kOk.
Status Validate(const NormCall& call);

// Normalize(), Statistics() and Stages() for a call that passes their checks.
Status NormalizeValidated(const NormCall& call, const Kernel* kernel);
Status StatisticsValidated(const NormCall& call, RowStats* stats, const Kernel* kernel);
Status StagesValidated(const NormCall& call, RowStats* stats, const RowStages& stages);

}  // namespace layernorm::detail

#endif  // LAYERNORM_VALIDATE_H_
