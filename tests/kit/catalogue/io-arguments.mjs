// The rows A1–A13a of web/docs/errors.md (and #61d): the I/O module's and the metrics' argument
// checks. A sync function throws; an async one rejects (flag async), before anything is read or
// requested. Main thread only: the worker has no I/O. Cases as in numeric.mjs.
import { npy } from '../checkpoints/index.mjs';
import { BYTES, GONE } from './values.mjs';

const SYNC = { on: 'main' };
const ASYNC = { on: 'main', async: true };
const file = () => npy(Float32Array.of(1, 2, 3, 4), [4]);
const y4 = () => Float32Array.of(1, 2, 3, 4);
/** 30,000 dimensions of 1: a header of "(1, 1, …)" longer than a version 1.0 header can hold. */
const longShape = new Array(30_000).fill(1);

/** An ArrayBuffer transferred away (to a worker, say): its bytes are gone. */
function detachedBuffer() {
  const buffer = new ArrayBuffer(8);
  structuredClone(buffer, { transfer: [buffer] });
  return buffer;
}
/** A view made before its buffer was transferred: length 0 now, and no new view can be made on it. */
function detachedView() {
  const view = new Uint8Array(8);
  structuredClone(view.buffer, { transfer: [view.buffer] });
  return view;
}

/** A fetch that fails the case if it is called: the options must be refused before any request. */
const noFetch = () => {
  throw new Error('no request was expected: the bad option must be refused first');
};
const URL_ = 'https://example.org/m.safetensors';

const count = (v) =>
  v === null
    ? 'null'
    : typeof v === 'bigint'
      ? `bigint ${v}n`
      : typeof v === 'string'
        ? `string "${v}"`
        : `number ${v}`;

