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
import fc from 'fast-check';
import { DisposedError, float32ToHalfBits, halfBitsToFloat32, init } from '../../dist/index.js';
import { freshRuntime, growOnAllocate, memoryBytes } from '../helpers/heap-growth.mjs';
import { FuzzFailure, describeError, fail, sameBits } from './oracle.mjs';

/** The runtime's chunk is 65,536 floats: a row one wider takes the allocating path. */
const WIDE = (1 << 16) + 1;
/** Floats of the tensor that wasm-backed arguments view: room for three overlapping wide rows. */
const POOL = 3 * WIDE + 64;
const MEMORY_BUDGET = 64 * 2 ** 20;

// ---------------------------------------------------------------- the catalogue, as patterns

const FN =
  '(?<fn>layerNorm|rmsNorm|layerNormStats|layerNormStages|rmsNormStages|layerNormalization|createLayerNorm|createRmsNorm|allocate|LayerNorm\\.forward|LayerNorm\\.forwardTensor|WasmTensor\\.set|WasmTensor\\.view|WasmTensor\\.toArray|float32ToHalfBits|halfBitsToFloat32|init)';
/** What errors.ts's describe() writes for a value. */
const GOT = '(?<got>null|undefined|number \\S+|string ".*"|bigint -?\\d+n|[A-Za-z_$][\\w$]*(\\(\\d+\\))?)';
const SIZE = '\\S+ (bytes|KiB|MiB|GiB)';
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
    `${FN}: (sumOut and out must not share memory \\(the sum and the output are both kept\\)|mean and rstd must not share memory|(mean|rstd) and (out|sumOut) must not share memory \\(both are outputs\\))`,
  ],
  [
    'no such RMSNorm option',
    TypeError,
    `${FN}: RMSNorm has no (bias term, so no beta|mean, so no mean) option; got (beta|mean) ${GOT}`,
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
  ['init backend', TypeError, `(?<fn>init): backend must be 'auto', 'simd' or 'scalar', got .+`],
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
    `(?<fn>layerNormalization): (shape ${DIMS} holds \\S+ values, but x has \\d+|(gamma|beta)\\.shape ${DIMS} holds \\S+ values, but (gamma|beta)\\.data has \\d+)`,
  ],
  [
    'axis',
    'by value',
    `(?<fn>layerNormalization): axis must be an integer in \\[-\\d+, \\d+\\) for a rank-\\d+ x, got ${GOT}`,
  ],
  [
    'normalized size',
    RangeError,
    `(?<fn>layerNormalization): the normalized dimensions ${DIMS} \\(axis -?\\d+\\) hold (no values to normalize|\\S+ values, more than a row may have \\(268435456: one row must fit in wasm memory\\))`,
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

// ---------------------------------------------------------------- generated calls

/** Units of each kind of view that the pool tensor (POOL floats) holds. */
const POOL_UNITS = { f32: POOL, u16: 2 * POOL, f64: Math.floor(POOL / 2) - 1 };

/**
 * An argument that views wasm memory: `length` units of a `type` view ('f32', 'u16', 'f64') at
 * unit `at` of the context's pool tensor.
 */
class WasmView {
  constructor(at, length, type = 'f32') {
    this.type = type;
    this.at = Math.max(0, Math.min(at, POOL_UNITS[type] - length));
    this.length = length;
  }
  [fc.toStringMethod]() {
    return `wasmView(${this.at}, ${this.length}${this.type === 'f32' ? '' : `, ${this.type}`})`;
  }
}

/** An argument that is a view of wasm memory taken before memory last grew: detached. */
class StaleView {
  [fc.toStringMethod]() {
    return 'staleWasmView';
  }
}

const TYPED = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
];

function detachedOf(T, n) {
  const a = new T(n);
  structuredClone(a.buffer, { transfer: [a.buffer] });
  return a;
}

