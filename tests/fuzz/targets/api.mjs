// The `api` fuzz target: every argument of every numeric entry point, of any type, including views
// of wasm memory (a WasmTensor's `view`: float32, 16-bit and float64 views) and calls during which
// wasm memory grows; the options of issue 14 too (residual, bias, sumOut, mean, rstd, dtype, 16-bit
// activations, layerNormalization's shape / axis / Scale / B, the half-bit helpers). Each call either
//   - throws one of the library's own errors with a message of the catalogue (web/docs/errors.md):
//     the type the rule gives (a number out of bounds: RangeError; not a number: TypeError), naming
//     the function that was called; or
//   - returns exactly what the same call returns on plain copies of its arguments (which also
//     must not throw), bit for bit, and leaves the same values in the options it writes (sumOut,
//     mean, rstd); where views of wasm memory make two outputs share memory, as copies cannot,
//     the call may instead refuse them with the catalogue's error for that;
// and either way the wasm heap ends exactly where it started and the runtime still computes the
// same result for a probe. Engine errors ("Cannot read properties of undefined", detached buffers,
// stack overflow) are failures.
//
// It runs on runtimes of its own (tests/helpers/heap-growth.mjs): a call marked `grow` runs with
// every allocation growing wasm memory, and once memory passes MEMORY_BUDGET the runtime is
// replaced by a fresh one, so growth can be exercised without limit.
//
// The pieces live in tests/fuzz/api/: calls.mjs and values.mjs generate the calls, catalogue.mjs
// holds the accepted errors, context.mjs the runtime, invoke.mjs runs a call, checks.mjs judges it.
import fc from 'fast-check';
import { checkApiCall } from '../api/checks.mjs';
import { apiCallArbitrary } from '../api/calls.mjs';
import { ApiContext } from '../api/context.mjs';

/** The target, as { name, async, property(), counts } for fc.assert / fc.check. */
export function apiTarget() {
  const ctx = new ApiContext();
  return {
    name: 'api',
    async: true,
    property: () => fc.asyncProperty(apiCallArbitrary(), (call) => checkApiCall(ctx, call)),
    counts: ctx.counts,
  };
}
