// Property-based fuzz targets shared by the Vitest suites in tests/fuzz/ (small, seeded budgets)
// and by `npm run fuzz` (web/scripts/fuzz.mjs, a million inputs). Plain ESM so both can load it;
// everything runs against the built package in dist/.
//
//   api           every argument of every numeric entry point, of any type, views of wasm memory
//                 and memory growth mid-call: only the catalogue's errors, results bit-identical to
//                 plain copies' and an exactly unchanged heap (tests/fuzz/api.mjs)
//   differential  random shapes and values through the SIMD build, the scalar build and the
//                 float64 reference: SIMD and scalar bit-identical, the accuracy contract met
//   io-*          the file and text parsers on arbitrary, mutated and deeply nested input: only
//                 the package's FormatError, for the format read, naming the source, with one of
//                 the problems of format-problems.mjs (no TypeError, RangeError or engine error)
import fc from 'fast-check';
import { init, layerNormReference, ulp32 } from '../../dist/index.js';
import * as io from '../../dist/index.js';
import { rng } from '../../web/shared/rng.mjs';
import { apiTarget } from './api.mjs';
import { FORMAT_PROBLEMS, problemOf } from './format-problems.mjs';
import { FuzzFailure, describeError, fail, sameBits } from './oracle.mjs';

export { FuzzFailure, rng };
/** Set to fail on the known issues of cpp/tests/fuzz_regressions/README.md as well. */
const STRICT = typeof process !== 'undefined' && !!process.env.LAYERNORM_FUZZ_STRICT;

function gaussian(rand) {
  const u = 1 - rand(),
    v = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Loads both backends and the package's I/O functions. */
export async function setup() {
  const simd = await init({ backend: 'simd' });
  const scalar = await init({ backend: 'scalar' });
  if (typeof io.readNpy !== 'function' || typeof io.loadLayerNormWeights !== 'function') {
    throw new Error('dist/index.js does not export the I/O functions: rebuild with npm run build');
  }
  return { simd, scalar, io };
}

// ---------------------------------------------------------------- (b) differential

export const differentialArbitrary = fc.record({
  d: fc.oneof(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 300 })),
  rows: fc.integer({ min: 0, max: 20 }),
  seed: fc.integer({ min: 0, max: 0xffffffff }),
  eps: fc.oneof(fc.constantFrom(0, 1e-12, 1e-5, 1e-5, 0.1, 1, 1e10), fc.double({ min: 0, max: 100, noNaN: true })),
  gamma: fc.constantFrom('none', 'ones', 'normal', 'wide', 'large'),
  beta: fc.constantFrom('none', 'zeros', 'normal', 'large'),
  constantRows: fc.double({ min: 0, max: 0.3, noNaN: true }),
  nonFiniteRows: fc.double({ min: 0, max: 0.2, noNaN: true }),
  minExp: fc.integer({ min: -40, max: 30 }),
  span: fc.integer({ min: 0, max: 70 }),
});

function param(kind, d, rand) {
  if (kind === 'none') return null;
  const a = new Float32Array(d);
  for (let j = 0; j < d; j++) {
    switch (kind) {
      case 'ones':
        a[j] = 1;
        break;
      case 'zeros':
        a[j] = 0;
        break;
      case 'normal':
        a[j] = gaussian(rand) * 0.2;
        break;
      case 'wide':
        a[j] = gaussian(rand) * 10 ** (4 * rand() - 2);
        break;
      default: // large: |v| up to 1e3
        a[j] = (rand() < 0.5 ? -1 : 1) * 1e3 * rand();
    }
  }
  return a;
}