/** len floats: any float32 (NaN, ±Inf, subnormals) when short; a seeded pattern when long. */
function floats(len) {
  if (len <= 64) return fc.float32Array({ minLength: len, maxLength: len });
  return fc.integer({ min: 0, max: 999 }).map((seed) => {
    const a = new Float32Array(len);
    for (let i = 0; i < len; i++) a[i] = seed / 100 + (i % 13) * 0.25;
    return a;
  });
}

/** len 16-bit patterns: any (NaN, Inf and subnormal patterns of both types) when short. */
function halves(len) {
  if (len <= 64)
    return fc
      .array(fc.integer({ min: 0, max: 0xffff }), { minLength: len, maxLength: len })
      .map((a) => Uint16Array.from(a));
  return fc
    .integer({ min: 0, max: 999 })
    .map((seed) => Uint16Array.from({ length: len }, (_, i) => 0x3c00 + ((seed + i * 7) % 0x400)));
}

/** len float64 values, as the statistics options take them. */
function doubles(len) {
  return fc.constantFrom(0, 1, -1).map((v) => new Float64Array(len).fill(v));
}

/** Views of wasm memory of length len, placed so that arguments of a call often overlap. */
function wasmView(len, type = 'f32') {
  const f64 = type === 'f64';
  return fc
    .constantFrom(0, 1, 5, len, 2 * len + 3)
    .map((at) => new WasmView(f64 ? at : type === 'u16' ? 2 * at + (at % 2) : at, len, type));
}

/** Arrays of the activations' kind: Float32Array for float32, Uint16Array bits for the 16-bit types. */
function activations(kind, len) {
  const type = kind === 'float32' ? 'f32' : 'u16';
  return fc.oneof(
    { weight: 3, arbitrary: kind === 'float32' ? floats(len) : halves(len) },
    { weight: 2, arbitrary: wasmView(len, type) },
  );
}

