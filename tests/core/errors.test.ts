// Every bad input gets a typed error that says what was expected and what came, and the runtime
// keeps working afterwards.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DisposedError,
  compareOutputs,
  UnsupportedError,
  init,
  layerNormReference,
  type LayerNormRuntime,
} from '../../dist/index.js';
import { features } from '../../dist/loader.js';

let rt: LayerNormRuntime;
beforeAll(async () => {
  rt = await init();
});

const x = new Float32Array(12).map((_, i) => i * 0.5);
const g3 = new Float32Array([1, 2, 3]);

function expectWorking() {
  const y = rt.layerNorm(x, 3);
  expect(y[0]).toBeCloseTo(-1.2247, 3);
}

describe('layerNorm rejects', () => {
  const cases: [string, () => unknown, ErrorConstructor, RegExp][] = [
    [
      'x as a plain array',
      () => rt.layerNorm([1, 2, 3] as never, 3),
      TypeError,
      /x must be a Float32Array, a Float16Array, or a Uint16Array with dtype 'float16' or 'bfloat16', got Array\(3\)/,
    ],
    [
      'x as a Float64Array',
      () => rt.layerNorm(new Float64Array(3) as never, 3),
      TypeError,
      /x must be a Float32Array, a Float16Array, or a Uint16Array with dtype 'float16' or 'bfloat16', got Float64Array\(3\)/,
    ],
    [
      'x as null',
      () => rt.layerNorm(null as never, 3),
      TypeError,
      /x must be a Float32Array, a Float16Array, or a Uint16Array with dtype 'float16' or 'bfloat16', got null/,
    ],
    [
      'x.length not a multiple of d',
      () => rt.layerNorm(new Float32Array(10), 3),
      RangeError,
      /multiple of d = 3, got 10/,
    ],
    ['d = 0', () => rt.layerNorm(x, 0), RangeError, /d must be a positive integer, got number 0/],
    ['d = 2.5', () => rt.layerNorm(x, 2.5), RangeError, /d must be a positive integer, got number 2.5/],
    ['d = NaN', () => rt.layerNorm(x, NaN), RangeError, /d must be a positive integer, got number NaN/],
    ['d as a string', () => rt.layerNorm(x, '3' as never), TypeError, /d must be a positive integer, got string "3"/],
    ['d = -3', () => rt.layerNorm(x, -3), RangeError, /positive integer, got number -3/],
    [
      'gamma of the wrong length',
      () => rt.layerNorm(x, 3, { gamma: new Float32Array(4) }),
      RangeError,
      /gamma must have length d = 3, got length 4/,
    ],
    [
      'gamma not a Float32Array',
      () => rt.layerNorm(x, 3, { gamma: [1, 1, 1] as never }),
      TypeError,
      /gamma must be a Float32Array, got Array\(3\)/,
    ],
    [
      'beta of the wrong length',
      () => rt.layerNorm(x, 3, { beta: new Float32Array(2) }),
      RangeError,
      /beta must have length d = 3, got length 2/,
    ],
    [
      'beta as a Float64Array',
      () => rt.layerNorm(x, 3, { beta: new Float64Array(3) as never }),
      TypeError,
      /beta must be a Float32Array, got Float64Array\(3\)/,
    ],
    [
      'negative eps',
      () => rt.layerNorm(x, 3, { eps: -1e-5 }),
      RangeError,
      /eps must be a finite number >= 0, got number -0.00001/,
    ],
    ['NaN eps', () => rt.layerNorm(x, 3, { eps: NaN }), RangeError, /eps must be a finite number >= 0, got number NaN/],
    ['infinite eps', () => rt.layerNorm(x, 3, { eps: Infinity }), RangeError, /got number Infinity/],
    ['eps as a string', () => rt.layerNorm(x, 3, { eps: '1e-5' as never }), TypeError, /got string "1e-5"/],
    [
      'out of the wrong length',
      () => rt.layerNorm(x, 3, { out: new Float32Array(11) }),
      RangeError,
      /out must have length 12 \(the same as x\), got length 11/,
    ],
    [
      'out of the wrong type',
      () => rt.layerNorm(x, 3, { out: new Float64Array(12) as never }),
      TypeError,
      /out must be a Float32Array, got Float64Array\(12\)/,
    ],
    [
      'options not an object',
      () => rt.layerNorm(x, 3, 5 as never),
      TypeError,
      /options must be an object, got number 5/,
    ],
    [
      'a row too wide for wasm memory',
      () => rt.layerNorm(new Float32Array(0), 2 ** 29),
      RangeError,
      /d must be at most 268435456/,
    ],
  ];
  it.each(cases)('%s', (_name, call, type, message) => {
    expect(call).toThrow(type);
    expect(call).toThrow(message);
    expectWorking();
  });

  it('a detached input', () => {
    const detached = new Float32Array(6);
    structuredClone(detached.buffer, { transfer: [detached.buffer] });
    expect(() => rt.layerNorm(detached, 3)).toThrow(/x is a view of a detached ArrayBuffer/);
    expectWorking();
  });
});

