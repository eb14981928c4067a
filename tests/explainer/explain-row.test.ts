// explainRow: the numbers <layernorm-explainer> shows for one row, as the element and a host's
// engine compute them: the stages exactly as layerNormStages / rmsNormStages return them for the
// weights' form, and the row under the three forms, each exactly the runtime's own call.
import { describe, expect, it } from 'vitest';
import { init, type LayerNormRuntime } from '../../dist/index.js';
import { explainRow } from '../../dist/explainer/compute.js';

const d = 96;
const rows = 3;
const x = Float32Array.from({ length: rows * d }, (_, i) => Math.sin(i * 0.37) * 2 + (i % d === 7 ? 40 : 0) + 0.5);
const gamma = Float32Array.from({ length: d }, (_, j) => 1 + Math.cos(j) / 3);
const beta = Float32Array.from({ length: d }, (_, j) => Math.sin(j) / 20);
const bits = (a: Float32Array | null) => (a ? Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length)) : null);
const row = 2;
const one = x.subarray(row * d, (row + 1) * d);

describe('explainRow', async () => {
  const rt: LayerNormRuntime = await init();

  it('LayerNorm with β: its stages are layerNormStages, bit for bit; the three forms are the runtime’s calls', () => {
    const e = explainRow(rt, x, d, row, { gamma, beta, eps: 1e-3 });
    const st = rt.layerNormStages(x, d, row, { gamma, beta, eps: 1e-3 });
    expect(Object.keys(e.stages).sort()).toEqual(Object.keys(st).sort());
    for (const [k, v] of Object.entries(st)) {
      const got = (e.stages as unknown as Record<string, unknown>)[k];
      if (v instanceof Float32Array) expect(bits(got as Float32Array), k).toEqual(bits(v));
      else expect(Object.is(got, v), k).toBe(true);
    }
    expect(bits(e.variants.layernorm)).toEqual(bits(rt.layerNorm(one, d, { gamma, beta, eps: 1e-3 })));
    expect(bits(e.variants.biasfree)).toEqual(bits(rt.layerNorm(one, d, { gamma, eps: 1e-3 })));
    expect(bits(e.variants.rmsnorm)).toEqual(bits(rt.rmsNorm(one, d, { gamma, eps: 1e-3 })));
    const rms = rt.rmsNormStages(one, d, 0, { gamma, eps: 1e-3 });
    expect(e.variants.rms).toBe(Math.sqrt(rms.meanSquare + 1e-3));
    expect(e.variants.mean).toBe(st.mean);
    expect(e.variants.variance).toBe(st.variance);
  });

  it('bias-free and RMSNorm weights run in their own form; no weights is γ = 1 with the ε given', () => {
    const bf = explainRow(rt, x, d, row, { gamma, eps: 1e-5 });
    expect(bits(bf.stages.output)).toEqual(bits(rt.layerNormStages(x, d, row, { gamma, eps: 1e-5 }).output));
    expect(bf.variants.layernorm).toBeNull();
    const rms = explainRow(rt, x, d, row, { gamma, norm: 'rmsnorm', eps: 1e-6 });
    expect('meanSquare' in rms.stages).toBe(true);
    expect(bits(rms.stages.output)).toEqual(bits(rt.rmsNormStages(x, d, row, { gamma, eps: 1e-6 }).output));
    const none = explainRow(rt, x, d, row, null, 0.25);
    expect(none.stages.eps).toBe(0.25);
    expect(bits(none.stages.output)).toEqual(bits(rt.layerNormStages(x, d, row, { eps: 0.25 }).output));
  });

  it('refuses what the runtime refuses, with its message', () => {
    expect(() => explainRow(rt, x, d, rows, { gamma })).toThrow(
      new RangeError('layerNormStages: row must be an integer in [0, 3), got number 3'),
    );
  });
});