/** Values of every kind; `d` and `rows` bias lengths towards ones that pass the shape checks. */
function anyValue(d, rows) {
  const n = d * rows;
  return fc.oneof(
    { weight: 6, arbitrary: floats(n) },
    { weight: 3, arbitrary: floats(d) },
    { weight: 2, arbitrary: fc.float32Array({ maxLength: 40 }) },
    { weight: 2, arbitrary: fc.oneof(halves(n), halves(d)) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        wasmView(n),
        wasmView(d),
        wasmView(n, 'u16'),
        wasmView(rows, 'f64'),
        fc.constant(new StaleView()),
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        undefined,
        null,
        true,
        false,
        0,
        -0,
        NaN,
        Infinity,
        -Infinity,
        1e308,
        -1,
        1.5,
        2 ** 28,
        2 ** 29,
        2 ** 31,
        2 ** 32,
        2 ** 53,
        Number.MAX_SAFE_INTEGER,
        Number.MIN_VALUE,
        '',
        'abc',
        '3',
        '1e-5',
        'float16',
        10n,
        Symbol('s'),
        {},
        [],
        () => 1,
      ),
    },
    { weight: 1, arbitrary: fc.double() },
    { weight: 1, arbitrary: fc.integer({ min: -3, max: 70 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
    { weight: 1, arbitrary: fc.array(fc.double(), { maxLength: Math.min(n + 1, 64) }) },
    {
      weight: 2,
      arbitrary: fc.array(fc.oneof(fc.double(), fc.constantFrom('1', 1n, null, undefined)), { maxLength: 8 }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.integer({ min: 0, max: TYPED.length - 1 }), fc.constantFrom(0, 1, d, n, n + 1, rows))
        .map(([k, len]) => new TYPED[k](len)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(Float32Array, Uint16Array, Float64Array), fc.constantFrom(n, d, rows, 0, 3))
        .map(([T, len]) => detachedOf(T, len)),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(n, d).map((len) => {
        const a = new Float32Array(new SharedArrayBuffer(4 * len));
        for (let i = 0; i < len; i++) a[i] = i % 7;
        return a;
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom(n, d).map((len) => new Float32Array(len + 3).subarray(1, 1 + len)) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('proto', 'proxy', 'proxy16', 'proxy64', 'object', 'nullproto', 'f32-subclass')
        .map((kind) => {
          switch (kind) {
            case 'proto':
              return Object.create(Float32Array.prototype);
            case 'proxy':
              return new Proxy(new Float32Array(n), {});
            case 'proxy16':
              return new Proxy(new Uint16Array(n), {});
            case 'proxy64':
              return new Proxy(new Float64Array(rows), {});
            case 'object':
              return { length: n, 0: 1 };
            case 'nullproto':
              return Object.create(null);
            default:
              return new (class Sub extends Float32Array {})(n);
          }
        }),
    },
  );
}

/** A call to one entry point with arbitrary arguments, described for shrinking and reports. */
export function apiCallArbitrary() {
  const shape = fc.oneof(
    { weight: 30, arbitrary: fc.record({ d: fc.integer({ min: 1, max: 12 }), rows: fc.integer({ min: 0, max: 4 }) }) },
    { weight: 1, arbitrary: fc.record({ d: fc.constant(WIDE), rows: fc.integer({ min: 0, max: 2 }) }) },
  );
  const kinds = fc.constantFrom('float32', 'float32', 'float16', 'bfloat16');
  return fc.tuple(shape, kinds).chain(([{ d, rows }, kind]) => {
    const n = d * rows;
    const value = anyValue(d, rows);
    const eps = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.constantFrom(undefined, 0, -0, 1e-5, 1, 1e300, -1e-5, NaN, Infinity, -Infinity, Number.MIN_VALUE),
      },
      { weight: 2, arbitrary: fc.double() },
      { weight: 1, arbitrary: value },
    );
    // Mostly well-formed, so that calls get past the first check often enough.
    const param = fc.oneof(
      { weight: 4, arbitrary: floats(d) },
      { weight: 2, arbitrary: wasmView(d) },
      { weight: 2, arbitrary: fc.constantFrom(undefined, null) },
      { weight: 2, arbitrary: value },
    );
    /** An array of x's kind and length (out, residual, sumOut), or something else. */
    const like = (absent) =>
      fc.oneof(
        { weight: 4, arbitrary: activations(kind, n) },
        { weight: 2, arbitrary: fc.constant(absent) },
        { weight: 2, arbitrary: value },
      );
    const perRow = fc.oneof(
      { weight: 3, arbitrary: doubles(rows) },
      { weight: 3, arbitrary: wasmView(rows, 'f64') },
      { weight: 2, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom(rows + 1, Math.max(rows - 1, 0)).chain(doubles) },
      { weight: 1, arbitrary: value },
    );
    const dtype = fc.oneof(
      { weight: 8, arbitrary: fc.constant(kind === 'float32' ? undefined : kind) },
      { weight: 2, arbitrary: fc.constantFrom(undefined, 'float32', 'float16', 'bfloat16') },
      { weight: 1, arbitrary: value },
    );
    const outArg = like(undefined);
    // Mostly the classic options; now and then an option that needs a residual, without one.
    const plainOptions = fc.record(
      {
        gamma: param,
        beta: param,
        eps,
        out: outArg,
        dtype,
        bias: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: param }),
        sumOut: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: like(undefined) }),
        rstd: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: perRow }),
      },
      { requiredKeys: [] },
    );
    const fusedOptions = fc.record(
      {
        gamma: param,
        beta: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: param }),
        eps,
        out: outArg,
        dtype,
        residual: fc.oneof({ weight: 5, arbitrary: activations(kind, n) }, { weight: 1, arbitrary: value }),
        bias: param,
        sumOut: like(undefined),
        mean: perRow,
        rstd: perRow,
      },
      { requiredKeys: ['residual'] },
    );
    // Outputs made to share memory now and then: sumOut the out array, or mean in out's memory.
    const aliasedOptions = fc.tuple(fusedOptions, fc.constantFrom('sumOut = out', 'mean in out')).map(([o, alias]) => {
      if (alias === 'sumOut = out') return { ...o, sumOut: o.out };
      const out = o.out;
      if (out instanceof WasmView && out.type === 'f32') return { ...o, mean: new WasmView(out.at >> 1, rows, 'f64') };
      if (
        ArrayBuffer.isView(out) &&
        out instanceof Float32Array &&
        rows > 0 &&
        out.byteOffset % 8 === 0 &&
        out.byteLength >= 8 * rows
      )
        return { ...o, mean: new Float64Array(out.buffer, out.byteOffset, rows) };
      return o;
    });
    // layerNormalization: shapes whose product is n, mostly, cut at any axis.
    const onnxShape = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom([rows, d], [rows, 1, d], [n], [1, rows, d], [rows, d, 1]) },
      { weight: 1, arbitrary: fc.array(fc.integer({ min: -1, max: 6 }), { maxLength: 4 }) },
      { weight: 1, arbitrary: value },
    );
    const onnxParam = fc.oneof(
      { weight: 3, arbitrary: param },
      {
        weight: 3,
        arbitrary: fc.record({
          data: fc.oneof(floats(d), wasmView(d), floats(1), value),
          shape: fc.oneof(fc.constantFrom([d], [1, d], [1], [d, 1], [1, 1, d], [rows, d], [2]), value),
        }),
      },
    );
    const onnxOptions = fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record(
          {
            axis: fc.oneof(fc.integer({ min: -4, max: 3 }), value),
            gamma: onnxParam,
            beta: onnxParam,
            epsilon: eps,
            dtype,
          },
          { requiredKeys: [] },
        ),
      },
      { weight: 1, arbitrary: value },
    );
    return fc.record({
      op: fc.constantFrom(
        'layerNorm',
        'layerNorm',
        'rmsNorm',
        'rmsNorm',
        'layerNormStats',
        'layerNormStages',
        'rmsNormStages',
        'layerNormalization',
        'layerNormalization',
        'forward',
        'forwardRms',
        'forwardDisposed',
        'tensor',
        'tensor',
        'halfBits',
        'init',
      ),
      x: fc.oneof(
        { weight: 4, arbitrary: activations(kind, n) },
        { weight: 1, arbitrary: wasmView(n, kind === 'float32' ? 'u16' : 'f32') },
        { weight: 3, arbitrary: value },
      ),
      d: fc.oneof({ weight: 8, arbitrary: fc.constant(d) }, { weight: 2, arbitrary: value }),
      row: fc.oneof(fc.integer({ min: -1, max: rows }), value),
      options: fc.oneof(
        { weight: 4, arbitrary: plainOptions },
        { weight: 4, arbitrary: fusedOptions },
        { weight: 1, arbitrary: aliasedOptions },
        { weight: 1, arbitrary: value },
      ),
      out: outArg,
      shape: onnxShape,
      onnx: onnxOptions,
      // halfBits: float32ToHalfBits(x, dtype) or halfBitsToFloat32(x, dtype).
      toHalf: fc.boolean(),
      halfDtype: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom('float16', 'bfloat16') },
        { weight: 1, arbitrary: value },
      ),
      // The tensor op: allocate(rows, d, { dtype }), set(tensorData, offset), then forwardTensor into `target`.
      tensorRows: fc.oneof(
        { weight: 8, arbitrary: fc.constant(rows) },
        { weight: 1, arbitrary: value },
        { weight: 1, arbitrary: fc.constantFrom(2 ** 29, 2 ** 31, 1e21) }, // more than wasm memory holds
      ),
      tensorDtype: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(undefined, kind) },
        { weight: 1, arbitrary: value },
      ),
      tensorData: fc.oneof(
        { weight: 4, arbitrary: activations(kind, n) },
        {
          weight: 1,
          arbitrary: fc.array(fc.oneof(fc.double(), fc.constantFrom('1', 1n, null, undefined)), {
            minLength: 1,
            maxLength: Math.max(1, Math.min(n, 8)),
          }),
        },
        { weight: 2, arbitrary: value },
      ),
      offset: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: value }),
      target: fc.constantFrom('same', 'other', 'other', 'more rows', 'wider', 'other dtype', 'foreign', 'not a tensor'),
      initOptions: fc.oneof(
        fc.record({ backend: fc.oneof(fc.constantFrom('auto', 'simd', 'scalar'), value) }, { requiredKeys: [] }),
        value,
      ),
      grow: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    });
  });
}

