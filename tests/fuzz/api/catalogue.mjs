// The api target's catalogue of accepted errors: each message the numeric API documents
// (web/docs/errors.md) as a pattern, with the error type its rule gives and the functions each op
// may name. Anything else a call throws is a failure.
import { DisposedError } from '../../../dist/index.js';
import { FuzzFailure, describeError, fail } from '../oracle.mjs';

const FN =
  '(?<fn>layerNorm|rmsNorm|layerNormStats|layerNormStages|rmsNormStages|layerNormalization|createLayerNorm|createRmsNorm|allocate|LayerNorm\\.forward|LayerNorm\\.forwardTensor|WasmTensor\\.set|WasmTensor\\.view|WasmTensor\\.toArray|float32ToHalfBits|halfBitsToFloat32|init)';
/** What errors.ts's describe() writes for a value. */
const GOT = '(?<got>null|undefined|number \\S+|string ".*"|bigint -?\\d+n|[A-Za-z_$][\\w$]*(\\(\\d+\\))?)';
const SIZE = '(\\S+ (bytes|KiB|MiB|GiB)|more than 2\\^53 bytes)';
const ARRAYS = '(Float32Array|Uint16Array|Float16Array|Float64Array)';
const LOOKALIKE = `an object that only inherits from (${ARRAYS}\\.prototype|a typed array prototype) \\(a Proxy or Object\\.create result, not a typed array\\)`;
/** Arguments and options that are arrays of the activations' kind, or float32 parameters. */
const ACTIVATIONS = '(x|out|residual|sumOut)';
const PARAMS = '(gamma|beta|bias|gamma\\.data|beta\\.data|values)';
const DTYPE_NAMES = "'float32', 'float16' or 'bfloat16'";
/** A list of dimensions as layerNormalization writes them ("[2, 3, 4]"; 1e+21 for a huge one). */
const DIMS = '\\[[^\\]]*\\]';

/**
 * Each message the numeric API documents, as { name, type, pattern }. `type` 'by value' is the
 * rule for number arguments: RangeError when the value described is a number, else TypeError.
 */
