/**
 * Inputs that look risky and are accepted, as web/docs/errors.md lists them (its rows 28, 29, 41,
 * 43, R24 and A14 name these tests **A**): each gives the answer it would give without the risk.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { compareOutputs, init, layerNormReference, ulp32, type LayerNormRuntime } from '../../dist/index.js';
import { loadLayerNormWeights, openByteSource } from '../../dist/io/index.js';
import { features } from '../../dist/loader.js';
import { npy } from '../kit/checkpoints/index.mjs';
import { bitDifference } from '../helpers/bits.js';

let rt: LayerNormRuntime;
beforeAll(async () => {
  rt = await init();
});

const x = new Float32Array(12).map((_, i) => i * 0.5);

describe('numeric API', () => {
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
    for (let i = 6; i < 12; i++) expect(Math.abs(y[i]! - ref[i]!)).toBeLessThan(1e-6);
  });

  it('null residual, bias, sumOut, mean and rstd mean none; an empty options object is the default call', () => {
    const y = rt.layerNorm(x, 3);
    const nulls = { residual: null, bias: null, sumOut: null, mean: null, rstd: null };
    expect(bitDifference(rt.layerNorm(x, 3, nulls), y)).toBeNull();
    expect(
      bitDifference(rt.rmsNorm(x, 3, { residual: null, rstd: null, beta: null } as never), rt.rmsNorm(x, 3)),
    ).toBeNull();
    expect(bitDifference(rt.layerNormalization(x, [4, 3], { gamma: null, beta: null }).y, y)).toBeNull();
  });

  it('statistics in the memory of x or of the residual (inputs, not outputs) are read before they are written', () => {
    const expected = rt.layerNormStats(x, 3);
    const backing = new Float32Array(12 + 8);
    backing.set(x);
    const mean = new Float64Array(backing.buffer, 16, 4); // overlaps x's values 4…11
    const y = rt.layerNorm(backing.subarray(0, 12), 3, { mean });
    expect(bitDifference(y, rt.layerNorm(x, 3))).toBeNull();
    expect(bitDifference(mean, expected.mean)).toBeNull();
  });
});

describe('init', () => {
  it('init()’s Promise resolves to a working runtime after a method was called on it too early', async () => {
    const pending = init();
    expect(() => (pending as unknown as LayerNormRuntime).layerNorm(x, 3)).toThrow(TypeError);
    expect((await pending).layerNorm(x, 3)[0]).toBeCloseTo(-1.2247, 3);
  });

  it("with SIMD128 missing, backend 'auto' falls back to scalar", async () => {
    const real = features.simd;
    features.simd = async () => false;
    try {
      expect((await init()).backend).toBe('scalar');
    } finally {
      features.simd = real;
    }
    expect((await init()).backend).toBe('simd');
  });
});

describe('I/O and metrics', () => {
  it('null options, a header object without a prototype, maxWholeBodyBytes 0, an AbortSignal', async () => {
    const file = npy(Float32Array.of(1, 2, 3, 4), [4]);
    const y4 = Float32Array.of(1, 2, 3, 4);
    const headers = Object.assign(Object.create(null) as Record<string, string>, { 'X-Test': '1' });
    const signal = new AbortController().signal;
    const source = openByteSource(file, { headers, maxWholeBodyBytes: 0, signal, onProgress: () => undefined });
    expect((await source.read(0, 6)).length).toBe(6);
    expect(openByteSource(file, null as never).size).toBe(file.length);
    const w = await loadLayerNormWeights(file, null as never);
    expect(Array.from(w.gamma)).toEqual([1, 2, 3, 4]);
    expect(compareOutputs(y4, y4, 2, Float32Array.of(0, 0)).compared).toBe(4);
    expect(ulp32(0)).toBe(2 ** -149);
  });
});