// ---------------------------------------------------------------- running a call

/** The options a call writes besides its result, read back to compare. */
const WRITTEN = ['sumOut', 'mean', 'rstd'];

class ApiContext {
  rt = null;
  growth = null;
  pool = null;
  stale = null;
  foreign = null; // a tensor of another runtime
  #probe = new Float32Array([0.5, -1, 2, 7, 7, 7, 1e-3, 1e4, -3e4]);
  #probeGamma = new Float32Array([1.5, -0.25, 3]);
  #expected = null;
  /** What the runs reached, for the test to check that they reach what they should. */
  counts = { calls: 0, wasmArguments: 0, grewAndReturned: 0, grewAndThrew: 0, runtimes: 0, errors: {} };

  /** A runtime of its own with a pool tensor, replaced once its memory passes the budget. */
  async ready() {
    this.foreign ??= (await init({ backend: 'scalar' })).allocate(1, 1);
    if (this.rt && memoryBytes(this.rt) <= MEMORY_BUDGET) return;
    this.growth?.restore();
    this.rt = await freshRuntime('simd');
    this.growth = growOnAllocate(this.rt);
    this.pool = this.rt.allocate(1, POOL);
    this.pool.set(fc.sample(floats(POOL), { seed: this.counts.runtimes, numRuns: 1 })[0]);
    if (this.pool.view.byteOffset % 8 !== 0) fail('the pool tensor is not 8-aligned');
    this.stale = this.pool.view;
    this.growth.during(() => this.rt.allocate(1, 1).dispose());
    if (this.stale.length !== 0) fail('the stale view of wasm memory is not detached');
    this.#expected = this.rt.layerNorm(this.#probe, 3, { gamma: this.#probeGamma });
    this.counts.runtimes++;
  }

