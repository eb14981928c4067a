// The zero-copy API and views after memory growth (a flat heap over many calls: hardening/memory.test.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { compareOutputs, init, layerNormReference, type LayerNormRuntime } from '../../dist/index.js';
import { gaussian, gpt2Like, rng } from '../helpers/cases.js';

let rt: LayerNormRuntime;
beforeAll(async () => {
  rt = await init();
});

describe('zero-copy tensors', () => {
  it('normalize resident data, matching the copying API bit for bit', () => {
    const x = gpt2Like(rng(5), 64);
    const gamma = gaussian(rng(6), 768, 1, 0.1),
      beta = gaussian(rng(7), 768);
    using ln = rt.createLayerNorm(768, { gamma, beta });
    using tin = rt.allocate(64, 768);
    using tout = rt.allocate(64, 768);
    tin.set(x);
    ln.forwardTensor(tin, tout);
    const expected = rt.layerNorm(x, 768, { gamma, beta });
    expect(compareOutputs(tout.toArray(), expected, 768).differingBits).toBe(0);
    expect(compareOutputs(ln.forward(x), expected, 768).differingBits).toBe(0);
    ln.forwardTensor(tin, tin); // in place
    expect(compareOutputs(tin.view, expected, 768).differingBits).toBe(0);
    expect(tout.rows).toBe(64);
    expect(tout.length).toBe(64 * 768);
  });

  it('toArray returns a copy that does not alias wasm memory', () => {
    using t = rt.allocate(1, 4);
    t.set([1, 2, 3, 4]);
    const copy = t.toArray();
    t.set([9], 0);
    expect(Array.from(copy)).toEqual([1, 2, 3, 4]);
    expect(copy.buffer).not.toBe(t.view.buffer);
    expect(rt.layerNorm(copy, 4).buffer).not.toBe(t.view.buffer);
  });

  it('a view kept across memory growth is detached and refused loudly; a fresh view works', () => {
    using ln = rt.createLayerNorm(256);
    using t = rt.allocate(4, 256);
    t.set(gaussian(rng(8), 4 * 256));
    const stale = t.view;
    const hog = rt.allocate(64, 1 << 20); // 256 MiB: grows wasm memory
    try {
      expect(stale.length).toBe(0);
      expect(() => rt.layerNorm(stale, 256)).toThrow(
        /detached ArrayBuffer .* wasm memory view taken before memory grew/,
      );
      ln.forwardTensor(t, t);
      const fresh = t.view;
      expect(fresh.length).toBe(4 * 256);
      const expected = layerNormReference(t.toArray(), 256);
      expect(compareOutputs(rt.layerNorm(fresh.slice(), 256), expected, 256).maxScaledUlp).toBeLessThanOrEqual(4);
    } finally {
      hog.dispose();
    }
    // a forward after memory growth still returns correct results
    const x = gpt2Like(rng(9), 8);
    expect(compareOutputs(rt.layerNorm(x, 768), layerNormReference(x, 768), 768).maxScaledUlp).toBeLessThanOrEqual(4);
  });

  it('calls into out stay right when wasm memory grows between two calls of the same size', () => {
    const x = gpt2Like(rng(10), 2);
    const expected = layerNormReference(x, 768);
    const out = new Float32Array(x.length);
    expect(compareOutputs(rt.layerNorm(x, 768, { out }), expected, 768).maxScaledUlp).toBeLessThanOrEqual(4);
    using probe = rt.allocate(1, 1);
    const before = probe.view;
    const hog = rt.allocate(128, 1 << 20); // 512 MiB: more than any earlier test freed
    try {
      expect(before.length).toBe(0); // memory did grow
      out.fill(0);
      rt.layerNorm(x, 768, { out });
      expect(compareOutputs(out, expected, 768).maxScaledUlp).toBeLessThanOrEqual(4);
    } finally {
      hog.dispose();
    }
  });
});
