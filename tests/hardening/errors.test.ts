// Bad inputs listed in web/docs/errors.md that no other suite pins down: each throws exactly the
// error type and message the catalogue quotes, and the runtime works afterwards. Long because it is
// one table of cases.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DisposedError,
  init,
  layerNormReference,
  type LayerNorm,
  type LayerNormRuntime,
  type WasmTensor,
} from '../../dist/index.js';
import {
  FormatError,
  loadLayerNormWeights,
  openByteSource,
  parseActivationsText,
  readNpy,
  writeNpy,
} from '../../dist/io/index.js';
import { rejection, thrown } from '../helpers/errors.js';

let rt: LayerNormRuntime;
beforeAll(async () => {
  rt = await init();
});

const x = new Float32Array(12).map((_, i) => i * 0.5);

function expectWorking() {
  const y = rt.layerNorm(x, 3);
  expect(y[0]).toBeCloseTo(-1.2247, 3);
}

function detached(n: number): Float32Array {
  const a = new Float32Array(n);
  structuredClone(a.buffer, { transfer: [a.buffer] });
  return a;
}

const DETACHED =
  'is a view of a detached ArrayBuffer (it was transferred, or it is a wasm memory view taken before memory grew); pass a live Float32Array';
const LOOKALIKE =
  'must be a Float32Array, got an object that only inherits from Float32Array.prototype (a Proxy or Object.create result, not a typed array)';

describe('numeric API: exact errors', () => {
  const cases: [string, () => unknown, ErrorConstructor | typeof DisposedError, string][] = [
    ['detached gamma', () => rt.layerNorm(x, 3, { gamma: detached(3) }), TypeError, `layerNorm: gamma ${DETACHED}`],
    ['detached out', () => rt.layerNorm(x, 3, { out: detached(12) }), TypeError, `layerNorm: out ${DETACHED}`],
    [
      'x as a Proxy of a Float32Array',
      () => rt.layerNorm(new Proxy(new Float32Array(12), {}), 3),
      TypeError,
      `layerNorm: x ${LOOKALIKE}`,
    ],
    [
      'x from Object.create(Float32Array.prototype)',
      () => rt.layerNorm(Object.create(Float32Array.prototype), 3),
      TypeError,
      `layerNorm: x ${LOOKALIKE}`,
    ],
    [
      'd as a bigint',
      () => rt.layerNorm(x, 3n as never),
      TypeError,
      'layerNorm: d must be a positive integer, got bigint 3n',
    ],
    [
      'd = Infinity',
      () => rt.layerNorm(x, Infinity),
      RangeError,
      'layerNorm: d must be a positive integer, got number Infinity',
    ],
    [
      'layerNormStats with x.length not a multiple of d',
      () => rt.layerNormStats(x, 5),
      RangeError,
      'layerNormStats: x.length must be a multiple of d = 5, got 12 (2 rows and 2 left over)',
    ],
    [
      'layerNormStages row = 1.5',
      () => rt.layerNormStages(x, 3, 1.5),
      RangeError,
      'layerNormStages: row must be an integer in [0, 4), got number 1.5',
    ],
    [
      'layerNormStages row as a string',
      () => rt.layerNormStages(x, 3, '0' as never),
      TypeError,
      'layerNormStages: row must be an integer in [0, 4), got string "0"',
    ],
    [
      'createLayerNorm with a negative eps',
      () => rt.createLayerNorm(3, { eps: -1 }),
      RangeError,
      'createLayerNorm: eps must be a finite number >= 0, got number -1',
    ],
    [
      'forward with a Float64Array',
      () => rt.createLayerNorm(3).forward(new Float64Array(12) as never),
      TypeError,
      'LayerNorm.forward: x must be a Float32Array, got Float64Array(12)',
    ],
    [
      'allocate with rows = 1.5',
      () => rt.allocate(1.5, 3),
      RangeError,
      'allocate: rows must be an integer >= 0, got number 1.5',
    ],
  ];
  it.each(cases)('%s', (_name, call, type, message) => {
    const e = thrown(call);
    expect(e).toBeInstanceOf(type);
    expect(e.message).toBe(message);
    expectWorking();
  });

  it('forwardTensor on a disposed LayerNorm, and with a disposed tensor', () => {
    const a = rt.allocate(1, 3),
      b = rt.allocate(1, 3);
    const ln = rt.createLayerNorm(3);
    ln.dispose();
    const e1 = thrown(() => ln.forwardTensor(a, b));
    expect(e1).toBeInstanceOf(DisposedError);
    expect(e1.message).toBe('LayerNorm.forwardTensor: this LayerNorm was disposed; create a new one');
    const live = rt.createLayerNorm(3);
    b.dispose();
    const e2 = thrown(() => live.forwardTensor(a, b));
    expect(e2).toBeInstanceOf(DisposedError);
    expect(e2.message).toBe('LayerNorm.forwardTensor: this WasmTensor was disposed');
    live.dispose();
    a.dispose();
    expectWorking();
  });

  it('calling a method on the Promise init() returns, before it resolves', async () => {
    const pending = init();
    const e = thrown(() => (pending as unknown as LayerNormRuntime).layerNorm(x, 3));
    expect(e).toBeInstanceOf(TypeError);
    // The engine's own message; V8 names the expression, e.g. "init(...).layerNorm is not a function".
    expect(e.message).toMatch(/\.layerNorm is not a function$/);
    const e2 = thrown(() => (init() as unknown as LayerNormRuntime).layerNorm(x, 3));
    expect(e2).toBeInstanceOf(TypeError);
    expect(e2.message).toMatch(/\.layerNorm is not a function$/);
    expect((await pending).layerNorm(x, 3)[0]).toBeCloseTo(-1.2247, 3);
  });
});

