// The numeric API's rows of web/docs/errors.md (#1–#46): one case per bad call, as
// [row, name, call(c), error, message as thrown, flags]. `c` is the context a driver gives
// (index.d.mts); flags: on 'main' (allocate, tensors, init: not a worker's) or 'worker', async
// (the call rejects). Calls of both kinds run on the main thread and through initWorker().
import { DETACHED, LOOKALIKE, X_KINDS, described, show } from './values.mjs';

const MAIN = { on: 'main' };
class Activations {
  data = [1, 2, 3];
}

// prettier-ignore
const CALLS = [
  ['1', 'x as a plain array', (c) => c.t.layerNorm([1, 2, 3], 3), 'TypeError', `layerNorm: ${X_KINDS}, got Array(3)`],
  ['1', 'x as a class instance', (c) => c.t.layerNorm(new Activations(), 3), 'TypeError', `layerNorm: ${X_KINDS}, got Activations`],
  ['1', 'x as a function', (c) => c.t.layerNorm(() => 1, 3), 'TypeError', `layerNorm: ${X_KINDS}, got function`],
  ['1', 'x as a symbol', (c) => c.t.layerNorm(Symbol('x'), 3), 'TypeError', `layerNorm: ${X_KINDS}, got symbol`],
  ['2', 'x as a Float64Array', (c) => c.t.layerNorm(c.f64(3), 3), 'TypeError', `layerNorm: ${X_KINDS}, got Float64Array(3)`],
  ['3', 'x as null', (c) => c.t.layerNorm(null, 3), 'TypeError', `layerNorm: ${X_KINDS}, got null`],
  ['4', 'x as a Proxy of a Float32Array', (c) => c.t.layerNorm(new Proxy(c.x(), {}), 3), 'TypeError', `layerNorm: x must be a Float32Array, ${LOOKALIKE('Float32Array')}`],
  ['4', 'x from Object.create(Float32Array.prototype)', (c) => c.t.layerNorm(Object.create(Float32Array.prototype), 3), 'TypeError', `layerNorm: x must be a Float32Array, ${LOOKALIKE('Float32Array')}`],
  ['5', 'x.length not a multiple of d', (c) => c.t.layerNorm(c.f32(10), 3), 'RangeError', 'layerNorm: x.length must be a multiple of d = 3, got 10 (3 rows and 1 left over)'],
  ['5', 'forward of 4 values with d = 3', (c) => c.norm3.forward(c.f32(4)), 'RangeError', 'LayerNorm.forward: x.length must be a multiple of d = 3, got 4 (1 rows and 1 left over)'],
  ['6', 'layerNormStats with x.length not a multiple of d', (c) => c.t.layerNormStats(c.x(), 5), 'RangeError', 'layerNormStats: x.length must be a multiple of d = 5, got 12 (2 rows and 2 left over)'],
  ['13', 'a row too wide for wasm memory', (c) => c.t.layerNorm(c.f32(0), 2 ** 29), 'RangeError', 'layerNorm: d must be at most 268435456 (one row must fit in wasm memory), got 536870912'],
  ['13', 'a row too wide for wasm memory, with 12 values', (c) => c.t.layerNorm(c.x(), 2 ** 29), 'RangeError', 'layerNorm: d must be at most 268435456 (one row must fit in wasm memory), got 536870912'],
  ['14', 'gamma of the wrong length', (c) => c.t.layerNorm(c.x(), 3, { gamma: c.f32(4) }), 'RangeError', 'layerNorm: gamma must have length d = 3, got length 4'],
  ['14', 'beta of the wrong length', (c) => c.t.layerNorm(c.x(), 3, { beta: c.f32(2) }), 'RangeError', 'layerNorm: beta must have length d = 3, got length 2'],
  ['14', 'layerNormStages with gamma of the wrong length', (c) => c.t.layerNormStages(c.x(), 3, 0, { gamma: c.f32(2) }), 'RangeError', 'layerNormStages: gamma must have length d = 3, got length 2'],
  ['15', 'gamma not a Float32Array', (c) => c.t.layerNorm(c.x(), 3, { gamma: [1, 1, 1] }), 'TypeError', 'layerNorm: gamma must be a Float32Array, got Array(3)'],
  ['15', 'gamma as a Proxy of an array', (c) => c.t.layerNorm(c.x(), 3, { gamma: new Proxy([1, 1, 1], {}) }), 'TypeError', 'layerNorm: gamma must be a Float32Array, got Array(3)'],
  ['15', 'options as a Proxy with a Float64Array gamma', (c) => c.t.layerNorm(c.x(), 3, new Proxy({ gamma: c.f64(3) }, {})), 'TypeError', 'layerNorm: gamma must be a Float32Array, got Float64Array(3)'],
  ['16', 'beta as a Float64Array', (c) => c.t.layerNorm(c.x(), 3, { beta: c.f64(3) }), 'TypeError', 'layerNorm: beta must be a Float32Array, got Float64Array(3)'],
  ['21', 'out of the wrong length', (c) => c.t.layerNorm(c.x(), 3, { out: c.f32(11) }), 'RangeError', 'layerNorm: out must have length 12 (the same as x), got length 11'],
  ['22', 'forward into an out of the wrong length', (c) => c.norm3.forward(c.x(), c.f32(3)), 'RangeError', 'LayerNorm.forward: out must have length 12 (the same as x), got length 3'],
  ['23', 'out of the wrong type', (c) => c.t.layerNorm(c.x(), 3, { out: c.f64(12) }), 'TypeError', 'layerNorm: out must be a Float32Array, got Float64Array(12)'],
  ['24', 'options not an object', (c) => c.t.layerNorm(c.x(), 3, 5), 'TypeError', 'layerNorm: options must be an object, got number 5'],
  ['25', 'a detached input', (c) => c.t.layerNorm(c.detached(c.f32(6)), 3), 'TypeError', `layerNorm: x ${DETACHED} Float32Array`],
  ['25', 'x on a detached buffer', (c) => c.t.layerNorm(c.detached(c.x()), 3), 'TypeError', `layerNorm: x ${DETACHED} Float32Array`],
  ['25', 'forward of a detached x', (c) => c.norm3.forward(c.detached(c.x())), 'TypeError', `LayerNorm.forward: x ${DETACHED} Float32Array`],
  ['26', 'detached gamma', (c) => c.t.layerNorm(c.x(), 3, { gamma: c.detached(c.f32(3)) }), 'TypeError', `layerNorm: gamma ${DETACHED} Float32Array`],
  ['26', 'detached out', (c) => c.t.layerNorm(c.x(), 3, { out: c.detached(c.f32(12)) }), 'TypeError', `layerNorm: out ${DETACHED} Float32Array`],
  ['32', 'createLayerNorm with a negative eps', (c) => c.t.createLayerNorm(3, { eps: -1 }), 'RangeError', 'createLayerNorm: eps must be a finite number >= 0, got number -1'],
  ['33', 'createLayerNorm with gamma of length 5', (c) => c.t.createLayerNorm(3, { gamma: c.f32(5) }), 'RangeError', 'createLayerNorm: gamma must have length d = 3, got length 5'],
  ['34', 'forward with a Float64Array', (c) => c.norm3.forward(c.f64(12)), 'TypeError', 'LayerNorm.forward: x must be a Float32Array, got Float64Array(12)'],
  ['34', 'forward with an Array', (c) => c.norm3.forward([1, 2, 3]), 'TypeError', 'LayerNorm.forward: x must be a Float32Array, got Array(3)'],
  ['35', 'forward of a disposed LayerNorm', (c) => c.disposedNorm.forward(c.x()), 'DisposedError', 'LayerNorm.forward: this LayerNorm was disposed; create a new one'],
  ['35', 'forward of a disposed RMSNorm', (c) => c.disposedRmsNorm.forward(c.x()), 'DisposedError', 'LayerNorm.forward: this RMSNorm was disposed; create a new one'],
  ['36', 'forwardTensor on a disposed LayerNorm', (c) => c.disposedNorm.forwardTensor(c.tensors.t13, c.tensors.t13), 'DisposedError', 'LayerNorm.forwardTensor: this LayerNorm was disposed; create a new one', MAIN],
  ['36', 'forwardTensor into a disposed tensor', (c) => c.norm3.forwardTensor(c.tensors.t13, c.tensors.disposed), 'DisposedError', 'LayerNorm.forwardTensor: this WasmTensor was disposed', MAIN],
  ['37', 'the view of a disposed tensor', (c) => c.tensors.disposed.view, 'DisposedError', 'WasmTensor.view: this WasmTensor was disposed', MAIN],
  ['37', 'toArray of a disposed tensor', (c) => c.tensors.disposed.toArray(), 'DisposedError', 'WasmTensor.toArray: this WasmTensor was disposed', MAIN],
  ['38', 'forwardTensor from 4 rows into 2', (c) => c.norm3.forwardTensor(c.tensors.a43, c.tensors.b23), 'RangeError', 'LayerNorm.forwardTensor: output must have as many rows as input (4), got 2', MAIN],
  ['38', 'forwardTensor from 2 rows into 1', (c) => c.norm3.forwardTensor(c.tensors.b23, c.tensors.t13), 'RangeError', 'LayerNorm.forwardTensor: output must have as many rows as input (2), got 1', MAIN],
  ['38', 'forwardTensor into a tensor of the scalar runtime', (c) => c.norm3.forwardTensor(c.tensors.a43, c.tensors.foreign), 'TypeError', 'LayerNorm.forwardTensor: output belongs to a different runtime (another init() backend)', MAIN],
  ['38a', 'forwardTensor into {}', (c) => c.norm3.forwardTensor(c.tensors.a43, {}), 'TypeError', 'LayerNorm.forwardTensor: output must be a WasmTensor from allocate(), got Object', MAIN],
  ['38a', 'forwardTensor from {}', (c) => c.norm3.forwardTensor({}, c.tensors.b23), 'TypeError', 'LayerNorm.forwardTensor: input must be a WasmTensor from allocate(), got Object', MAIN],
  ['38a', 'forwardTensor into a tensor of d = 4', (c) => c.norm3.forwardTensor(c.tensors.a43, c.tensors.c44), 'RangeError', 'LayerNorm.forwardTensor: tensors must have d = 3, got input d = 3 and output d = 4', MAIN],
  ['39', 'WasmTensor.set of 13 values into 12', (c) => c.tensors.a43.set(c.f32(13)), 'RangeError', 'WasmTensor.set: 13 values at offset number 0 do not fit in a tensor of 12 values', MAIN],
  ['39', 'WasmTensor.set of 7 values into 6', (c) => c.tensors.b23.set(c.f64(7)), 'RangeError', 'WasmTensor.set: 7 values at offset number 0 do not fit in a tensor of 6 values', MAIN],
  ['39', 'WasmTensor.set at offset 1.5', (c) => c.tensors.b23.set([1], 1.5), 'RangeError', 'WasmTensor.set: 1 values at offset number 1.5 do not fit in a tensor of 6 values', MAIN],
  ['39a', 'WasmTensor.set of "abc"', (c) => c.tensors.b23.set('abc'), 'TypeError', 'WasmTensor.set: data must be an array or typed array of numbers, got string "abc"', MAIN],
  ['39a', 'WasmTensor.set of a BigInt64Array', (c) => c.tensors.b23.set(new BigInt64Array(2)), 'TypeError', 'WasmTensor.set: data must be an array or typed array of numbers, got BigInt64Array(2)', MAIN],
  ['39a', 'WasmTensor.set of [1, 2n]', (c) => c.tensors.b23.set([1, 2n]), 'TypeError', 'WasmTensor.set: data[1] must be a number, got bigint 2n', MAIN],
  ['39a', 'WasmTensor.set of ["1"]', (c) => c.tensors.b23.set(['1']), 'TypeError', 'WasmTensor.set: data[0] must be a number, got string "1"', MAIN],
  ['39a', 'WasmTensor.set of an Object.create(Float32Array.prototype)', (c) => c.tensors.b23.set(Object.create(Float32Array.prototype)), 'TypeError', 'WasmTensor.set: data must be an array or typed array of numbers, got an object that only inherits from a typed array prototype (a Proxy or Object.create result, not a typed array)', MAIN],
  ['41', 'a method of the Promise init() returns, before it resolves', (c) => c.pkg.init().layerNorm(c.x(), 3), 'TypeError', '….layerNorm is not a function', MAIN],
  ['41', 'a method of a pending init() kept in a variable', (c) => { const pending = c.pkg.init(); return pending.layerNorm(c.x(), 3); }, 'TypeError', '….layerNorm is not a function', MAIN],
  ['42', 'init with an unknown backend', (c) => c.pkg.init({ backend: 'gpu' }), 'TypeError', `init: backend must be 'auto', 'simd' or 'scalar', got string "gpu"`, { on: 'main', async: true }],
  ['42', 'init with a backend that is a number', (c) => c.pkg.init({ backend: 1 }), 'TypeError', `init: backend must be 'auto', 'simd' or 'scalar', got number 1`, { on: 'main', async: true }],
  ['42', 'embeddedWasm of an unknown backend', (c) => c.inline.embeddedWasm('gpu'), 'TypeError', `embeddedWasm: backend must be 'simd' or 'scalar', got string "gpu"`, { on: 'main', async: true }],
  ['42', 'init with options that are a number', (c) => c.pkg.init(5), 'TypeError', 'init: options must be an object, got number 5', { on: 'main', async: true }],
  [
    '43',
    "init with backend 'simd' where SIMD128 is missing",
    async (c) => {
      const real = c.features.simd;
      c.features.simd = async () => false;
      try {
        return await c.pkg.init({ backend: 'simd' });
      } finally {
        c.features.simd = real;
      }
    },
    'UnsupportedError',
    "init: backend 'simd' was requested but this engine does not support WebAssembly SIMD128; use backend 'auto' or 'scalar'",
    { on: 'main', async: true },
  ],
  ['45', 'an allocation larger than wasm can ever hold', (c) => c.t.allocate(600_000_000, 1), 'RangeError', 'allocate(600000000, 1) needs 2.24 GiB of wasm memory, more than the module can ever hold (2.00 GiB)', MAIN],
  [
    '46',
    'a second 1 GiB row while a 1 GiB tensor is held',
    (c) => {
      // 2^28 floats = 1 GiB per row: more than the 2 GiB heap can still reserve beside the first.
      const hog = c.t.allocate(1, 2 ** 28);
      try {
        return c.t.allocate(1, 2 ** 28);
      } finally {
        hog.dispose();
      }
    },
    'RangeError',
    'allocate(1, 268435456) needs 1.00 GiB of wasm memory, but only … more can be reserved (limit 2.00 GiB); use smaller inputs or process them in parts',
    MAIN,
  ],
];

