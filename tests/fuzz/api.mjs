// The `api` fuzz target: every argument of every numeric entry point, of any type, including views
// of wasm memory (a WasmTensor's `view`) and calls during which wasm memory grows. Each call either
//   - throws one of the library's own errors with a message of the catalogue (web/docs/errors.md):
//     the type the rule gives (a number out of bounds: RangeError; not a number: TypeError), naming
//     the function that was called; or
//   - returns exactly what the same call returns on plain copies of its arguments (which also
//     must not throw), bit for bit;
// and either way the wasm heap ends exactly where it started and the runtime still computes the
// same result for a probe. Engine errors ("Cannot read properties of undefined", detached buffers,
// stack overflow) are failures.
//
// It runs on runtimes of its own (tests/helpers/heap-growth.mjs): a call marked `grow` runs with
// every allocation growing wasm memory, and once memory passes MEMORY_BUDGET the runtime is
// replaced by a fresh one, so growth can be exercised without limit.
import fc from 'fast-check';
import { DisposedError, init } from '../../dist/index.js';
import { freshRuntime, growOnAllocate, memoryBytes } from '../helpers/heap-growth.mjs';
import { FuzzFailure, describeError, fail, sameBits } from './oracle.mjs';

/** The runtime's chunk is 65,536 floats: a row one wider takes the allocating path. */
const WIDE = (1 << 16) + 1;
/** Floats of the tensor that wasm-backed arguments view: room for three overlapping wide rows. */
const POOL = 3 * WIDE + 64;
const MEMORY_BUDGET = 64 * 2 ** 20;

// ---------------------------------------------------------------- the catalogue, as patterns

const FN =
  '(?<fn>layerNorm|layerNormStats|layerNormStages|createLayerNorm|allocate|LayerNorm\\.forward|LayerNorm\\.forwardTensor|WasmTensor\\.set|WasmTensor\\.view|WasmTensor\\.toArray|init)';
/** What errors.ts's describe() writes for a value. */
const GOT = '(?<got>null|undefined|number \\S+|string ".*"|bigint -?\\d+n|[A-Za-z_$][\\w$]*(\\(\\d+\\))?)';
const SIZE = '\\S+ (bytes|KiB|MiB|GiB)';
const LOOKALIKE =
  'an object that only inherits from (Float32Array\\.prototype|a typed array prototype) \\(a Proxy or Object\\.create result, not a typed array\\)';

/**
 * Each message the numeric API documents, as { name, type, pattern }. `type` 'by value' is the
 * rule for number arguments: RangeError when the value described is a number, else TypeError.
 */
const CATALOGUE = [
  ['not a Float32Array', TypeError, `${FN}: (x|gamma|beta|out) must be a Float32Array, got (${GOT}|${LOOKALIKE})`],
  [
    'not an activation array',
    TypeError,
    `${FN}: x must be a Float32Array, a Float16Array, or a Uint16Array with dtype 'float16' or 'bfloat16', got ${GOT}`,
  ],
  [
    'a Uint16Array without dtype',
    TypeError,
    `${FN}: x is a Uint16Array: say which 16-bit type its bits are with dtype: 'float16' or 'bfloat16'`,
  ],
  [
    'detached',
    TypeError,
    `${FN}: (x|gamma|beta|out|data) is a view of a detached ArrayBuffer \\(it was transferred, or it is a wasm memory view taken before memory grew\\); pass a live Float32Array`,
  ],
  ['d', 'by value', `${FN}: d must be a positive integer, got ${GOT}`],
  ['d too wide', RangeError, `${FN}: d must be at most 268435456 \\(one row must fit in wasm memory\\), got \\S+`],
  [
    'not a multiple of d',
    RangeError,
    `${FN}: x\\.length must be a multiple of d = (?<d>\\d+), got (?<n>\\d+) \\((?<rows>\\d+) rows and (?<left>\\d+) left over\\)`,
  ],
  ['eps', 'by value', `${FN}: eps must be a finite number >= 0, got ${GOT}`],
  ['gamma or beta length', RangeError, `${FN}: (gamma|beta) must have length d = \\d+, got length \\d+`],
  ['out length', RangeError, `${FN}: out must have length \\d+ \\(the same as x\\), got length \\d+`],
  ['options', TypeError, `${FN}: options must be an object, got ${GOT}`],
  ['row', 'by value', `(?<fn>layerNormStages): row must be an integer in \\[0, \\d+\\), got ${GOT}`],
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
  ['disposed', DisposedError, `${FN}: this (LayerNorm was disposed; create a new one|WasmTensor was disposed)`],
  [
    'wasm memory',
    RangeError,
    `${FN}(\\(\\S+, \\d+\\)|: .+?) needs ${SIZE} of wasm memory, (more than the module can ever hold \\(2\\.00 GiB\\)|but only ${SIZE} more can be reserved \\(limit 2\\.00 GiB\\); use smaller inputs or process them in parts)`,
  ],
  ['init backend', TypeError, `(?<fn>init): backend must be 'auto', 'simd' or 'scalar', got .+`],
].map(([name, type, source]) => ({ name, type, pattern: new RegExp(`^${source}$`, 's') }));