describe('wrong types are TypeErrors, wrong values RangeErrors, at every entry point', () => {
  // The rule of web/docs/errors.md: a value of the wrong type is a TypeError even where the same
  // argument, as a number, would be a RangeError; the message is the same either way.
  type Row = [string, () => unknown, ErrorConstructor, string];
  let resident: LayerNorm, t23: WasmTensor, t13: WasmTensor;
  beforeAll(() => {
    resident = rt.createLayerNorm(3);
    t23 = rt.allocate(2, 3);
    t13 = rt.allocate(1, 3);
  });
  const ln = () => resident;
  const tensor = () => t23;
  const numberArgs: [string, (v: unknown) => unknown, string, unknown[], unknown[]][] = [
    [
      'layerNorm d',
      (v) => rt.layerNorm(x, v as never),
      'layerNorm: d must be a positive integer',
      ['3', 3n, true, null, {}],
      [2.5, 0, -3, NaN, Infinity],
    ],
    [
      'layerNorm eps',
      (v) => rt.layerNorm(x, 3, { eps: v as never }),
      'layerNorm: eps must be a finite number >= 0',
      ['1e-5', 1n, null, false],
      [-1, NaN, -Infinity],
    ],
    [
      'layerNormStats d',
      (v) => rt.layerNormStats(x, v as never),
      'layerNormStats: d must be a positive integer',
      ['3', 3n],
      [0.5],
    ],
    [
      'layerNormStats eps',
      (v) => rt.layerNormStats(x, 3, { eps: v as never }),
      'layerNormStats: eps must be a finite number >= 0',
      ['0', 0n],
      [-0.5],
    ],
    [
      'layerNormStages d',
      (v) => rt.layerNormStages(x, v as never, 0),
      'layerNormStages: d must be a positive integer',
      ['3', 3n],
      [-1],
    ],
    [
      'layerNormStages row',
      (v) => rt.layerNormStages(x, 3, v as never),
      'layerNormStages: row must be an integer in [0, 4)',
      ['0', 0n, null, undefined],
      [4, -1, 1.5, NaN],
    ],
    [
      'layerNormStages eps',
      (v) => rt.layerNormStages(x, 3, 0, { eps: v as never }),
      'layerNormStages: eps must be a finite number >= 0',
      [1n],
      [Infinity],
    ],
    [
      'createLayerNorm d',
      (v) => rt.createLayerNorm(v as never),
      'createLayerNorm: d must be a positive integer',
      ['3', 3n, undefined],
      [0, 3.5],
    ],
    [
      'createLayerNorm eps',
      (v) => rt.createLayerNorm(3, { eps: v as never }),
      'createLayerNorm: eps must be a finite number >= 0',
      ['1', 1n],
      [-1e-9],
    ],
    [
      'allocate rows',
      (v) => rt.allocate(v as never, 3),
      'allocate: rows must be an integer >= 0',
      ['1', 1n, undefined],
      [-1, 1.5, NaN],
    ],
    ['allocate d', (v) => rt.allocate(1, v as never), 'allocate: d must be a positive integer', ['3', 3n], [0]],
    [
      'WasmTensor.set offset',
      (v) => tensor().set([1], v as never),
      'WasmTensor.set: offset must be an integer >= 0',
      ['1', 1n, null],
      [],
    ],
  ];
  const rows: Row[] = [];
  const show = (v: unknown) =>
    typeof v === 'bigint' ? `${v}n` : typeof v === 'string' || typeof v === 'object' ? JSON.stringify(v) : String(v);
  const described = (v: unknown) =>
    v === null || v === undefined
      ? String(v)
      : typeof v === 'object'
        ? 'Object'
        : typeof v === 'boolean'
          ? 'boolean'
          : `${typeof v} ${show(v)}`;
  for (const [name, call, message, wrongTypes, wrongValues] of numberArgs) {
    for (const v of wrongTypes)
      rows.push([`${name} = ${show(v)}`, () => call(v), TypeError, `${message}, got ${described(v)}`]);
    for (const v of wrongValues)
      rows.push([`${name} = ${show(v)}`, () => call(v), RangeError, `${message}, got ${described(v)}`]);
  }
  rows.push(
    [
      'forward x as an Array',
      () => ln().forward([1, 2, 3] as never),
      TypeError,
      'LayerNorm.forward: x must be a Float32Array, got Array(3)',
    ],
    [
      'forward x of 4 values',
      () => ln().forward(new Float32Array(4)),
      RangeError,
      'LayerNorm.forward: x.length must be a multiple of d = 3, got 4 (1 rows and 1 left over)',
    ],
    [
      'forwardTensor input {}',
      () => ln().forwardTensor({} as never, tensor()),
      TypeError,
      'LayerNorm.forwardTensor: input must be a WasmTensor from allocate(), got Object',
    ],
    [
      'forwardTensor rows that differ',
      () => ln().forwardTensor(tensor(), t13),
      RangeError,
      'LayerNorm.forwardTensor: output must have as many rows as input (2), got 1',
    ],
    [
      'WasmTensor.set data "abc"',
      () => tensor().set('abc' as never),
      TypeError,
      'WasmTensor.set: data must be an array or typed array of numbers, got string "abc"',
    ],
    [
      'WasmTensor.set data BigInt64Array',
      () => tensor().set(new BigInt64Array(2) as never),
      TypeError,
      'WasmTensor.set: data must be an array or typed array of numbers, got BigInt64Array(2)',
    ],
    [
      'WasmTensor.set data [1, 2n]',
      () => tensor().set([1, 2n] as never),
      TypeError,
      'WasmTensor.set: data[1] must be a number, got bigint 2n',
    ],
    [
      'WasmTensor.set data ["1"]',
      () => tensor().set(['1'] as never),
      TypeError,
      'WasmTensor.set: data[0] must be a number, got string "1"',
    ],
    [
      'WasmTensor.set data from Object.create(Float32Array.prototype)',
      () => tensor().set(Object.create(Float32Array.prototype)),
      TypeError,
      'WasmTensor.set: data must be an array or typed array of numbers, got an object that only inherits from a typed array prototype (a Proxy or Object.create result, not a typed array)',
    ],
    [
      'WasmTensor.set offset 1.5',
      () => tensor().set([1], 1.5),
      RangeError,
      'WasmTensor.set: 1 values at offset number 1.5 do not fit in a tensor of 6 values',
    ],
    [
      'WasmTensor.set 7 values',
      () => tensor().set(new Float64Array(7)),
      RangeError,
      'WasmTensor.set: 7 values at offset number 0 do not fit in a tensor of 6 values',
    ],
  );
  it.each(rows)('%s', (_name, call, type, message) => {
    const heap = rt.heapInUse();
    const e = thrown(call);
    expect(e).toBeInstanceOf(type);
    expect(e.constructor).toBe(type);
    expect(e.message).toBe(message);
    expectWorking();
    expect(rt.heapInUse()).toBe(heap);
  });

  it('init: options and backend of the wrong type, and a backend that is not one of the names, are TypeErrors', async () => {
    const cases: [unknown, string][] = [
      [5, 'init: options must be an object, got number 5'],
      [{ backend: 'gpu' }, `init: backend must be 'auto', 'simd' or 'scalar', got "gpu"`],
      [{ backend: 1 }, `init: backend must be 'auto', 'simd' or 'scalar', got number`],
    ];
    for (const [options, message] of cases) {
      const e = await rejection(init(options as never));
      expect(e.constructor).toBe(TypeError);
      expect(e.message).toBe(message);
    }
  });
});