/** Builds the arrays of one differential case. */
export function buildCase(spec) {
  const { d, rows, seed } = spec;
  const rand = rng(seed);
  const x = new Float32Array(rows * d);
  for (let r = 0; r < rows; r++) {
    const exp = spec.minExp + rand() * Math.min(spec.span, 30 - spec.minExp);
    const s = 10 ** exp;
    const offset = rand() < 0.5 ? 0 : (rand() < 0.5 ? -1 : 1) * s * 10 ** (7 * rand());
    const base = r * d;
    if (rand() < spec.constantRows) {
      x.fill(Math.fround(offset + s * gaussian(rand)), base, base + d);
    } else {
      for (let j = 0; j < d; j++) x[base + j] = offset + s * gaussian(rand);
    }
    if (rand() < spec.nonFiniteRows) {
      x[base + Math.floor(rand() * d)] = [NaN, Infinity, -Infinity][Math.floor(rand() * 3)];
    }
  }
  const gamma = param(spec.gamma, d, rand);
  if (gamma && spec.gamma === 'normal') for (let j = 0; j < d; j++) gamma[j] += 1;
  const beta = param(spec.beta, d, rand);
  return { d, rows, eps: spec.eps, x, gamma, beta };
}

/** One input of target (b); throws FuzzFailure on a violation. */
export function checkDifferential(simd, scalar, spec, { extra = true } = {}) {
  const c = buildCase(spec);
  const { d, rows, x, gamma, beta, eps } = c;
  const options = { gamma, beta, eps };
  const ys = simd.layerNorm(x, d, options);
  const yc = scalar.layerNorm(x, d, options);
  if (!sameBits(ys, yc)) fail('SIMD and scalar outputs differ');
  const ref = layerNormReference(x, d, options);
  for (let r = 0; r < rows; r++) {
    const base = r * d;
    let finite = true,
      mean = 0,
      spread = 0,
      magnitude = 0;
    for (let j = 0; j < d; j++) {
      const v = x[base + j];
      finite &&= Number.isFinite(v);
      mean += v;
      spread = Math.max(spread, Math.abs(v - x[base]));
      magnitude = Math.max(magnitude, Math.abs(v));
    }
    mean /= d;
    let squares = 0;
    for (let j = 0; j < d; j++) squares += (x[base + j] - mean) ** 2;
    const rstd = 1 / Math.sqrt(squares / d + eps);
    const meanError = spread === 0 ? 0 : d * 2 ** -52 * (spread + magnitude);
    for (let j = 0; j < d; j++) {
      const y = ys[base + j],
        e = ref[base + j];
      if (!finite) {
        if (!Number.isNaN(y) || !Number.isNaN(e))
          fail(`row ${r} holds NaN/Inf but element ${j} is ${y} (reference ${e})`);
        continue;
      }
      if (!Number.isFinite(e)) fail(`reference not finite on a finite row (row ${r}, element ${j})`);
      if (!Number.isFinite(y)) fail(`output ${y} where the reference is ${e} (row ${r}, element ${j})`);
      const b = beta ? beta[j] : 0;
      const g = gamma ? Math.abs(gamma[j]) : 1;
      const ulp = ulp32(Math.abs(e - b) + Math.abs(b));
      let bound = 4;
      if (!STRICT) {
        // The known issues of cpp/tests/fuzz_regressions/README.md, each allowed for exactly its
        // mechanism: a subnormal float32 x-hat (rounding error <= 2^-150, scaled by gamma) and a
        // float64 mean only as exact as a float64 sum (~d * 2^-53 of the row's magnitude).
        if (Math.abs(e - b) < 2 ** -125 * Math.max(g, 1)) bound += (g * 2 ** -150) / ulp;
        if (meanError > 0) bound += (g * meanError * rstd) / ulp;
      }
      const err = Math.abs(y - e) / ulp;
      if (!(err <= bound)) {
        fail(
          `error ${err.toFixed(2)} scaled ULP > ${bound.toFixed(2)} at row ${r}, element ${j}: ${y} vs reference ${e}`,
        );
      }
      if (spread === 0 && y !== b) fail(`constant row ${r} gave ${y}, not beta ${b}`);
    }
  }
  if (!extra || rows === 0) return;
  // The other entry points agree with layerNorm, bit for bit.
  const ss = simd.layerNormStats(x, d, { eps }),
    sc = scalar.layerNormStats(x, d, { eps });
  for (const k of ['mean', 'variance', 'rstd'])
    if (!sameBits(ss[k], sc[k])) fail(`layerNormStats ${k} differs between builds`);
  const row = spec.seed % rows;
  const stages = simd.layerNormStages(x, d, row, options);
  const expect = ys.subarray(row * d, (row + 1) * d);
  // Bit for bit, except that any NaN matches any NaN (payloads are not part of the contract).
  const got = new Uint32Array(stages.output.buffer, stages.output.byteOffset, d);
  const want = new Uint32Array(expect.buffer, expect.byteOffset, d);
  const sameOutput = stages.output.every((v, j) => got[j] === want[j] || (Number.isNaN(v) && Number.isNaN(expect[j])));
  if (!sameOutput) fail('layerNormStages output differs from layerNorm');
  const ln = simd.createLayerNorm(d, options);
  try {
    if (!sameBits(ln.forward(x), ys)) fail('createLayerNorm().forward differs from layerNorm');
  } finally {
    ln.dispose();
  }
}