  count(errorName) {
    this.counts.errors[errorName] = (this.counts.errors[errorName] ?? 0) + 1;
  }

  checkWorking() {
    const y = this.rt.layerNorm(this.#probe, 3, { gamma: this.#probeGamma });
    if (!sameBits(y, this.#expected)) fail('the runtime computes a different result after the call');
  }

  /** A fresh view of the pool's memory for a WasmView. */
  view(v) {
    const base = this.pool.view;
    if (v.type === 'u16') return new Uint16Array(base.buffer, base.byteOffset + 2 * v.at, v.length);
    if (v.type === 'f64') return new Float64Array(base.buffer, base.byteOffset + 8 * v.at, v.length);
    return base.subarray(v.at, v.at + v.length);
  }

  /**
   * The call's arguments, each made a JS value when the op reaches it: a view of the pool then (a
   * view taken before one of the op's own allocations would be detached by it, for a user as here),
   * or a plain copy. `arg.seen` keeps what was handed out; `arg.written()` reads back the options
   * the call writes (from the pool for views, which the call may have detached by growing it).
   */
  arguments(call, copies) {
    const m = (v, depth = 2) => {
      if (v instanceof StaleView) return this.stale;
      if (v instanceof WasmView) {
        const view = this.view(v);
        return copies ? view.slice() : view;
      }
      if (depth > 0 && isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, w]) => [k, m(w, depth - 1)]));
      return v;
    };
    const seen = {};
    const arg = (name) => (seen[name] = m(call[name]));
    arg.seen = seen;
    arg.written = () => {
      const out = {};
      if (!isRecord(call.options) || !isRecord(seen.options)) return out;
      for (const key of WRITTEN) {
        const v = call.options[key];
        if (v === undefined || v === null) continue;
        if (v instanceof WasmView && !copies) out[key] = this.view(v).slice();
        else if (ArrayBuffer.isView(seen.options[key])) out[key] = seen.options[key].slice();
      }
      return out;
    };
    return arg;
  }
}