describe('numeric API: accepted inputs that look risky', () => {
  it('SharedArrayBuffer-backed x and out are read and written like any Float32Array', () => {
    const sx = new Float32Array(new SharedArrayBuffer(x.byteLength));
    sx.set(x);
    const sout = new Float32Array(new SharedArrayBuffer(x.byteLength));
    const gamma = new Float32Array(new SharedArrayBuffer(12)).fill(2);
    const expected = rt.layerNorm(x, 3, { gamma: new Float32Array(3).fill(2) });
    expect(rt.layerNorm(sx, 3, { gamma, out: sout })).toBe(sout);
    expect(Array.from(sout)).toEqual(Array.from(expected));
    expect(Array.from(rt.layerNorm(sx, 3))).toEqual(Array.from(rt.layerNorm(x, 3)));
    expect(Array.from(rt.layerNormStats(sx, 3).mean)).toEqual(Array.from(rt.layerNormStats(x, 3).mean));
    const ln = rt.createLayerNorm(3, { gamma });
    expect(Array.from(ln.forward(sx))).toEqual(Array.from(expected));
    ln.dispose();
  });

  it('NaN, ±Infinity, -0 and huge values in x are not errors: rows with NaN/Inf come out NaN', () => {
    const v = new Float32Array([NaN, 1, 2, Infinity, 1, 2, -0, 3e38, -3e38, 1, 2, 3]);
    const y = rt.layerNorm(v, 3);
    expect(Array.from(y.subarray(0, 6)).every(Number.isNaN)).toBe(true);
    expect(Array.from(y.subarray(6)).every(Number.isFinite)).toBe(true);
    const ref = layerNormReference(v, 3);
    for (let i = 6; i < 12; i++) expect(Math.abs(y[i] - ref[i])).toBeLessThan(1e-6);
  });
});