const CATALOGUE = [
  [
    'not a Float32Array',
    TypeError,
    `${FN}: (${ACTIVATIONS}|${PARAMS}) must be a Float32Array, got (${GOT}|${LOOKALIKE})`,
  ],
  [
    'not an activation array',
    TypeError,
    `${FN}: x must be a Float32Array, a Float16Array, or a Uint16Array with dtype 'float16' or 'bfloat16', got ${GOT}`,
  ],
  [
    'not a 16-bit array',
    TypeError,
    `${FN}: (${ACTIVATIONS}|bits) must be a (Uint16Array|Float16Array), got (${GOT}|${LOOKALIKE})`,
  ],
  [
    'a Uint16Array without dtype',
    TypeError,
    `${FN}: x is a Uint16Array: say which 16-bit type its bits are with dtype: 'float16' or 'bfloat16'(, got dtype '\\w+')?`,
  ],
  [
    'dtype and array disagree',
    TypeError,
    `${FN}: (dtype '(float16|bfloat16)' needs x as (a Float16Array or a Uint16Array of its bits|a Uint16Array of its bits), got a Float32Array|x is a Float16Array, whose values are float16, got dtype '\\w+')`,
  ],
  ['dtype', TypeError, `${FN}: dtype must be (${DTYPE_NAMES}|'float16' or 'bfloat16'), got ${GOT}`],
  [
    'not of x’s kind',
    TypeError,
    `${FN}: ${ACTIVATIONS} must be a (Uint16Array|Float16Array) like x \\((float16|bfloat16)\\), got ${GOT}`,
  ],
  [
    'detached',
    TypeError,
    `${FN}: (${ACTIVATIONS}|${PARAMS}|mean|rstd|bits|data) is a view of a detached ArrayBuffer \\(it was transferred, or it is a wasm memory view taken before memory grew\\); pass a live ${ARRAYS}`,
  ],
  ['d', 'by value', `${FN}: d must be a positive integer, got ${GOT}`],
  ['d too wide', RangeError, `${FN}: d must be at most 268435456 \\(one row must fit in wasm memory\\), got \\S+`],
  [
    'not a multiple of d',
    RangeError,
    `${FN}: x\\.length must be a multiple of d = (?<d>\\d+), got (?<n>\\d+) \\((?<rows>\\d+) rows and (?<left>\\d+) left over\\)`,
  ],
  ['eps', 'by value', `${FN}: (eps|epsilon) must be a finite number >= 0, got ${GOT}`],
  ['gamma, beta or bias length', RangeError, `${FN}: (gamma|beta|bias) must have length d = \\d+, got length \\d+`],
  [
    'activations length',
    RangeError,
    `${FN}: ${ACTIVATIONS} must have length \\d+ \\(the same as x\\), got length \\d+`,
  ],
  ['options', TypeError, `${FN}: options must be an object, got ${GOT}`],
  [
    'needs a residual',
    TypeError,
    `${FN}: (bias is added with the residual|sumOut receives x \\+ residual): pass residual too \\(got (bias|sumOut) ${GOT} alone\\)`,
  ],
  [
    'outputs share memory',
    RangeError,
    `${FN}: (sumOut and out|mean and rstd|(mean|rstd) and (out|sumOut)) must not share memory \\(both are outputs\\)`,
  ],
  [
    'no such RMSNorm option',
    TypeError,
    `${FN}: RMSNorm has no (bias term, so no beta|mean, so no mean) option; got (beta|mean) ${GOT}`,
  ],
  [
    'no fused residual for statistics',
    TypeError,
    `${FN}: statistics are of x alone, so no (residual|bias|sumOut) option; got (residual|bias|sumOut) ${GOT}`,
  ],
  [
    'statistics type',
    TypeError,
    `${FN}: (mean|rstd) must be a Float64Array( \\(one entry per row\\))?, got (${GOT}|${LOOKALIKE})`,
  ],
  [
    'statistics length',
    RangeError,
    `${FN}: (mean|rstd) must have length \\d+ \\(one entry per row\\), got length \\d+`,
  ],
  ['row', 'by value', `(?<fn>layerNormStages|rmsNormStages): row must be an integer in \\[0, \\d+\\), got ${GOT}`],
  ['rows', 'by value', `(?<fn>allocate): rows must be an integer >= 0, got ${GOT}`],
  [
    'set data',
    TypeError,
    `(?<fn>WasmTensor\\.set): data must be an array or typed array of numbers, got (${GOT}|${LOOKALIKE})`,
  ],
  ['set element', TypeError, `(?<fn>WasmTensor\\.set): data\\[\\d+\\] must be a number, got ${GOT}`],
  ['set offset', 'by value', `(?<fn>WasmTensor\\.set): offset must be an integer >= 0, got ${GOT}`],
  [
    'set does not fit',
    RangeError,
    `(?<fn>WasmTensor\\.set): \\d+ values at offset number \\S+ do not fit in a tensor of \\d+ values`,
  ],
  [
    'tensor bit patterns',
    RangeError,
    `(?<fn>WasmTensor\\.set): a (float16|bfloat16) tensor holds bit patterns, so data\\[\\d+\\] must be an integer in \\[0, 65535\\], got ${GOT}; convert values with float32ToHalfBits\\(values, '(float16|bfloat16)'\\)`,
  ],
  // (A Float16Array into a bfloat16 tensor, errors.md R25, needs an engine with Float16Array: the
  // generators make none; tests/browser/float16.spec.ts checks it.)
  [
    'not a tensor',
    TypeError,
    `(?<fn>LayerNorm\\.forwardTensor): (input|output) must be a WasmTensor from allocate\\(\\), got ${GOT}`,
  ],
  [
    'foreign tensor',
    TypeError,
    `(?<fn>LayerNorm\\.forwardTensor): (input|output) belongs to a different runtime \\(another init\\(\\) backend\\)`,
  ],
  [
    'tensor widths',
    RangeError,
    `(?<fn>LayerNorm\\.forwardTensor): tensors must have d = \\d+, got input d = \\d+ and output d = \\d+`,
  ],
  [
    'tensor rows',
    RangeError,
    `(?<fn>LayerNorm\\.forwardTensor): output must have as many rows as input \\(\\d+\\), got \\d+`,
  ],
  [
    'tensor dtype',
    TypeError,
    `(?<fn>LayerNorm\\.forwardTensor): this (LayerNorm|RMSNorm) takes (float32|float16|bfloat16) tensors, got input \\w+ and output \\w+`,
  ],
  [
    'disposed',
    DisposedError,
    `${FN}: this ((LayerNorm|RMSNorm) was disposed; create a new one|WasmTensor was disposed)`,
  ],
  [
    'wasm memory',
    RangeError,
    `${FN}(\\(\\S+, \\d+\\)|: .+?) needs ${SIZE} of wasm memory, (more than the module can ever hold \\(2\\.00 GiB\\)|but only ${SIZE} more can be reserved \\(limit 2\\.00 GiB\\); use smaller inputs or process them in parts)`,
  ],
  ['init backend', TypeError, `(?<fn>init|embeddedWasm): backend must be ('auto', )?'simd' or 'scalar', got .+`],
  // layerNormalization (ONNX)
  [
    'shape type',
    TypeError,
    `(?<fn>layerNormalization): (shape must be an array of dimensions|(gamma|beta)\\.shape must be an array), got ${GOT}`,
  ],
  ['shape empty', RangeError, `(?<fn>layerNormalization): shape must have at least one dimension, got \\[\\]`],
  [
    'shape dimension',
    'by value',
    `(?<fn>layerNormalization): (shape|gamma\\.shape|beta\\.shape)\\[\\d+\\] must be an integer >= 0, got ${GOT}`,
  ],
  [
    'shape size',
    RangeError,
    `(?<fn>layerNormalization): (x must have length (\\S+|more than 2\\^53) \\(the values of shape ${DIMS}\\)|(gamma|beta)\\.data must have length (\\S+|more than 2\\^53) \\(the values of (gamma|beta)\\.shape ${DIMS}\\)), got length \\d+`,
  ],
  [
    'axis',
    'by value',
    `(?<fn>layerNormalization): axis must be an integer in \\[-\\d+, \\d+\\) for a rank-\\d+ x, got ${GOT}`,
  ],
  [
    'normalized size',
    RangeError,
    `(?<fn>layerNormalization): the normalized dimensions ${DIMS} \\(axis -?\\d+\\) hold (no values to normalize|(\\S+|more than 2\\^53) values, more than a row may have \\(268435456: one row must fit in wasm memory\\))`,
  ],
  [
    'Scale or B type',
    TypeError,
    `(?<fn>layerNormalization): (gamma|beta) must be a Float32Array or \\{ data: Float32Array, shape \\}, got ${GOT}`,
  ],
  [
    'Scale or B broadcast',
    RangeError,
    `(?<fn>layerNormalization): (gamma|beta) of shape ${DIMS} does not broadcast to the normalized dimensions ${DIMS}`,
  ],
].map(([name, type, source]) => ({ name, type, pattern: new RegExp(`^${source}$`, 's') }));