// ---------------------------------------------------------------- (c) I/O parsers

function le32(n) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, true);
  return b;
}
function le64(n) {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n), true);
  return b;
}
function concat(parts) {
  const n = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
const utf8 = (s) => new TextEncoder().encode(s);

/** A small valid safetensors file holding ln_f.weight and ln_f.bias (F32, d = 4) and one more tensor. */
export function sampleSafetensors() {
  const header = JSON.stringify({
    __metadata__: { format: 'pt' },
    'h.0.attn.bias': { dtype: 'F16', shape: [2, 2], data_offsets: [0, 8] },
    'ln_f.bias': { dtype: 'F32', shape: [4], data_offsets: [8, 24] },
    'ln_f.weight': { dtype: 'F32', shape: [4], data_offsets: [24, 40] },
  });
  const data = new Uint8Array(40);
  new Float32Array(data.buffer, 8, 8).set([0.1, 0.2, 0.3, 0.4, 1, 2, 3, 4]);
  return concat([le64(header.length), utf8(header), data]);
}

function ggufString(s) {
  const b = utf8(s);
  return concat([le64(b.length), b]);
}

/** A small valid GGUF v3 file: output_norm.weight and output_norm.bias (F32, d = 4), alignment 32. */
export function sampleGguf() {
  const kv = concat([ggufString('general.architecture'), le32(8), ggufString('gpt2')]);
  const tensor = (name, offset) => concat([ggufString(name), le32(1), le64(4), le32(0), le64(offset)]);
  const head = concat([
    utf8('GGUF'),
    le32(3),
    le64(2),
    le64(1),
    kv,
    tensor('output_norm.weight', 0),
    tensor('output_norm.bias', 32),
  ]);
  const pad = new Uint8Array((32 - (head.length % 32)) % 32);
  const data = new Uint8Array(64);
  new Float32Array(data.buffer, 0, 4).set([1, 2, 3, 4]);
  new Float32Array(data.buffer, 32, 4).set([0.1, 0.2, 0.3, 0.4]);
  return concat([head, pad, data]);
}

/** Random edits of a valid file: byte flips, truncation, insertion, little-endian integer overwrites. */
export function mutatedBytes(sample) {
  const edit = fc.oneof(
    fc.record({ kind: fc.constant('set'), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ kind: fc.constant('truncate'), at: fc.nat() }),
    fc.record({ kind: fc.constant('insert'), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 8 }) }),
    fc.record({
      kind: fc.constant('int'),
      at: fc.nat(),
      value: fc.constantFrom(0, 1, 2, 7, 255, 0x7fffffff, 0xffffffff, 2 ** 40, 2 ** 53 - 1, 2 ** 64 - 1),
    }),
  );
  return fc.array(edit, { minLength: 1, maxLength: 4 }).map((edits) => {
    let b = sample.slice();
    for (const e of edits) {
      const at = b.length === 0 ? 0 : e.at % (b.length + 1);
      if (e.kind === 'set' && at < b.length) b[at] = e.value;
      else if (e.kind === 'truncate') b = b.slice(0, at);
      else if (e.kind === 'insert') b = concat([b.slice(0, at), e.bytes, b.slice(at)]);
      else if (e.kind === 'int') {
        const v = le64(BigInt.asUintN(64, BigInt(e.value)));
        for (let i = 0; i < 8 && at + i < b.length; i++) b[at + i] = v[i];
      }
    }
    return b;
  });
}