/** The names of the catalogue's entries, which a long enough run should all reach. */
export const DOCUMENTED_ERRORS = CATALOGUE.map((entry) => entry.name);

/** The functions each op may name in its errors. */
const FUNCTIONS = {
  layerNorm: ['layerNorm'],
  layerNormStats: ['layerNormStats'],
  layerNormStages: ['layerNormStages'],
  forward: ['createLayerNorm', 'LayerNorm.forward'],
  forwardDisposed: ['createLayerNorm', 'LayerNorm.forward'],
  tensor: ['allocate', 'WasmTensor.set', 'createLayerNorm', 'LayerNorm.forwardTensor'],
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

/** An argument that views wasm memory: `length` floats at float `at` of the context's pool tensor. */
class WasmView {
  constructor(at, length) {
    this.at = Math.min(at, POOL - length);
    this.length = length;
  }
  [fc.toStringMethod]() {
    return `wasmView(${this.at}, ${this.length})`;
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

function detachedFloat32(n) {
  const a = new Float32Array(n);
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

/** Views of wasm memory of length len, placed so that arguments of a call often overlap. */
function wasmView(len) {
  return fc.constantFrom(0, 1, 5, len, 2 * len + 3).map((at) => new WasmView(at, len));
}

/** Values of every kind; `d` and `rows` bias lengths towards ones that pass the shape checks. */
function anyValue(d, rows) {
  const n = d * rows;
  return fc.oneof(
    { weight: 6, arbitrary: floats(n) },
    { weight: 3, arbitrary: floats(d) },
    { weight: 2, arbitrary: fc.float32Array({ maxLength: 40 }) },
    { weight: 3, arbitrary: fc.oneof(wasmView(n), wasmView(d), fc.constant(new StaleView())) },
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
        .tuple(fc.integer({ min: 0, max: TYPED.length - 1 }), fc.constantFrom(0, 1, d, n, n + 1))
        .map(([k, len]) => new TYPED[k](len)),
    },
    { weight: 1, arbitrary: fc.constantFrom(n, d, 0, 3).map((len) => detachedFloat32(len)) },
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
      arbitrary: fc.constantFrom('proto', 'proxy', 'object', 'nullproto', 'f32-subclass').map((kind) => {
        switch (kind) {
          case 'proto':
            return Object.create(Float32Array.prototype);
          case 'proxy':
            return new Proxy(new Float32Array(n), {});
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
  return shape.chain(({ d, rows }) => {
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
    const outArg = fc.oneof(
      { weight: 3, arbitrary: floats(n) },
      { weight: 2, arbitrary: wasmView(n) },
      { weight: 2, arbitrary: fc.constant(undefined) },
      { weight: 2, arbitrary: value },
    );
    return fc.record({
      op: fc.constantFrom(
        'layerNorm',
        'layerNormStats',
        'layerNormStages',
        'forward',
        'forwardDisposed',
        'tensor',
        'init',
      ),
      x: fc.oneof(
        { weight: 4, arbitrary: floats(n) },
        { weight: 2, arbitrary: wasmView(n) },
        { weight: 3, arbitrary: value },
      ),
      d: fc.oneof({ weight: 8, arbitrary: fc.constant(d) }, { weight: 2, arbitrary: value }),
      row: fc.oneof(fc.integer({ min: -1, max: rows }), value),
      options: fc.oneof(
        { weight: 6, arbitrary: fc.record({ gamma: param, beta: param, eps, out: outArg }, { requiredKeys: [] }) },
        { weight: 1, arbitrary: value },
      ),
      out: outArg,
      // The tensor op: allocate(rows, d), set(x, offset), then forwardTensor into `target`.
      tensorRows: fc.oneof(
        { weight: 8, arbitrary: fc.constant(rows) },
        { weight: 1, arbitrary: value },
        { weight: 1, arbitrary: fc.constantFrom(2 ** 29, 2 ** 31, 1e21) }, // more than wasm memory holds
      ),
      offset: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: value }),
      target: fc.constantFrom('same', 'other', 'other', 'more rows', 'wider', 'foreign', 'not a tensor'),
      initOptions: fc.oneof(
        fc.record({ backend: fc.oneof(fc.constantFrom('auto', 'simd', 'scalar'), value) }, { requiredKeys: [] }),
        value,
      ),
      grow: fc.oneof({ weight: 2, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    });
  });
}

// ---------------------------------------------------------------- running a call

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

  /**
   * The call's arguments, each made a JS value when the op reaches it: a view of the pool then (a
   * view taken before one of the op's own allocations would be detached by it, for a user as here),
   * or a plain copy. `arg.seen` keeps what was handed out.
   */
  arguments(call, copies) {
    const m = (v) => {
      if (v instanceof StaleView) return this.stale;
      if (v instanceof WasmView) {
        const view = this.pool.view.subarray(v.at, v.at + v.length);
        return copies ? view.slice() : view;
      }
      return v;
    };
    const seen = {};
    const arg = (name) => {
      const v = call[name];
      seen[name] = isRecord(v) ? Object.fromEntries(Object.entries(v).map(([k, w]) => [k, m(w)])) : m(v);
      return seen[name];
    };
    arg.seen = seen;
    return arg;
  }
}

function isRecord(v) {
  return v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;
}

function usesWasmMemory(call) {
  const values = [call.x, call.d, call.row, call.out, call.offset, call.tensorRows, call.options];
  if (isRecord(call.options)) values.push(...Object.values(call.options));
  return values.some((v) => v instanceof WasmView);
}

/** Runs one op, taking each argument from `arg` when it is used. */
function invoke(rt, op, arg, target, foreign) {
  switch (op) {
    case 'layerNorm':
      return rt.layerNorm(arg('x'), arg('d'), arg('options'));
    case 'layerNormStats':
      return rt.layerNormStats(arg('x'), arg('d'), arg('options'));
    case 'layerNormStages':
      return rt.layerNormStages(arg('x'), arg('d'), arg('row'), arg('options'));
    case 'forward':
    case 'forwardDisposed': {
      const ln = rt.createLayerNorm(arg('d'), arg('options'));
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
      const t = rt.allocate(arg('tensorRows'), arg('d'));
      try {
        t.set(arg('x'), arg('offset'));
        const ln = rt.createLayerNorm(t.d, arg('options'));
        try {
          const input = t.toArray();
          if (target === 'not a tensor') return ln.forwardTensor(t, arg('out'));
          if (target === 'foreign') return ln.forwardTensor(t, foreign);
          if (target === 'same') {
            ln.forwardTensor(t, t);
            return { input, output: t.toArray() };
          }
          const o = rt.allocate(t.rows + (target === 'more rows' ? 1 : 0), t.d + (target === 'wider' ? 1 : 0));
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
  if (ArrayBuffer.isView(a)) return ArrayBuffer.isView(b) && sameBits(a, b);
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
  const wasm = usesWasmMemory(call);
  // The same call on plain copies, taken before the call itself may write into the pool.
  const plain = wasm ? outcome(() => invoke(rt, call.op, ctx.arguments(call, true), call.target, ctx.foreign)) : null;
  if (plain && !plain.ok) documentedError(call.op, plain.error);
  const growths = ctx.growth.growths;
  const arg = ctx.arguments(call, false);
  const run = () => invoke(rt, call.op, arg, call.target, ctx.foreign);
  const real = outcome(() => (call.grow ? ctx.growth.during(run) : run()));
  const grew = ctx.growth.growths > growths;
  if (real.ok) {
    if (call.op === 'layerNorm' || call.op === 'forward') {
      const y = real.value;
      // (A view of wasm memory handed in is detached if the call grew memory: its length is now 0.)
      const length = call.x instanceof WasmView ? call.x.length : arg.seen.x.length;
      if (!(y instanceof Float32Array) || y.length !== length) fail('a result of the wrong shape');
      const out = call.op === 'layerNorm' ? arg.seen.options?.out : arg.seen.out;
      if (out === undefined && y.buffer === ctx.pool.view.buffer) fail('a new result aliases wasm memory');
    }
    if (grew) ctx.counts.grewAndReturned++;
  } else {
    ctx.count(documentedError(call.op, real.error));
    if (grew) ctx.counts.grewAndThrew++;
  }
  if (plain) {
    ctx.counts.wasmArguments++;
    if (plain.ok !== real.ok) {
      fail(
        `with views of wasm memory the call ${real.ok ? 'returned' : `threw ${describeError(real.error)}`}, on plain copies it ${plain.ok ? 'returned' : `threw ${describeError(plain.error)}`}`,
      );
    }
    if (real.ok && !sameResult(real.value, plain.value))
      fail('with views of wasm memory the result differs from plain copies');
    if (
      !real.ok &&
      (real.error.constructor !== plain.error.constructor || real.error.message !== plain.error.message)
    ) {
      const memory = /of wasm memory/.test(real.error.message) && /of wasm memory/.test(plain.error.message);
      if (!memory)
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