/** The names of the catalogue's entries, which a long enough run should all reach. */
export const DOCUMENTED_ERRORS = CATALOGUE.map((entry) => entry.name);

/** The functions each op may name in its errors. */
const FUNCTIONS = {
  layerNorm: ['layerNorm'],
  rmsNorm: ['rmsNorm'],
  layerNormStats: ['layerNormStats'],
  layerNormStages: ['layerNormStages'],
  rmsNormStages: ['rmsNormStages'],
  layerNormalization: ['layerNormalization'],
  forward: ['createLayerNorm', 'LayerNorm.forward'],
  forwardRms: ['createRmsNorm', 'LayerNorm.forward'],
  forwardDisposed: ['createLayerNorm', 'LayerNorm.forward'],
  tensor: ['allocate', 'WasmTensor.set', 'createLayerNorm', 'LayerNorm.forwardTensor'],
  halfBits: ['float32ToHalfBits', 'halfBitsToFloat32'],
  init: ['init'],
};

/** The catalogue entry an error of op matches; throws FuzzFailure if none. */
export function documentedError(op, e) {
  if (e instanceof FuzzFailure) throw e;
  if (!(e instanceof Error)) fail(`${op}: threw a non-Error: ${String(e)}`);
  for (const entry of CATALOGUE) {
    const m = entry.pattern.exec(e.message);
    if (!m) continue;
    const type =
      entry.type === 'by value' ? (m.groups.got?.startsWith('number ') ? RangeError : TypeError) : entry.type;
    if (e.constructor !== type) fail(`${op}: ${describeError(e)}, expected a ${type.name} for this message`);
    if (!FUNCTIONS[op].includes(m.groups.fn)) fail(`${op}: the error names ${m.groups.fn}: ${e.message}`);
    if (entry.name === 'not a multiple of d') {
      const [d, n, rows, left] = ['d', 'n', 'rows', 'left'].map((k) => Number(m.groups[k]));
      if (rows !== Math.floor(n / d) || left !== n % d || left === 0) fail(`${op}: wrong arithmetic in ${e.message}`);
    }
    return entry.name;
  }
  return fail(`${op}: an error the catalogue does not document: ${describeError(e)}`);
}
