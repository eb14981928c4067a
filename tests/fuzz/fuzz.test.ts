// Seeded property-based fuzzing with a small budget (a few thousand inputs, a few seconds); the
// same targets run a million inputs with `npm run fuzz`. See tests/fuzz/targets/index.mjs.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM module shared with web/scripts/fuzz.mjs
import { DOCUMENTED_ERRORS } from './api/catalogue.mjs';
import { sampleGguf, sampleSafetensors } from '../kit/checkpoints/index.mjs';
// @ts-expect-error plain ESM module shared with web/scripts/fuzz.mjs
import { buildCase, checkDifferential } from './targets/differential.mjs';
// @ts-expect-error plain ESM module shared with web/scripts/fuzz.mjs
import { setup, targets } from './targets/index.mjs';

interface ApiCounts {
  calls: number;
  wasmArguments: number;
  grewAndReturned: number;
  grewAndThrew: number;
  runtimes: number;
  errors: Record<string, number>;
}
type Target = {
  name: string;
  async: boolean;
  property: () => fc.IProperty<unknown> | fc.IAsyncProperty<unknown>;
  counts?: ApiCounts;
  close?: () => void;
};
type Context = Awaited<ReturnType<typeof setup>>;

const SEED = 20261130;
const RUNS: Record<string, number> = {
  // Enough for the api target to reach every documented error, the issue-14 ones included.
  api: 6000,
  differential: 1500,
  'io-npy': 400,
  'io-json': 400,
  'io-text': 400,
  'io-safetensors': 250,
  'io-gguf': 250,
  'io-weights-npy': 250,
  exact: 300,
  'io-onnx': 300,
  // Each is a climb of 48 steps against the exact oracle, ending in the worker.
  adversarial: 12,
};

let ctx: Context;
let list: Target[];
beforeAll(async () => {
  ctx = await setup();
  list = targets(ctx);
});
afterAll(() => list?.forEach((t) => t.close?.()));

describe('fuzz (seeded, small budget)', () => {
  for (const name of Object.keys(RUNS)) {
    it(`${name}: ${RUNS[name]} generated inputs, no unexpected failure`, async () => {
      const target = list.find((t) => t.name === name);
      if (!target) throw new Error(`fuzz target ${name} is missing from tests/fuzz/targets/index.mjs`);
      const params = { seed: SEED + list.indexOf(target), numRuns: RUNS[name], includeErrorInReport: true };
      if (target.async) await fc.assert(target.property() as fc.IAsyncProperty<unknown>, params);
      else fc.assert(target.property() as fc.IProperty<unknown>, params);
      if (name === 'api') expectApiReach(target.counts!);
    });
  }

  /** The api run is not vacuous: views of wasm memory, growth mid-call and every documented error. */
  function expectApiReach(counts: ApiCounts) {
    expect(counts.calls).toBe(RUNS.api);
    expect(counts.wasmArguments).toBeGreaterThan(RUNS.api / 4);
    expect(counts.grewAndReturned).toBeGreaterThan(10);
    expect(counts.grewAndThrew).toBeGreaterThan(10);
    expect(counts.runtimes).toBeGreaterThan(1);
    for (const name of DOCUMENTED_ERRORS as string[]) expect(counts.errors[name] ?? 0, name).toBeGreaterThan(0);
  }

  it('the sample files the I/O targets mutate are valid to begin with', async () => {
    const io = ctx.io;
    expect(io).toBeTruthy();
    const st = await io.loadLayerNormWeights(sampleSafetensors());
    expect(Array.from(st.gamma)).toEqual([1, 2, 3, 4]);
    const gguf = await io.loadLayerNormWeights(sampleGguf());
    expect(gguf.format).toBe('gguf');
    expect(gguf.d).toBe(4);
  });

  it('the differential generator reaches the hard rows: tiny, huge, constant and non-finite', () => {
    const spec = {
      d: 64,
      rows: 20,
      seed: 5,
      eps: 0,
      gamma: 'large',
      beta: 'normal',
      constantRows: 0.3,
      nonFiniteRows: 0.2,
      minExp: -40,
      span: 70,
    } as const;
    const c = buildCase(spec);
    const mags = [];
    let constant = 0,
      nonFinite = 0;
    for (let r = 0; r < 20; r++) {
      const row = c.x.subarray(r * 64, (r + 1) * 64);
      if (row.every((v: number) => v === row[0])) constant++;
      if (row.some((v: number) => !Number.isFinite(v))) nonFinite++;
      mags.push(Math.max(...Array.from(row, (v: number) => (Number.isFinite(v) ? Math.abs(v) : 0))));
    }
    expect(constant).toBeGreaterThan(0);
    expect(nonFinite).toBeGreaterThan(0);
    expect(Math.min(...mags.filter((m) => m > 0))).toBeLessThan(1e-20);
    expect(Math.max(...mags)).toBeGreaterThan(1e10);
    checkDifferential(ctx.simd, ctx.scalar, spec);
  });
});