/**
 * The rule of the number arguments (errors.md, above the table): a value of the wrong type is a
 * TypeError, a number out of bounds a RangeError, with the same message; at every entry point.
 * [entry, call(c, v), message, wrong types, wrong values, row of each value, flags].
 */
const rows =
  (types, values, special = {}) =>
  (v) =>
    special[show(v)] ?? (typeof v === 'number' ? values : types);
// prettier-ignore
const NUMBER_ARGS = [
  ['layerNorm d', (c, v) => c.t.layerNorm(c.x(), v), 'layerNorm: d must be a positive integer', ['3', 3n, true, null, {}], [0, -3, 2.5, NaN, Infinity], rows('12', '7', { '"3"': '11', 2.5: '8', NaN: '9', Infinity: '10' })],
  ['layerNorm eps', (c, v) => c.t.layerNorm(c.x(), 3, { eps: v }), 'layerNorm: eps must be a finite number >= 0', ['1e-5', 1n, null, false], [-1e-5, -1, NaN, Infinity, -Infinity], rows('20', '17', { NaN: '18', Infinity: '19', '-Infinity': '19' })],
  ['layerNormStats d', (c, v) => c.t.layerNormStats(c.x(), v), 'layerNormStats: d must be a positive integer', ['3', 3n], [0.5], rows('12', '7')],
  ['layerNormStats eps', (c, v) => c.t.layerNormStats(c.x(), 3, { eps: v }), 'layerNormStats: eps must be a finite number >= 0', ['0', 0n], [-0.5, -1], rows('20', '17')],
  ['layerNormStages d', (c, v) => c.t.layerNormStages(c.x(), v, 0), 'layerNormStages: d must be a positive integer', ['3', 3n], [-1], rows('12', '7')],
  ['layerNormStages row', (c, v) => c.t.layerNormStages(c.x(), 3, v), 'layerNormStages: row must be an integer in [0, 4)', ['0', 0n, null, undefined], [4, -1, 1.5, NaN], rows('31', '31', { 4: '30', '-1': '30' })],
  ['layerNormStages eps', (c, v) => c.t.layerNormStages(c.x(), 3, 0, { eps: v }), 'layerNormStages: eps must be a finite number >= 0', [1n], [Infinity], rows('20', '19')],
  ['createLayerNorm d', (c, v) => c.t.createLayerNorm(v), 'createLayerNorm: d must be a positive integer', ['3', 3n, undefined], [0, 3.5], rows('12', '7')],
  ['createLayerNorm eps', (c, v) => c.t.createLayerNorm(3, { eps: v }), 'createLayerNorm: eps must be a finite number >= 0', ['1', 1n], [-1e-9], rows('20', '17')],
  ['allocate rows', (c, v) => c.t.allocate(v, 3), 'allocate: rows must be an integer >= 0', ['1', 1n, undefined], [-1, 1.5, NaN], rows('40', '40'), MAIN],
  ['allocate d', (c, v) => c.t.allocate(1, v), 'allocate: d must be a positive integer', ['3', 3n], [0], rows('12', '7'), MAIN],
  ['WasmTensor.set offset', (c, v) => c.tensors.b23.set([1], v), 'WasmTensor.set: offset must be an integer >= 0', ['1', 1n, null], [], rows('39a', '39a'), MAIN],
];

const GENERATED = NUMBER_ARGS.flatMap(([entry, call, message, types, values, rowOf, flags]) =>
  [...types, ...values].map((v) => [
    rowOf(v),
    `${entry} = ${show(v)}`,
    (c) => call(c, v),
    typeof v === 'number' ? 'RangeError' : 'TypeError',
    `${message}, got ${described(v)}`,
    flags,
  ]),
);

export const NUMERIC_CASES = [...CALLS, ...GENERATED];