export function sampleNpy(io, shape = [2, 3]) {
  const n = shape.reduce((a, b) => a * b, 1);
  return io.writeNpy(
    new Float32Array(n).map((_, i) => i + 1),
    shape,
  );
}

export function bytesArbitrary(sample) {
  return fc.oneof(
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 96 }) },
    { weight: 4, arbitrary: mutatedBytes(sample) },
  );
}

/** Text inputs: arbitrary strings, JSON-ish structures, and edits of valid activations. */
export const textArbitrary = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.json({ maxDepth: 3 }),
  fc
    .tuple(
      fc.array(
        fc.array(fc.oneof(fc.double(), fc.constantFrom('NaN', 'inf', '-Infinity', '1e39', '0x10', '')), {
          minLength: 0,
          maxLength: 4,
        }),
        { maxLength: 4 },
      ),
      fc.constantFrom('json', 'shape', 'text', 'csv'),
    )
    .map(([rows, style]) => {
      const cells = rows.map((r) => r.map((v) => (typeof v === 'number' ? String(v) : v)));
      if (style === 'json') return `[${cells.map((r) => `[${r.join(',')}]`).join(',')}]`;
      if (style === 'shape')
        return JSON.stringify({ shape: [cells.length, cells[0]?.length ?? 0], data: cells.flat() });
      return cells.map((r) => r.join(style === 'csv' ? ',' : ' ')).join('\n');
    }),
  fc.tuple(fc.string({ maxLength: 40 }), fc.nat(), fc.string({ maxLength: 4 })).map(([s, at, ins]) => {
    const base = `[[1, 2, 3], [4.5, -6e-3, 7]]${s}`;
    const i = at % (base.length + 1);
    return base.slice(0, i) + ins + base.slice(i + 1);
  }),
);

/**
 * The only failure a reader may show for bad input: the package's FormatError, for one of the
 * formats it was reading, naming the source it was given, stating a documented problem.
 */
function checkIoError(e, what, { formats, source }) {
  if (e instanceof FuzzFailure) throw e;
  if (!(e instanceof io.FormatError)) fail(`${what}: expected a FormatError, got ${describeError(e)}`);
  if (!formats.includes(e.format)) fail(`${what}: a FormatError for ${e.format}, expected ${formats.join(' or ')}`);
  if (e.source !== source) fail(`${what}: a FormatError naming ${e.source}, expected ${source}: ${e.message}`);
  const problem = problemOf(e);
  if (problem === null)
    fail(`${what}: a FormatError message not of the form "<source>: invalid <format>: …": ${e.message}`);
  if (!FORMAT_PROBLEMS[e.format].some((pattern) => pattern.test(problem))) {
    fail(`${what}: a FormatError stating an undocumented problem (tests/fuzz/format-problems.mjs): ${problem}`);
  }
}

export function checkSync(what, fn, expected) {
  try {
    fn();
  } catch (e) {
    checkIoError(e, what, expected);
  }
}

export async function checkAsync(what, fn, expected) {
  try {
    await fn();
  } catch (e) {
    checkIoError(e, what, expected);
  }
}

/** Text nested up to 30,000 deep (beyond any engine's call stack): arrays or objects, closed or cut off. */
export const deepTextArbitrary = fc
  .record({
    depth: fc.integer({ min: 1, max: 30_000 }),
    open: fc.constantFrom('[', '{"a": ', '{"shape": [1], "data": [', '[1, '),
    closed: fc.boolean(),
    inner: fc.constantFrom('1', '', '"x"', '[]', 'NaN'),
  })
  .map(({ depth, open, closed, inner }) => {
    const close = open.startsWith('{"shape"') ? ']}' : open.startsWith('{') ? '}' : ']';
    return open.repeat(depth) + inner + (closed ? close.repeat(depth) : '');
  });