describe('other entry points reject', () => {
  it('layerNormStats and layerNormStages with bad arguments', () => {
    expect(() => rt.layerNormStats(x, 5)).toThrow(RangeError);
    expect(() => rt.layerNormStats(x, 3, { eps: -1 })).toThrow(/eps must be a finite number >= 0/);
    expect(() => rt.layerNormStages(x, 3, 4)).toThrow(/row must be an integer in \[0, 4\), got number 4/);
    expect(() => rt.layerNormStages(x, 3, -1)).toThrow(RangeError);
    expect(() => rt.layerNormStages(x, 3, 0, { gamma: new Float32Array(2) })).toThrow(/gamma must have length d = 3/);
    expectWorking();
  });

  it('createLayerNorm and its forward', () => {
    expect(() => rt.createLayerNorm(0)).toThrow(/d must be a positive integer/);
    expect(() => rt.createLayerNorm(3, { gamma: new Float32Array(5) })).toThrow(
      /gamma must have length d = 3, got length 5/,
    );
    const ln = rt.createLayerNorm(3, { gamma: g3 });
    expect(() => ln.forward(new Float32Array(4))).toThrow(/multiple of d = 3, got 4/);
    expect(() => ln.forward(x, new Float32Array(3))).toThrow(/out must have length 12/);
    ln.dispose();
  });

  it('a disposed LayerNorm, whose dispose is idempotent', () => {
    const ln = rt.createLayerNorm(3, { gamma: g3 });
    expect(ln.forward(x).length).toBe(12);
    ln.dispose();
    ln.dispose();
    expect(ln.disposed).toBe(true);
    expect(() => ln.forward(x)).toThrow(DisposedError);
    expect(() => ln.forward(x)).toThrow(/LayerNorm.forward: this LayerNorm was disposed/);
    expectWorking();
  });

  it('tensors that are disposed, mismatched or foreign', async () => {
    const ln = rt.createLayerNorm(3);
    const a = rt.allocate(4, 3),
      b = rt.allocate(2, 3),
      c = rt.allocate(4, 4);
    expect(() => ln.forwardTensor(a, b)).toThrow(/output must have as many rows as input \(4\), got 2/);
    expect(() => ln.forwardTensor(a, c)).toThrow(/tensors must have d = 3/);
    expect(() => ln.forwardTensor(a, {} as never)).toThrow(/output must be a WasmTensor from allocate\(\), got Object/);
    const scalar = await init({ backend: 'scalar' });
    const foreign = scalar.allocate(4, 3);
    expect(() => ln.forwardTensor(a, foreign)).toThrow(/belongs to a different runtime/);
    foreign.dispose();
    b.dispose();
    expect(() => b.view).toThrow(DisposedError);
    expect(() => b.toArray()).toThrow(/WasmTensor.toArray: this WasmTensor was disposed/);
    expect(() => a.set(new Float32Array(13))).toThrow(
      /13 values at offset number 0 do not fit in a tensor of 12 values/,
    );
    expect(() => a.set('abc' as never)).toThrow(TypeError);
    expect(() => rt.allocate(-1, 3)).toThrow(/rows must be an integer >= 0, got number -1/);
    for (const t of [a, c]) t.dispose();
    ln.dispose();
    expectWorking();
  });
});

describe('memory limits', () => {
  it('an allocation larger than wasm can hold is a RangeError, and the next call works', () => {
    expect(() => rt.allocate(600_000_000, 1)).toThrow(RangeError);
    expect(() => rt.allocate(600_000_000, 1)).toThrow(
      /needs 2.24 GiB of wasm memory, more than the module can ever hold \(2.00 GiB\)/,
    );
    expectWorking();
  });

  it('a row that cannot be reserved is a RangeError that says so, and the next call works', () => {
    // 2^28 floats = 1 GiB per row: exceeds what the 2 GiB heap can still reserve next to a 1 GiB tensor.
    const hog = rt.allocate(1, 2 ** 28);
    try {
      expect(() => rt.allocate(1, 2 ** 28)).toThrow(/needs 1.00 GiB of wasm memory, but only/);
    } finally {
      hog.dispose();
    }
    expectWorking();
    expect(
      compareOutputs(rt.layerNorm(x, 3, { gamma: g3 }), layerNormReference(x, 3, { gamma: g3 }), 3).maxScaledUlp,
    ).toBeLessThanOrEqual(4);
  });
});

describe('init', () => {
  it('rejects an unknown backend', async () => {
    await expect(init({ backend: 'gpu' as never })).rejects.toThrow(
      /backend must be 'auto', 'simd' or 'scalar', got "gpu"/,
    );
  });

  it("refuses backend 'simd' where SIMD128 is missing, and 'auto' falls back to scalar", async () => {
    const real = features.simd;
    features.simd = async () => false;
    try {
      await expect(init({ backend: 'simd' })).rejects.toThrow(UnsupportedError);
      await expect(init({ backend: 'simd' })).rejects.toThrow(/does not support WebAssembly SIMD128/);
      expect((await init()).backend).toBe('scalar');
    } finally {
      features.simd = real;
    }
    expect((await init()).backend).toBe('simd');
  });
});