function isRecord(v) {
  return v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;
}

function usesWasmMemory(v, depth = 3) {
  if (v instanceof WasmView) return true;
  return depth > 0 && isRecord(v) && Object.values(v).some((w) => usesWasmMemory(w, depth - 1));
}

/** Runs one op, taking each argument from `arg` when it is used. */
function invoke(rt, call, arg, foreign) {
  const { op, target } = call;
  switch (op) {
    case 'layerNorm':
    case 'rmsNorm': {
      const y = rt[op](arg('x'), arg('d'), arg('options'));
      return { y, written: arg.written() };
    }
    case 'layerNormStats':
      return rt.layerNormStats(arg('x'), arg('d'), arg('options'));
    case 'layerNormStages':
    case 'rmsNormStages':
      return rt[op](arg('x'), arg('d'), arg('row'), arg('options'));
    case 'layerNormalization':
      return rt.layerNormalization(arg('x'), arg('shape'), arg('onnx'));
    case 'halfBits':
      return call.toHalf
        ? float32ToHalfBits(arg('x'), arg('halfDtype'))
        : halfBitsToFloat32(arg('x'), arg('halfDtype'));
    case 'forward':
    case 'forwardRms':
    case 'forwardDisposed': {
      const ln =
        op === 'forwardRms' ? rt.createRmsNorm(arg('d'), arg('options')) : rt.createLayerNorm(arg('d'), arg('options'));
      try {
        if (op === 'forwardDisposed') {
          ln.dispose();
          try {
            ln.forward(arg('x'), arg('out'));
          } catch (e) {
            if (!(e instanceof DisposedError)) fail(`forward after dispose threw ${describeError(e)}`);
            throw e;
          }
          fail('forward on a disposed LayerNorm did not throw');
        }
        const x = arg('x'),
          out = arg('out');
        return out === undefined ? ln.forward(x) : ln.forward(x, out);
      } finally {
        ln.dispose();
      }
    }
    case 'tensor': {
      const dtype = arg('tensorDtype');
      const t = rt.allocate(arg('tensorRows'), arg('d'), dtype === undefined ? undefined : { dtype });
      try {
        t.set(arg('tensorData'), arg('offset'));
        const ln = rt.createLayerNorm(t.d, arg('options'));
        try {
          const input = t.toArray();
          if (target === 'not a tensor') return ln.forwardTensor(t, arg('out'));
          if (target === 'foreign') return ln.forwardTensor(t, foreign);
          if (target === 'same') {
            ln.forwardTensor(t, t);
            return { input, output: t.toArray() };
          }
          const otherDtype = target === 'other dtype' ? (t.dtype === 'float32' ? 'bfloat16' : 'float32') : t.dtype;
          const o = rt.allocate(t.rows + (target === 'more rows' ? 1 : 0), t.d + (target === 'wider' ? 1 : 0), {
            dtype: otherDtype,
          });
          try {
            ln.forwardTensor(t, o);
            return { input, output: o.toArray() };
          } finally {
            o.dispose();
          }
        } finally {
          ln.dispose();
        }
      } finally {
        t.dispose();
      }
    }
  }
  return fail(`unknown op ${op}`);
}

function outcome(run) {
  try {
    return { ok: true, value: run() };
  } catch (e) {
    if (e instanceof FuzzFailure) throw e;
    return { ok: false, error: e };
  }
}

/** Whether two results of one op are the same, bit for bit. */
function sameResult(a, b) {
  if (ArrayBuffer.isView(a)) return ArrayBuffer.isView(b) && a.constructor === b.constructor && sameBits(a, b);
  if (a === null || typeof a !== 'object') return Object.is(a, b);
  if (b === null || typeof b !== 'object') return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => sameResult(a[k], b[k]));
}