/** .npy files whose header nests brackets n deep in the shape, the dtype or fortran_order. */
export function deepNpyArbitrary() {
  return fc
    .record({
      depth: fc.integer({ min: 1, max: 30_000 }),
      key: fc.constantFrom('shape', 'descr', 'fortran_order'),
      open: fc.constantFrom('(', '[', '{'),
      closed: fc.boolean(),
    })
    .map(({ depth, key, open, closed }) => {
      const close = { '(': ')', '[': ']', '{': '}' }[open];
      const nested = open.repeat(depth) + (closed ? close.repeat(depth) : '');
      const fields = { descr: "'<f4'", fortran_order: 'False', shape: '(1,)', [key]: nested };
      const dict = `{'descr': ${fields.descr}, 'fortran_order': ${fields.fortran_order}, 'shape': ${fields.shape}, }`;
      const header = utf8(dict + '\n');
      return concat([
        Uint8Array.of(0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 2, 0),
        le32(header.length),
        header,
        new Uint8Array(4),
      ]);
    });
}

/** safetensors files whose header nests arrays n deep where a tensor's fields belong. */
export const deepSafetensorsArbitrary = fc
  .record({
    depth: fc.integer({ min: 1, max: 30_000 }),
    field: fc.constantFrom('dtype', 'shape', 'data_offsets', 'entry'),
  })
  .map(({ depth, field }) => {
    const nested = '['.repeat(depth) + ']'.repeat(depth);
    const entry = { dtype: '"F32"', shape: '[2]', data_offsets: '[0,8]' };
    const body =
      field === 'entry'
        ? nested
        : `{${Object.entries({ ...entry, [field]: nested })
            .map(([k, v]) => `"${k}":${v}`)
            .join(',')}}`;
    const header = utf8(`{"ln_f.weight":${body}}`);
    return concat([le64(header.length), header, new Uint8Array(8)]);
  });

// ---------------------------------------------------------------- the target list

/** Every target as { name, property(), async } for fc.assert / fc.check; `setup()` first. */
export function targets({ simd, scalar, io }) {
  const list = [apiTarget()];
  list.push({
    name: 'differential',
    async: false,
    property: () => fc.property(differentialArbitrary, (spec) => checkDifferential(simd, scalar, spec)),
  });
  const npy = sampleNpy(io),
    npyVector = sampleNpy(io, [4]),
    st = sampleSafetensors(),
    gguf = sampleGguf();
  const inMemory = (b) => ({ formats: ['safetensors', 'gguf', 'npy'], source: `Uint8Array (${b.length} bytes)` });
  list.push({
    name: 'io-npy',
    async: false,
    property: () =>
      fc.property(
        fc.oneof({ weight: 4, arbitrary: bytesArbitrary(npy) }, { weight: 1, arbitrary: deepNpyArbitrary() }),
        (b) => checkSync('readNpy', () => io.readNpy(b), { formats: ['npy'], source: 'npy data' }),
      ),
  });
  const text = fc.oneof({ weight: 12, arbitrary: textArbitrary }, { weight: 1, arbitrary: deepTextArbitrary });
  list.push({
    name: 'io-json',
    async: false,
    property: () =>
      fc.property(text, (t) =>
        checkSync('parseActivationsJson', () => io.parseActivationsJson(t), { formats: ['json'], source: undefined }),
      ),
  });
  list.push({
    name: 'io-text',
    async: false,
    property: () =>
      fc.property(text, (t) =>
        checkSync('parseActivationsText', () => io.parseActivationsText(t), { formats: ['text'], source: undefined }),
      ),
  });
  for (const [format, valid, deep] of [
    ['safetensors', st, deepSafetensorsArbitrary],
    ['gguf', gguf, null],
    ['npy', npyVector, deepNpyArbitrary()],
  ]) {
    const bytes = deep
      ? fc.oneof({ weight: 4, arbitrary: bytesArbitrary(valid) }, { weight: 1, arbitrary: deep })
      : bytesArbitrary(valid);
    list.push({
      name: format === 'npy' ? 'io-weights-npy' : `io-${format}`,
      async: true,
      property: () =>
        fc.asyncProperty(bytes, (b) =>
          checkAsync(`loadLayerNormWeights(${format})`, () => io.loadLayerNormWeights(b), inMemory(b)),
        ),
    });
  }
  return list;
}
