// The rows R1–R28 of web/docs/errors.md: RMSNorm, the fused residual, the statistics outputs,
// 16-bit activations, layerNormalization and the half-bit helpers. Cases as in numeric.mjs.
import { DETACHED, DTYPES, LOOKALIKE, NO_DTYPE, andThen } from './values.mjs';
import { oneOf } from '../../../dist/checks/rules.js';
import { NORM_KINDS } from '../../../dist/norms.js';

// The kinds of norm, as R28 lists them: a norm added to the table is in its message.
const KINDS = oneOf(NORM_KINDS);

const MAIN = { on: 'main' };
const FLOAT16 = { needs: 'Float16Array' };

/** forwardTensor of new tensors of these dtypes on `norm`, every one disposed afterwards. */
function forwardTensors(c, norm, input, output) {
  const a = c.t.allocate(4, 3, { dtype: input });
  const b = c.t.allocate(4, 3, { dtype: output });
  try {
    return norm.forwardTensor(a, b);
  } finally {
    for (const r of [a, b, norm]) r.dispose();
  }
}

// prettier-ignore
export const NORM_CASES = [
  ['R1', 'layerNorm of a Uint16Array without dtype', (c) => c.t.layerNorm(c.u(), 3), 'TypeError', `layerNorm: ${NO_DTYPE}`],
  ['R1', 'layerNorm of a Uint16Array with dtype float32', (c) => c.t.layerNorm(c.u(), 3, { dtype: 'float32' }), 'TypeError', `layerNorm: ${NO_DTYPE}, got dtype 'float32'`],
  ['R1', 'layerNormStats of a Uint16Array without dtype', (c) => c.t.layerNormStats(c.u(), 3), 'TypeError', `layerNormStats: ${NO_DTYPE}`],
  ['R1', 'rmsNormStages of a Uint16Array without dtype', (c) => c.t.rmsNormStages(c.u(), 3, 0), 'TypeError', `rmsNormStages: ${NO_DTYPE}`],
  ['R1', 'layerNormalization of a Uint16Array without dtype', (c) => c.t.layerNormalization(c.u(), [4, 3]), 'TypeError', `layerNormalization: ${NO_DTYPE}`],
  ['R1', 'layerNormReference of a Uint16Array without dtype', (c) => c.pkg.layerNormReference(c.u(), 3), 'TypeError', `layerNormReference: ${NO_DTYPE}`, MAIN],
  ['R2', 'a Float32Array with dtype float16', (c) => c.t.layerNorm(c.x(), 3, { dtype: 'float16' }), 'TypeError', "layerNorm: dtype 'float16' needs x as a Float16Array or a Uint16Array of its bits, got a Float32Array"],
  ['R2', 'rmsNorm of a Float32Array with dtype float16', (c) => c.t.rmsNorm(c.x(), 3, { dtype: 'float16' }), 'TypeError', "rmsNorm: dtype 'float16' needs x as a Float16Array or a Uint16Array of its bits, got a Float32Array"],
  ['R2', 'a Float32Array with dtype bfloat16', (c) => c.t.rmsNorm(c.x(), 3, { dtype: 'bfloat16' }), 'TypeError', "rmsNorm: dtype 'bfloat16' needs x as a Uint16Array of its bits, got a Float32Array"],
  ['R2', 'a Float16Array with dtype bfloat16', (c) => c.t.layerNorm(new c.Float16Array(12), 3, { dtype: 'bfloat16' }), 'TypeError', "layerNorm: x is a Float16Array, whose values are float16, got dtype 'bfloat16'", FLOAT16],
  ['R3', 'dtype "fp16"', (c) => c.t.layerNorm(c.x(), 3, { dtype: 'fp16' }), 'TypeError', `layerNorm: ${DTYPES}, got string "fp16"`],
  ['R3', 'dtype null', (c) => c.t.layerNorm(c.x(), 3, { dtype: null }), 'TypeError', `layerNorm: ${DTYPES}, got null`],
  ['R3', 'createRmsNorm dtype 16', (c) => c.t.createRmsNorm(3, { dtype: 16 }), 'TypeError', `createRmsNorm: ${DTYPES}, got number 16`],
  ['R3', 'allocate dtype "int8"', (c) => c.t.allocate(1, 3, { dtype: 'int8' }), 'TypeError', `allocate: ${DTYPES}, got string "int8"`, MAIN],
  ['R4', 'out a Uint16Array for a Float32Array x', (c) => c.t.layerNorm(c.x(), 3, { out: c.u16(12) }), 'TypeError', 'layerNorm: out must be a Float32Array, got Uint16Array(12)'],
  ['R4', 'residual a Float32Array for float16 bits', (c) => c.t.layerNorm(c.u(), 3, { dtype: 'float16', residual: c.f32(12) }), 'TypeError', 'layerNorm: residual must be a Uint16Array like x (float16), got Float32Array(12)'],
  ['R4', 'sumOut a Float64Array', (c) => c.t.rmsNorm(c.x(), 3, { residual: c.x(), sumOut: c.f64(12) }), 'TypeError', 'rmsNorm: sumOut must be a Float32Array, got Float64Array(12)'],
  ['R4', 'a stages residual of another kind', (c) => c.t.layerNormStages(c.x(), 3, 0, { residual: c.u16(12) }), 'TypeError', 'layerNormStages: residual must be a Float32Array, got Uint16Array(12)'],
  ['R5', 'residual of 9 values', (c) => c.t.layerNorm(c.x(), 3, { residual: c.f32(9) }), 'RangeError', 'layerNorm: residual must have length 12 (the same as x), got length 9'],
  ['R5', 'rmsNorm with a residual of 9 values', (c) => c.t.rmsNorm(c.x(), 3, { residual: c.f32(9) }), 'RangeError', 'rmsNorm: residual must have length 12 (the same as x), got length 9'],
  ['R5', 'sumOut of 24 values', (c) => c.t.rmsNorm(c.x(), 3, { residual: c.x(), sumOut: c.f32(24) }), 'RangeError', 'rmsNorm: sumOut must have length 12 (the same as x), got length 24'],
  ['R6', 'bias without residual', (c) => c.t.layerNorm(c.x(), 3, { bias: c.f32(3) }), 'TypeError', 'layerNorm: bias is added with the residual: pass residual too (got bias Float32Array(3) alone)'],
  ['R6', 'sumOut without residual', (c) => c.t.rmsNorm(c.x(), 3, { sumOut: c.f32(12) }), 'TypeError', 'rmsNorm: sumOut receives x + residual: pass residual too (got sumOut Float32Array(12) alone)'],
  ['R6', 'stages bias without residual', (c) => c.t.layerNormStages(c.x(), 3, 0, { bias: c.f32(3) }), 'TypeError', 'layerNormStages: bias is added with the residual: pass residual too (got bias Float32Array(3) alone)'],
  ['R7', 'bias a Float64Array', (c) => c.t.layerNorm(c.x(), 3, { residual: c.x(), bias: c.f64(3) }), 'TypeError', 'layerNorm: bias must be a Float32Array, got Float64Array(3)'],
  ['R7', 'bias of 2 values', (c) => c.t.layerNorm(c.x(), 3, { residual: c.x(), bias: c.f32(2) }), 'RangeError', 'layerNorm: bias must have length d = 3, got length 2'],
  ['R8', 'sumOut = out', (c) => { const out = c.f32(12); return c.t.layerNorm(c.x(), 3, { residual: c.x(), sumOut: out, out }); }, 'RangeError', 'layerNorm: sumOut and out must not share memory (both are outputs)'],
  ['R8', 'sumOut overlapping out by one value', (c) => { const b = c.f32(23); return c.t.rmsNorm(c.x(), 3, { residual: c.x(), sumOut: b.subarray(0, 12), out: b.subarray(11) }); }, 'RangeError', 'rmsNorm: sumOut and out must not share memory (both are outputs)'],
  ['R9', 'rmsNorm with beta', (c) => c.t.rmsNorm(c.x(), 3, { beta: c.f32(3) }), 'TypeError', 'rmsNorm: RMSNorm has no bias term, so no beta option; got beta Float32Array(3)'],
  ['R9', 'createRmsNorm with beta', (c) => c.t.createRmsNorm(3, { beta: c.f32(3) }), 'TypeError', 'createRmsNorm: RMSNorm has no bias term, so no beta option; got beta Float32Array(3)'],
  ['R9', 'rmsNormStages with beta', (c) => c.t.rmsNormStages(c.x(), 3, 0, { beta: c.f32(3) }), 'TypeError', 'rmsNormStages: RMSNorm has no bias term, so no beta option; got beta Float32Array(3)'],
  ['R9', 'rmsNormReference with beta', (c) => c.pkg.rmsNormReference(c.x(), 3, { beta: c.f32(3) }), 'TypeError', 'rmsNormReference: RMSNorm has no bias term, so no beta option; got beta Float32Array(3)', MAIN],
  ['R10', 'rmsNorm with mean', (c) => c.t.rmsNorm(c.x(), 3, { mean: c.f64(4) }), 'TypeError', 'rmsNorm: RMSNorm has no mean, so no mean option; got mean Float64Array(4)'],
  ['R11', 'mean a Float32Array', (c) => c.t.layerNorm(c.x(), 3, { mean: c.f32(4) }), 'TypeError', 'layerNorm: mean must be a Float64Array (one entry per row), got Float32Array(4)'],
  ['R11', 'rstd an Array', (c) => c.t.rmsNorm(c.x(), 3, { rstd: [1, 2, 3, 4] }), 'TypeError', 'rmsNorm: rstd must be a Float64Array (one entry per row), got Array(4)'],
  ['R11', 'mean a Proxy of a Float64Array', (c) => c.t.layerNorm(c.x(), 3, { mean: new Proxy(c.f64(4), {}) }), 'TypeError', `layerNorm: mean must be a Float64Array, ${LOOKALIKE('Float64Array')}`],
  ['R11', 'rstd on a detached buffer', (c) => c.t.layerNorm(c.x(), 3, { rstd: c.detached(c.f64(4)) }), 'TypeError', `layerNorm: rstd ${DETACHED} Float64Array`],
  ['R12', 'mean of 3 entries for 4 rows', (c) => c.t.layerNorm(c.x(), 3, { mean: c.f64(3) }), 'RangeError', 'layerNorm: mean must have length 4 (one entry per row), got length 3'],
  ['R12', 'rstd of 3 entries for 4 rows', (c) => c.t.layerNorm(c.x(), 3, { rstd: c.f64(3) }), 'RangeError', 'layerNorm: rstd must have length 4 (one entry per row), got length 3'],
  ['R12', 'rstd of 5 entries for 4 rows', (c) => c.t.rmsNorm(c.x(), 3, { rstd: c.f64(5) }), 'RangeError', 'rmsNorm: rstd must have length 4 (one entry per row), got length 5'],
  ['R13', 'mean and rstd the same array', (c) => { const s = c.f64(4); return c.t.layerNorm(c.x(), 3, { mean: s, rstd: s }); }, 'RangeError', 'layerNorm: mean and rstd must not share memory (both are outputs)'],
  ['R13', 'rstd in out’s memory', (c) => { const out = c.f32(12); return c.t.layerNorm(c.x(), 3, { out, rstd: new Float64Array(out.buffer, 8, 4) }); }, 'RangeError', 'layerNorm: rstd and out must not share memory (both are outputs)'],
  ['R13', 'mean in sumOut’s memory', (c) => { const sumOut = c.f32(12); return c.t.layerNorm(c.x(), 3, { residual: c.x(), sumOut, mean: new Float64Array(sumOut.buffer, 0, 4) }); }, 'RangeError', 'layerNorm: mean and sumOut must not share memory (both are outputs)'],
  ['R14', 'a float16 LayerNorm’s forward of a Float32Array', (c) => andThen(c.t.createLayerNorm(3, { dtype: 'float16' }), (n) => n.forward(c.x())), 'TypeError', "LayerNorm.forward: dtype 'float16' needs x as a Float16Array or a Uint16Array of its bits, got a Float32Array"],
  ['R14', 'a float16 LayerNorm’s forward into a Float32Array', (c) => andThen(c.t.createLayerNorm(3, { dtype: 'float16' }), (n) => n.forward(c.u(), c.f32(12))), 'TypeError', 'LayerNorm.forward: out must be a Uint16Array like x (float16), got Float32Array(12)'],
  ['R14', 'a float32 LayerNorm’s forward of bits', (c) => andThen(c.t.createLayerNorm(3), (n) => n.forward(c.u())), 'TypeError', 'LayerNorm.forward: x must be a Float32Array, got Uint16Array(12)'],
  ['R14', 'a bfloat16 RMSNorm’s forward into a Float32Array', (c) => andThen(c.t.createRmsNorm(3, { dtype: 'bfloat16' }), (n) => n.forward(c.u(), c.f32(12))), 'TypeError', 'LayerNorm.forward: out must be a Uint16Array like x (bfloat16), got Float32Array(12)'],
  ['R15', 'forwardTensor of float16 tensors on a float32 LayerNorm', (c) => forwardTensors(c, c.t.createLayerNorm(3), 'float16', 'float32'), 'TypeError', 'LayerNorm.forwardTensor: this LayerNorm takes float32 tensors, got input float16 and output float32', MAIN],
  ['R15', 'forwardTensor into a float16 tensor on a bfloat16 RMSNorm', (c) => forwardTensors(c, c.t.createRmsNorm(3, { dtype: 'bfloat16' }), 'bfloat16', 'float16'), 'TypeError', 'LayerNorm.forwardTensor: this RMSNorm takes bfloat16 tensors, got input bfloat16 and output float16', MAIN],
  ['R16', 'shape a number', (c) => c.t.layerNormalization(c.x(), 12), 'TypeError', 'layerNormalization: shape must be an array of dimensions, got number 12'],
  ['R16', 'shape []', (c) => c.t.layerNormalization(c.x(), []), 'RangeError', 'layerNormalization: shape must have at least one dimension, got []'],
  ['R16', 'shape with a string', (c) => c.t.layerNormalization(c.x(), [3, '4']), 'TypeError', 'layerNormalization: shape[1] must be an integer >= 0, got string "4"'],
  // eslint-disable-next-line no-sparse-arrays
  ['R16', 'shape with a hole', (c) => c.t.layerNormalization(c.x(), [, 12]), 'TypeError', 'layerNormalization: shape[0] must be an integer >= 0, got undefined'],
  ['R16', 'shape with 1.5', (c) => c.t.layerNormalization(c.x(), [1.5, 8]), 'RangeError', 'layerNormalization: shape[0] must be an integer >= 0, got number 1.5'],
  ['R16', 'shape of 15 values', (c) => c.t.layerNormalization(c.x(), [3, 5]), 'RangeError', 'layerNormalization: x must have length 15 (the values of shape [3, 5]), got length 12'],
  ['R17', 'axis 2 of a rank-2 x', (c) => c.t.layerNormalization(c.x(), [3, 4], { axis: 2 }), 'RangeError', 'layerNormalization: axis must be an integer in [-2, 2) for a rank-2 x, got number 2'],
  ['R17', 'axis -3 of a rank-2 x', (c) => c.t.layerNormalization(c.x(), [3, 4], { axis: -3 }), 'RangeError', 'layerNormalization: axis must be an integer in [-2, 2) for a rank-2 x, got number -3'],
  ['R17', 'axis "1"', (c) => c.t.layerNormalization(c.x(), [3, 4], { axis: '1' }), 'TypeError', 'layerNormalization: axis must be an integer in [-2, 2) for a rank-2 x, got string "1"'],
  ['R17', 'axis null', (c) => c.t.layerNormalization(c.x(), [3, 4], { axis: null }), 'TypeError', 'layerNormalization: axis must be an integer in [-2, 2) for a rank-2 x, got null'],
  ['R18', 'normalized dimensions of no values', (c) => c.t.layerNormalization(c.f32(0), [3, 0]), 'RangeError', 'layerNormalization: the normalized dimensions [0] (axis -1) hold no values to normalize'],
  ['R18', 'normalized dimensions of more values than a row may have', (c) => c.t.layerNormalization(c.f32(0), [0, 2 ** 15, 2 ** 14], { axis: 1 }), 'RangeError', 'layerNormalization: the normalized dimensions [32768, 16384] (axis 1) hold 536870912 values, more than a row may have (268435456: one row must fit in wasm memory)'],
  ['R19', 'gamma of 3 values for 4 normalized', (c) => c.t.layerNormalization(c.x(), [3, 4], { gamma: c.f32(3) }), 'RangeError', 'layerNormalization: gamma of shape [3] does not broadcast to the normalized dimensions [4]'],
  ['R19', 'a per-row gamma [3, 4] for axis -1', (c) => c.t.layerNormalization(c.x(), [3, 4], { gamma: { data: c.f32(12), shape: [3, 4] } }), 'RangeError', 'layerNormalization: gamma of shape [3, 4] does not broadcast to the normalized dimensions [4]'],
  ['R19', 'a per-row beta [3, 4] for axis -1', (c) => c.t.layerNormalization(c.x(), [3, 4], { beta: { data: c.f32(12), shape: [3, 4] } }), 'RangeError', 'layerNormalization: beta of shape [3, 4] does not broadcast to the normalized dimensions [4]'],
  ['R20', 'gamma an Array', (c) => c.t.layerNormalization(c.x(), [3, 4], { gamma: [1, 2, 3, 4] }), 'TypeError', 'layerNormalization: gamma must be a Float32Array or { data: Float32Array, shape }, got Array(4)'],
  ['R20', 'gamma.data an Array', (c) => c.t.layerNormalization(c.x(), [3, 4], { gamma: { data: [1, 2, 3, 4], shape: [4] } }), 'TypeError', 'layerNormalization: gamma.data must be a Float32Array, got Array(4)'],
  ['R20', 'beta.shape a number', (c) => c.t.layerNormalization(c.x(), [3, 4], { beta: { data: c.f32(4), shape: 4 } }), 'TypeError', 'layerNormalization: beta.shape must be an array, got number 4'],
  ['R20', 'gamma.shape with a string', (c) => c.t.layerNormalization(c.x(), [3, 4], { gamma: { data: c.f32(4), shape: ['4'] } }), 'TypeError', 'layerNormalization: gamma.shape[0] must be an integer >= 0, got string "4"'],
  ['R20', 'gamma.shape with 4.5', (c) => c.t.layerNormalization(c.x(), [3, 4], { gamma: { data: c.f32(4), shape: [4.5] } }), 'RangeError', 'layerNormalization: gamma.shape[0] must be an integer >= 0, got number 4.5'],
  ['R20', 'gamma.shape of 2 values for 4', (c) => c.t.layerNormalization(c.x(), [3, 4], { gamma: { data: c.f32(4), shape: [2] } }), 'RangeError', 'layerNormalization: gamma.data must have length 2 (the values of gamma.shape [2]), got length 4'],
  ['R21', 'epsilon -1', (c) => c.t.layerNormalization(c.x(), [3, 4], { epsilon: -1 }), 'RangeError', 'layerNormalization: epsilon must be a finite number >= 0, got number -1'],
  ['R21', 'epsilon "1e-5"', (c) => c.t.layerNormalization(c.x(), [3, 4], { epsilon: '1e-5' }), 'TypeError', 'layerNormalization: epsilon must be a finite number >= 0, got string "1e-5"'],
  ['R22', 'halfBitsToFloat32 of a Float32Array', (c) => c.pkg.halfBitsToFloat32(c.f32(2), 'float16'), 'TypeError', 'halfBitsToFloat32: bits must be a Uint16Array, got Float32Array(2)', MAIN],
  ['R22', 'halfBitsToFloat32 of a Proxy', (c) => c.pkg.halfBitsToFloat32(new Proxy(c.u16(2), {}), 'float16'), 'TypeError', `halfBitsToFloat32: bits must be a Uint16Array, ${LOOKALIKE('Uint16Array')}`, MAIN],
  ['R22', 'halfBitsToFloat32 dtype float32', (c) => c.pkg.halfBitsToFloat32(c.u16(2), 'float32'), 'TypeError', `halfBitsToFloat32: dtype must be 'float16' or 'bfloat16', got string "float32"`, MAIN],
  ['R22', 'halfBitsToFloat32 without dtype', (c) => c.pkg.halfBitsToFloat32(c.u16(2)), 'TypeError', `halfBitsToFloat32: dtype must be 'float16' or 'bfloat16', got undefined`, MAIN],
  ['R22', 'float32ToHalfBits of an Array', (c) => c.pkg.float32ToHalfBits([1, 2], 'bfloat16'), 'TypeError', 'float32ToHalfBits: values must be a Float32Array, got Array(2)', MAIN],
  ['R22', 'float32ToHalfBits of a detached Float32Array', (c) => c.pkg.float32ToHalfBits(c.detached(c.f32(2)), 'float16'), 'TypeError', `float32ToHalfBits: values ${DETACHED} Float32Array`, MAIN],
  ['R23', 'rmsNorm d = 0', (c) => c.t.rmsNorm(c.x(), 0), 'RangeError', 'rmsNorm: d must be a positive integer, got number 0'],
  ['R23', 'rmsNormStages row 4 of 4', (c) => c.t.rmsNormStages(c.x(), 3, 4), 'RangeError', 'rmsNormStages: row must be an integer in [0, 4), got number 4'],
  ['R23', 'createRmsNorm eps "1"', (c) => c.t.createRmsNorm(3, { eps: '1' }), 'TypeError', 'createRmsNorm: eps must be a finite number >= 0, got string "1"'],
  ['R23', 'rmsNorm gamma of 4 values', (c) => c.t.rmsNorm(c.x(), 3, { gamma: c.f32(4) }), 'RangeError', 'rmsNorm: gamma must have length d = 3, got length 4'],
  ['R25', 'WasmTensor.set of float values into a float16 tensor', (c) => c.tensors.f16.set(Float32Array.of(1.5, 2, 3)), 'RangeError', "WasmTensor.set: a float16 tensor holds bit patterns, so data[0] must be an integer in [0, 65535], got number 1.5; convert values with float32ToHalfBits(values, 'float16')", MAIN],
  ['R25', 'WasmTensor.set of a value past 16 bits into a bfloat16 tensor', (c) => c.tensors.bf16.set([1, 2, 70000]), 'RangeError', "WasmTensor.set: a bfloat16 tensor holds bit patterns, so data[2] must be an integer in [0, 65535], got number 70000; convert values with float32ToHalfBits(values, 'bfloat16')", MAIN],
  ['R25', 'WasmTensor.set of a Float16Array into a bfloat16 tensor', (c) => c.tensors.bf16.set(new c.Float16Array(3)), 'TypeError', "WasmTensor.set: a Float16Array cannot fill a bfloat16 tensor; convert it with float32ToHalfBits(Float32Array.from(values), 'bfloat16')", { on: 'main', needs: 'Float16Array' }],
  ['R26', 'layerNormReference with out', (c) => c.pkg.layerNormReference(c.x(), 3, { out: c.f32(12) }), 'TypeError', 'layerNormReference: the reference returns a new Float32Array and fills no out; got out Float32Array(12)', MAIN],
  ['R26', 'rmsNormReference with sumOut', (c) => c.pkg.rmsNormReference(c.x(), 3, { residual: c.x(), sumOut: c.f32(12) }), 'TypeError', 'rmsNormReference: the reference returns a new Float32Array and fills no sumOut; got sumOut Float32Array(12)', MAIN],
  ['R26', 'layerNormReference with mean', (c) => c.pkg.layerNormReference(c.x(), 3, { mean: c.f64(4) }), 'TypeError', 'layerNormReference: the reference returns a new Float32Array and fills no mean; got mean Float64Array(4)', MAIN],
  ['R27', 'layerNormStats with a residual', (c) => c.t.layerNormStats(c.x(), 3, { residual: c.x() }), 'TypeError', 'layerNormStats: statistics are of x alone, so no residual option; got residual Float32Array(12)'],
  ['R27', 'layerNormStats with a bias', (c) => c.t.layerNormStats(c.x(), 3, { bias: c.f32(3) }), 'TypeError', 'layerNormStats: statistics are of x alone, so no bias option; got bias Float32Array(3)'],
  ['R27', 'layerNormStats with a sumOut', (c) => c.t.layerNormStats(c.x(), 3, { sumOut: c.f32(12) }), 'TypeError', 'layerNormStats: statistics are of x alone, so no sumOut option; got sumOut Float32Array(12)'],
  ['R28', 'normReference of an unknown norm', (c) => c.pkg.normReference('batchnorm', c.x(), 3), 'TypeError', `normReference: norm must be ${KINDS}, got string "batchnorm"`, MAIN],
  ['R28', 'normReference without a norm', (c) => c.pkg.normReference(undefined, c.x(), 3), 'TypeError', `normReference: norm must be ${KINDS}, got undefined`, MAIN],
];