describe('files and text: exact errors', () => {
  const le64 = (n: number) => {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt(n), true);
    return b;
  };
  const safetensors = (header: string, data: Uint8Array, length?: number) => {
    const h = new TextEncoder().encode(header);
    const out = new Uint8Array(8 + h.length + data.length);
    out.set(le64(length ?? h.length));
    out.set(h, 8);
    out.set(data, 8 + h.length);
    return out;
  };

  it('a checkpoint with no LayerNorm tensor, and a weight name that is not there', async () => {
    const none = await rejection(
      loadLayerNormWeights(
        safetensors('{"wte.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', new Uint8Array(8)),
      ),
    );
    expect(none).toBeInstanceOf(FormatError);
    expect(none.message).toBe(
      'Uint8Array (79 bytes): invalid safetensors: no LayerNorm tensors found (looked for ln_f.weight, transformer.ln_f.weight, output_norm.weight or a single *norm*/ln_f weight); tensors: "wte.weight"',
    );
    const named = await rejection(
      loadLayerNormWeights(
        safetensors('{"ln_f.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', new Uint8Array(8)),
        {
          weight: 'nope',
        },
      ),
    );
    expect(named).toBeInstanceOf(FormatError);
    expect(named.message).toBe(
      'Uint8Array (80 bytes): invalid safetensors: no tensor named "nope" (weight); candidates: "ln_f.weight"',
    );
  });

  it('a .npy matrix where a weight vector is expected, and a truncated .npy', async () => {
    const matrix = await rejection(loadLayerNormWeights(writeNpy(new Float32Array(6), [2, 3])));
    expect(matrix).toBeInstanceOf(FormatError);
    expect(matrix.message).toBe(
      'Uint8Array (152 bytes): invalid npy: expected a vector of shape (d,), got shape (2, 3)',
    );
    const full = writeNpy(new Float32Array([1, 2, 3, 4]), [4]);
    const cut = thrown(() => readNpy(full.slice(0, full.length - 4), 'x.npy'));
    expect(cut).toBeInstanceOf(FormatError);
    expect(cut.message).toBe('x.npy: invalid npy: shape (4) of float32 needs 16 data bytes, the file has 12');
  });

  it('text activations with no rows, and a local path where a URL is expected', () => {
    const empty = thrown(() => parseActivationsText('# nothing\n'));
    expect(empty).toBeInstanceOf(FormatError);
    expect(empty.message).toBe('invalid text: expected at least one row of numbers, got none (line 2, column 1)');
    const path = thrown(() => openByteSource('model.safetensors'));
    expect(path).toBeInstanceOf(TypeError);
    expect(path.message).toBe('expected an http: or https: URL, got "model.safetensors"');
  });
});