// prettier-ignore
export const IO_ARGUMENT_CASES = [
  ['A8', 'decodeNpyData bytes as an Array', (c) => c.io.decodeNpyData([1, 2], 'float32', 0), 'TypeError', 'decodeNpyData: bytes must be a Uint8Array, got Array(2)', SYNC],
  ['A8', 'decodeNpyData dtype "int8" (a name outside the set)', (c) => c.io.decodeNpyData(new Uint8Array(8), 'int8', 1), 'TypeError', `decodeNpyData: dtype must be 'float32', 'float64' or 'float16', got string "int8"`, SYNC],
  ['A8', 'decodeNpyData dtype 1', (c) => c.io.decodeNpyData(new Uint8Array(8), 1, 1), 'TypeError', `decodeNpyData: dtype must be 'float32', 'float64' or 'float16', got number 1`, SYNC],
  ...['1', 1n, null, 1.5, -1, 3, NaN].map((v) => ['A8', `decodeNpyData count ${count(v)}`, (c) => c.io.decodeNpyData(new Uint8Array(8), 'float32', v), typeof v === 'number' ? 'RangeError' : 'TypeError', `decodeNpyData: count must be an integer from 0 to 2 (the float32 values in 8 bytes), got ${count(v)}`, SYNC]),
  ['61d', 'readNpy input 5', (c) => c.io.readNpy(5), 'TypeError', 'readNpy: input must be a Uint8Array or ArrayBuffer, got number 5', SYNC],
  ['A9', 'readNpy source 5', (c) => c.io.readNpy(file(), 5), 'TypeError', 'readNpy: source must be a string, got number 5', SYNC],
  ['A10', 'writeNpy data as an Array', (c) => c.io.writeNpy([1], [1]), 'TypeError', 'writeNpy: data must be a Float32Array, got Array(1)', SYNC],
  ['A10', 'writeNpy shape "3"', (c) => c.io.writeNpy(y4(), '3'), 'TypeError', 'writeNpy: shape must be an array of integers >= 0, got string "3"', SYNC],
  ['A10', 'writeNpy shape ["4"]', (c) => c.io.writeNpy(y4(), ['4']), 'TypeError', 'writeNpy: shape[0] must be an integer >= 0, got string "4"', SYNC],
  ['A10', 'writeNpy shape [2, 1.5]', (c) => c.io.writeNpy(y4(), [2, 1.5]), 'RangeError', 'writeNpy: shape[1] must be an integer >= 0, got number 1.5', SYNC],
  ['A10', 'writeNpy shape [3] for 4 values', (c) => c.io.writeNpy(y4(), [3]), 'RangeError', 'writeNpy: data must have 3 values (the product of shape [3]), got 4', SYNC],
  ['A10', 'writeNpyHeader shape 5', (c) => c.io.writeNpyHeader(5), 'TypeError', 'writeNpyHeader: shape must be an array of integers >= 0, got number 5', SYNC],
  ['A10', 'writeNpyHeader shape [-1]', (c) => c.io.writeNpyHeader([-1]), 'RangeError', 'writeNpyHeader: shape[0] must be an integer >= 0, got number -1', SYNC],
  ['A10', 'writeNpyHeader of 30,000 dimensions', (c) => c.io.writeNpyHeader(longShape), 'RangeError', 'writeNpyHeader: shape must fit in a version 1.0 header (at most 65535 bytes), got 30000 dimensions, a 90102-byte header', SYNC],
  ['A9', 'parseActivationsJson text 5', (c) => c.io.parseActivationsJson(5), 'TypeError', 'parseActivationsJson: text must be a string, got number 5', SYNC],
  ['A9', 'parseActivationsJson source 5', (c) => c.io.parseActivationsJson('[1]', 5), 'TypeError', 'parseActivationsJson: source must be a string, got number 5', SYNC],
  ['A9', 'parseActivationsText text null', (c) => c.io.parseActivationsText(null), 'TypeError', 'parseActivationsText: text must be a string, got null', SYNC],
  ['A11', 'float16ToFloat32 "1"', (c) => c.io.float16ToFloat32('1'), 'TypeError', 'float16ToFloat32: bits must be an integer in [0, 65535], got string "1"', SYNC],
  ['A11', 'float16ToFloat32 65536', (c) => c.io.float16ToFloat32(65536), 'RangeError', 'float16ToFloat32: bits must be an integer in [0, 65535], got number 65536', SYNC],
  ['A11', 'float16ToFloat32 1.5', (c) => c.io.float16ToFloat32(1.5), 'RangeError', 'float16ToFloat32: bits must be an integer in [0, 65535], got number 1.5', SYNC],
  ['A11', 'bfloat16ToFloat32 1n', (c) => c.io.bfloat16ToFloat32(1n), 'TypeError', 'bfloat16ToFloat32: bits must be an integer in [0, 65535], got bigint 1n', SYNC],
  ['A11', 'bfloat16ToFloat32 -1', (c) => c.io.bfloat16ToFloat32(-1), 'RangeError', 'bfloat16ToFloat32: bits must be an integer in [0, 65535], got number -1', SYNC],
  ['A13', 'ulp32 "1"', (c) => c.pkg.ulp32('1'), 'TypeError', 'ulp32: s must be a finite number >= 0, got string "1"', SYNC],
  ...[-1, NaN, Infinity].map((s) => ['A13', `ulp32 ${s}`, (c) => c.pkg.ulp32(s), 'RangeError', `ulp32: s must be a finite number >= 0, got number ${s}`, SYNC]),
  ['A12', 'compareOutputs y as an Array', (c) => c.pkg.compareOutputs([1], [1], 1), 'TypeError', 'compareOutputs: y must be a Float32Array, got Array(1)', SYNC],
  ['A12', 'compareOutputs expected as a Float64Array', (c) => c.pkg.compareOutputs(y4(), new Float64Array(4), 4), 'TypeError', 'compareOutputs: expected must be a Float32Array, got Float64Array(4)', SYNC],
  ['A12', 'compareOutputs d "4"', (c) => c.pkg.compareOutputs(y4(), y4(), '4'), 'TypeError', 'compareOutputs: d must be a positive integer, got string "4"', SYNC],
  ['A12', 'compareOutputs d 0', (c) => c.pkg.compareOutputs(y4(), y4(), 0), 'RangeError', 'compareOutputs: d must be a positive integer, got number 0', SYNC],
  ['A12', 'compareOutputs 4 values with d = 3', (c) => c.pkg.compareOutputs(y4(), y4(), 3), 'RangeError', 'compareOutputs: y.length must be a multiple of d = 3, got 4 (1 rows and 1 left over)', SYNC],
  ['A12', 'compareOutputs arrays of different lengths', (c) => c.pkg.compareOutputs(y4(), new Float32Array(2), 2), 'RangeError', 'compareOutputs: expected must have length 4 (the same as y), got length 2', SYNC],
  ['A12', 'compareOutputs beta as an Array', (c) => c.pkg.compareOutputs(y4(), y4(), 4, [0, 0, 0, 0]), 'TypeError', 'compareOutputs: beta must be a Float32Array, got Array(4)', SYNC],
  ['A12', 'compareOutputs beta of length 2 with d = 4', (c) => c.pkg.compareOutputs(y4(), y4(), 4, new Float32Array(2)), 'RangeError', 'compareOutputs: beta must have length d = 4, got length 2', SYNC],
  ['A5', 'openByteSource source 5', (c) => c.io.openByteSource(5), 'TypeError', `openByteSource: source must be ${BYTES}, got number 5`, SYNC],
  ['A4', 'openByteSource options 5', (c) => c.io.openByteSource(file(), 5), 'TypeError', 'openByteSource: options must be an object, got number 5', SYNC],
  ['A1', 'openByteSource signal "x"', (c) => c.io.openByteSource(file(), { signal: 'x' }), 'TypeError', 'openByteSource: signal must be an AbortSignal, got string "x"', SYNC],
  ['A1', 'openByteSource onProgress 5', (c) => c.io.openByteSource(file(), { onProgress: 5 }), 'TypeError', 'openByteSource: onProgress must be a function, got number 5', SYNC],
  ['A1', 'openByteSource fetch "x"', (c) => c.io.openByteSource(file(), { fetch: 'x' }), 'TypeError', 'openByteSource: fetch must be a function, got string "x"', SYNC],
  ['A2', 'openByteSource headers as a Headers object (it would spread to nothing)', (c) => c.io.openByteSource(file(), { headers: new Headers({ a: 'b' }) }), 'TypeError', 'openByteSource: headers must be a plain object of header names to strings, got Headers', SYNC],
  ['A2', 'openByteSource a header that is not a string', (c) => c.io.openByteSource(file(), { headers: { Authorization: 1 } }), 'TypeError', 'openByteSource: headers["Authorization"] must be a string, got number 1', SYNC],
  ['A3', 'openByteSource maxWholeBodyBytes "x"', (c) => c.io.openByteSource(file(), { maxWholeBodyBytes: 'x' }), 'TypeError', 'openByteSource: maxWholeBodyBytes must be an integer >= 0, got string "x"', SYNC],
  ['A3', 'openByteSource maxWholeBodyBytes -1', (c) => c.io.openByteSource(file(), { maxWholeBodyBytes: -1 }), 'RangeError', 'openByteSource: maxWholeBodyBytes must be an integer >= 0, got number -1', SYNC],
  ['A13a', 'readNpy of a detached ArrayBuffer', (c) => c.io.readNpy(detachedBuffer()), 'TypeError', `readNpy: input is a detached ArrayBuffer ${GONE}`, SYNC],
  ['A13a', 'decodeNpyData of a view of a detached ArrayBuffer', (c) => c.io.decodeNpyData(detachedView(), 'float32', 0), 'TypeError', `decodeNpyData: bytes is a view of a detached ArrayBuffer ${GONE}`, SYNC],
  ['A13a', 'openByteSource of a detached ArrayBuffer', (c) => c.io.openByteSource(detachedBuffer()), 'TypeError', `openByteSource: source is a detached ArrayBuffer ${GONE}`, SYNC],
  ['A7', 'ByteSource.read offset "1"', (c) => c.io.openByteSource(file()).read('1', 2), 'TypeError', 'ByteSource.read: offset must be an integer >= 0, got string "1"', ASYNC],
  ['A7', 'ByteSource.read length 1.5', (c) => c.io.openByteSource(file()).read(0, 1.5), 'RangeError', 'ByteSource.read: length must be an integer >= 0, got number 1.5', ASYNC],
  ['A5', 'readNpyHeader source 5', (c) => c.io.readNpyHeader(5), 'TypeError', `readNpyHeader: source must be ${BYTES}, got number 5`, ASYNC],
  ['A1', 'readNpyHeader onProgress 5', (c) => c.io.readNpyHeader(file(), { onProgress: 5 }), 'TypeError', 'readNpyHeader: onProgress must be a function, got number 5', ASYNC],
  ['A1', 'loadLayerNormWeights onProgress 5', (c) => c.io.loadLayerNormWeights(file(), { onProgress: 5 }), 'TypeError', 'loadLayerNormWeights: onProgress must be a function, got number 5', ASYNC],
  ['A4', 'loadLayerNormWeights format "zip" (a name outside the set)', (c) => c.io.loadLayerNormWeights(file(), { format: 'zip' }), 'TypeError', `loadLayerNormWeights: format must be 'safetensors', 'gguf' or 'npy', got string "zip"`, ASYNC],
  ['A4', 'loadLayerNormWeights bias 5', (c) => c.io.loadLayerNormWeights(file(), { bias: 5 }), 'TypeError', 'loadLayerNormWeights: bias must be a string or null, got number 5', ASYNC],
  ['A4', 'loadLayerNormWeights weight 5', (c) => c.io.loadLayerNormWeights(file(), { weight: 5 }), 'TypeError', 'loadLayerNormWeights: weight must be a string, got number 5', ASYNC],
  ['A1', 'loadLayerNormWeights signal "x"', (c) => c.io.loadLayerNormWeights(file(), { signal: 'x' }), 'TypeError', 'loadLayerNormWeights: signal must be an AbortSignal, got string "x"', ASYNC],
  ['A3', 'loadLayerNormWeights maxWholeBodyBytes "x"', (c) => c.io.loadLayerNormWeights(file(), { maxWholeBodyBytes: 'x' }), 'TypeError', 'loadLayerNormWeights: maxWholeBodyBytes must be an integer >= 0, got string "x"', ASYNC],
  ['A4', 'loadLayerNormWeights options 5', (c) => c.io.loadLayerNormWeights(file(), 5), 'TypeError', 'loadLayerNormWeights: options must be an object, got number 5', ASYNC],
  ['A4', 'loadLayerNormWeights config 5', (c) => c.io.loadLayerNormWeights(file(), { config: 5 }), 'TypeError', `loadLayerNormWeights: config must be ${BYTES} of config.json, its parsed object, or null, got number 5`, ASYNC],
  ['A5', 'loadLayerNormWeights source 5', (c) => c.io.loadLayerNormWeights(5), 'TypeError', `loadLayerNormWeights: source must be ${BYTES}, or { gamma, beta } of .npy sources, got number 5`, ASYNC],
  ['A5', 'loadLayerNormWeights source { gamma: 5 }', (c) => c.io.loadLayerNormWeights({ gamma: 5 }), 'TypeError', `loadLayerNormWeights: source.gamma must be ${BYTES}, got number 5`, ASYNC],
  ['A1', 'loadNormWeights names its own function', (c) => c.io.loadNormWeights(file(), { onProgress: 'log' }), 'TypeError', 'loadNormWeights: onProgress must be a function, got string "log"', ASYNC],
  ['A6', 'loadNormWeights bias named for a { gamma, beta } pair', (c) => c.io.loadNormWeights({ gamma: file(), beta: file() }, { bias: 'ln_f.bias' }), 'RangeError', 'loadNormWeights: bias must be null or omitted for a { gamma, beta } pair of .npy files (it has no tensor names; pass { gamma, beta } for a gain and a bias), got string "ln_f.bias"', ASYNC],
  ['A6', 'loadLayerNormWeights weight named for a .npy file', (c) => c.io.loadLayerNormWeights(file(), { weight: 'ln_f.weight' }), 'RangeError', 'loadLayerNormWeights: weight must be omitted for a .npy file (it has no tensor names), got string "ln_f.weight"', ASYNC],
  ['A13a', 'loadLayerNormWeights of a detached ArrayBuffer', (c) => c.io.loadLayerNormWeights(detachedBuffer()), 'TypeError', `loadLayerNormWeights: source is a detached ArrayBuffer ${GONE}`, ASYNC],
  ['A13a', 'loadLayerNormWeights config a detached ArrayBuffer', (c) => c.io.loadLayerNormWeights(file(), { config: detachedBuffer() }), 'TypeError', `loadLayerNormWeights: config is a detached ArrayBuffer ${GONE}`, ASYNC],
  // A URL and a fetch that must not be called: each bad option is refused before any request.
  ['A1', 'a URL with onProgress 5, refused before anything is requested', (c) => c.io.loadLayerNormWeights(URL_, { fetch: noFetch, onProgress: 5 }), 'TypeError', 'loadLayerNormWeights: onProgress must be a function, got number 5', ASYNC],
  ['A4', 'a URL with format "zip", refused before anything is requested', (c) => c.io.loadLayerNormWeights(URL_, { fetch: noFetch, format: 'zip' }), 'TypeError', `loadLayerNormWeights: format must be 'safetensors', 'gguf' or 'npy', got string "zip"`, ASYNC],
  ['A2', 'a URL with a header that is not a string, refused before anything is requested', (c) => c.io.loadLayerNormWeights(URL_, { fetch: noFetch, headers: { Authorization: 1 } }), 'TypeError', 'loadLayerNormWeights: headers["Authorization"] must be a string, got number 1', ASYNC],
  ['A4', 'a URL with config true, refused before anything is requested', (c) => c.io.loadLayerNormWeights(URL_, { fetch: noFetch, config: true }), 'TypeError', `loadLayerNormWeights: config must be ${BYTES} of config.json, its parsed object, or null, got boolean`, ASYNC],
];