async function checkInit(ctx, call) {
  let runtime;
  try {
    runtime = await init(call.initOptions);
  } catch (e) {
    ctx.count(documentedError('init', e));
    return;
  }
  const asked = call.initOptions?.backend;
  const expected = asked === 'scalar' ? 'scalar' : 'simd';
  if (runtime.backend !== expected) fail(`init(${fc.stringify(call.initOptions)}) gave backend ${runtime.backend}`);
}

/** One input of the target; throws FuzzFailure on a violation. */
export async function checkApiCall(ctx, call) {
  await ctx.ready();
  ctx.counts.calls++;
  if (call.op === 'init') return checkInit(ctx, call);
  const { rt } = ctx;
  const before = rt.heapInUse();
  const wasm = [
    call.x,
    call.tensorData,
    call.d,
    call.row,
    call.out,
    call.offset,
    call.tensorRows,
    call.options,
    call.onnx,
    call.shape,
  ].some((v) => usesWasmMemory(v));
  // The same call on plain copies, taken before the call itself may write into the pool.
  const plain = wasm ? outcome(() => invoke(rt, call, ctx.arguments(call, true), ctx.foreign)) : null;
  if (plain && !plain.ok) documentedError(call.op, plain.error);
  const growths = ctx.growth.growths;
  const arg = ctx.arguments(call, false);
  const run = () => invoke(rt, call, arg, ctx.foreign);
  const real = outcome(() => (call.grow ? ctx.growth.during(run) : run()));
  const grew = ctx.growth.growths > growths;
  let refusedSharing = false;
  if (real.ok) {
    const y = call.op === 'layerNorm' || call.op === 'rmsNorm' ? real.value.y : real.value;
    if (['layerNorm', 'rmsNorm', 'forward', 'forwardRms'].includes(call.op)) {
      // (A view of wasm memory handed in is detached if the call grew memory: its length is now 0.)
      const length = call.x instanceof WasmView ? call.x.length : arg.seen.x.length;
      const given = call.x instanceof WasmView ? call.x.type : arg.seen.x instanceof Float32Array ? 'f32' : 'u16';
      const kind = given === 'f32' ? Float32Array : Uint16Array;
      if (!(y instanceof kind) || y.length !== length) fail('a result of the wrong kind or shape');
      const out = call.op === 'layerNorm' || call.op === 'rmsNorm' ? arg.seen.options?.out : arg.seen.out;
      if (out === undefined && y.buffer === ctx.pool.view.buffer) fail('a new result aliases wasm memory');
    }
    if (grew) ctx.counts.grewAndReturned++;
  } else {
    const name = documentedError(call.op, real.error);
    ctx.count(name);
    refusedSharing = name === 'outputs share memory';
    if (grew) ctx.counts.grewAndThrew++;
  }
  if (plain) {
    ctx.counts.wasmArguments++;
    // Views of wasm memory can make two outputs share memory, which plain copies never do.
    const sharing = refusedSharing && plain.ok;
    if (plain.ok !== real.ok && !sharing) {
      fail(
        `with views of wasm memory the call ${real.ok ? 'returned' : `threw ${describeError(real.error)}`}, on plain copies it ${plain.ok ? 'returned' : `threw ${describeError(plain.error)}`}`,
      );
    }
    if (real.ok && !sameResult(real.value, plain.value))
      fail('with views of wasm memory the result differs from plain copies');
    if (
      !real.ok &&
      !plain.ok &&
      (real.error.constructor !== plain.error.constructor || real.error.message !== plain.error.message)
    ) {
      const memory = /of wasm memory/.test(real.error.message) && /of wasm memory/.test(plain.error.message);
      if (!memory && !refusedSharing)
        fail(`views and plain copies threw differently: ${describeError(real.error)} / ${describeError(plain.error)}`);
    }
  }
  if (rt.heapInUse() !== before)
    fail(
      `heapInUse went from ${before} to ${rt.heapInUse()} (${real.ok ? 'a call that returned' : 'a rejected call'})`,
    );
  ctx.checkWorking();
}

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
