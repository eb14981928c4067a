// The issue-14 methods and options through layernorm-wasm/worker (Node, worker_threads): where
// their arrays go (into out, sumOut in place, statistics in the memory of x or out), large calls
// cut into slices with progress (the row options filled back in the caller's arrays), and failed
// calls leaving the worker's heap where it was. (Every call's result bit for bit the main
// thread's: tests/worker/calls.test.ts; every bad call rejecting as the main thread throws:
// tests/errors/worker.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { float32ToHalfBits, init, type LayerNormRuntime } from '../../dist/index.js';
import { initWorker, type LayerNormWorker } from '../../dist/worker/index.js';
import { bitDifference, fieldsDifference } from '../helpers/bits.js';
import { gaussian, gpt2Like, rng } from '../helpers/cases.js';
import { rejection } from '../helpers/errors.js';

const D = 768;
const ROWS = 24;
const x = gpt2Like(rng(21), ROWS, D);
const r = gaussian(rng(22), ROWS * D, 0, 2);
const gamma = gaussian(rng(23), D, 1, 0.2);
const beta = gaussian(rng(24), D, 0, 0.1);
const bias = gaussian(rng(25), D, 0, 0.1);

const detached = (a: ArrayBufferView) => a.byteLength === 0 && a.buffer.byteLength === 0;

describe.each(['simd', 'scalar'] as const)('%s backend', (backend) => {
  let rt: LayerNormRuntime;
  let w: LayerNormWorker;
  beforeAll(async () => {
    rt = await init({ backend });
    w = await initWorker({ backend });
  });
  afterAll(() => w.dispose());

  it('rmsNorm and a resident RMSNorm with transfer: false fill out and resolve to it', async () => {
    const expected = rt.rmsNorm(x, D, { gamma });
    const out = new Float32Array(x.length);
    expect(await w.rmsNorm(x, D, { gamma, out, transfer: false })).toBe(out);
    expect(bitDifference(out, expected)).toBeNull();
    const norm = await w.createRmsNorm(D, { gamma });
    const filled = new Float32Array(x.length);
    expect(await norm.forward(x, filled, { transfer: false })).toBe(filled);
    expect(bitDifference(filled, expected)).toBeNull();
    norm.dispose();
  });

  it('sumOut = x and sumOut = residual (in place), moved or not: as on the main thread', async () => {
    const expectedSum = new Float32Array(x.length);
    const expected = rt.layerNorm(x, D, { gamma, residual: r, sumOut: expectedSum });
    for (const transfer of [true, false]) {
      // The residual stream updated in place: sumOut is the residual.
      const stream = r.slice();
      expect(
        bitDifference(await w.layerNorm(x.slice(), D, { gamma, residual: stream, sumOut: stream, transfer }), expected),
      ).toBeNull();
      expect(bitDifference(stream, expectedSum), `sumOut = residual, transfer ${transfer}`).toBeNull();
      // sumOut = x: x receives the sum, so its memory cannot move; the result is a new array.
      const mine = x.slice();
      const y = await w.layerNorm(mine, D, { gamma, residual: r, sumOut: mine, transfer });
      expect(bitDifference(y, expected), `sumOut = x, transfer ${transfer}`).toBeNull();
      expect(detached(mine)).toBe(false);
      expect(bitDifference(mine, expectedSum), `sumOut = x, transfer ${transfer}`).toBeNull();
    }
  });

  it('mean and rstd in the memory of x or out: filled, and that memory is not moved away from them', async () => {
    const expectedMean = new Float64Array(ROWS);
    const expected = rt.layerNorm(x, D, { mean: expectedMean });
    // x and mean in one ArrayBuffer (x first, then the 8-aligned means).
    const buffer = new ArrayBuffer(x.byteLength + 8 * ROWS);
    const mx = new Float32Array(buffer, 0, x.length);
    mx.set(x);
    const mean = new Float64Array(buffer, x.byteLength, ROWS);
    expect(bitDifference(await w.layerNorm(mx, D, { mean }), expected)).toBeNull();
    expect(bitDifference(mean, expectedMean)).toBeNull();
    // out and rstd in one ArrayBuffer.
    const expectedRstd = new Float64Array(ROWS);
    rt.layerNorm(x, D, { rstd: expectedRstd });
    const outBuffer = new ArrayBuffer(x.byteLength + 8 * ROWS);
    const out = new Float32Array(outBuffer, 0, x.length);
    const rstd = new Float64Array(outBuffer, x.byteLength, ROWS);
    expect(await w.layerNorm(x, D, { out, rstd })).toBe(out);
    expect(bitDifference(out, expected)).toBeNull();
    expect(bitDifference(rstd, expectedRstd)).toBeNull();
  });
});

describe('large calls cut into slices, with progress', () => {
  let rt: LayerNormRuntime;
  let w: LayerNormWorker;
  const rows = 6000; // about 4.4 slices of 2^20 values at d = 768
  const perSlice = Math.floor((1 << 20) / D);
  const progress = [perSlice, 2 * perSlice, 3 * perSlice, 4 * perSlice, rows].map((done) => [done, rows]);
  const big = gpt2Like(rng(27), rows, D);
  const stream = gaussian(rng(28), rows * D);
  beforeAll(async () => {
    rt = await init();
    w = await initWorker();
  });
  afterAll(() => w.dispose());

  it('layerNorm with residual, bias, sumOut, mean and rstd: sliced, each slice’s rows filled back', async () => {
    const main = { sumOut: new Float32Array(big.length), mean: new Float64Array(rows), rstd: new Float64Array(rows) };
    const expected = rt.layerNorm(big, D, { gamma, beta, residual: stream, bias, ...main });
    for (const transfer of [true, false]) {
      const mine = { sumOut: new Float32Array(big.length), mean: new Float64Array(rows), rstd: new Float64Array(rows) };
      const seen: number[][] = [];
      const y = await w.layerNorm(big.slice(), D, {
        gamma,
        beta,
        residual: stream,
        bias,
        ...mine,
        transfer,
        onProgress: (done, total) => seen.push([done, total]),
      });
      expect(seen, `transfer ${transfer}`).toEqual(progress);
      expect(bitDifference(y, expected)).toBeNull();
      expect(fieldsDifference(mine, main)).toBeNull();
    }
  });

  it('rmsNorm with rstd, the residual stream in place, and a float16 call: sliced, as on the main thread', async () => {
    const expectedStream = stream.slice(),
      expectedRstd = new Float64Array(rows);
    const expected = rt.rmsNorm(big, D, {
      gamma,
      residual: expectedStream,
      sumOut: expectedStream,
      rstd: expectedRstd,
    });
    const mine = stream.slice(),
      rstd = new Float64Array(rows);
    let calls = 0;
    const y = await w.rmsNorm(big.slice(), D, { gamma, residual: mine, sumOut: mine, rstd, onProgress: () => calls++ });
    expect(calls).toBe(progress.length);
    expect(bitDifference(y, expected)).toBeNull();
    expect(bitDifference(mine, expectedStream)).toBeNull();
    expect(bitDifference(rstd, expectedRstd)).toBeNull();

    const bits = float32ToHalfBits(big, 'bfloat16');
    const seen: number[][] = [];
    const yb = await w.layerNorm(bits.slice(), D, {
      dtype: 'bfloat16',
      onProgress: (done, total) => seen.push([done, total]),
    });
    expect(seen).toEqual(progress);
    expect(bitDifference(yb, rt.layerNorm(bits, D, { dtype: 'bfloat16' }))).toBeNull();
  });

  it('a resident RMSNorm’s forward, sliced', async () => {
    const norm = await w.createRmsNorm(D, { gamma });
    const seen: number[][] = [];
    const y = await norm.forward(big.slice(), undefined, { onProgress: (done, total) => seen.push([done, total]) });
    expect(seen).toEqual(progress);
    expect(bitDifference(y, rt.rmsNorm(big, D, { gamma }))).toBeNull();
    norm.dispose();
  });

  it('aborting a fused call mid-way rejects with the reason and fills nothing back', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const mean = new Float64Array(rows).fill(-1);
    const call = w.layerNorm(big.slice(), D, {
      residual: stream,
      mean,
      signal: controller.signal,
      onProgress: (done) => done < rows && controller.abort(reason),
    });
    await expect(call).rejects.toBe(reason);
    expect(mean.every((v) => v === -1)).toBe(true);
    expect(bitDifference(await w.rmsNorm(x.slice(), D), rt.rmsNorm(x, D))).toBeNull();
  });
});

describe('failed calls leave the worker as it was', () => {
  let w: LayerNormWorker;
  beforeAll(async () => {
    w = await initWorker();
  });
  afterAll(() => w.dispose());

  const small = new Float32Array(12).map((_, i) => i * 0.5);

  it('a call that is going to fail does not take its input; the worker heap is where it was after all of them', async () => {
    const before = await w.heapInUse();
    const mine = small.slice();
    const refused = async (call: Promise<unknown>) => {
      const e = await rejection(call);
      return [e.constructor, e.message];
    };
    expect(await refused(w.rmsNorm(mine, 3, { beta: new Float32Array(3) } as never))).toEqual([
      TypeError,
      'rmsNorm: RMSNorm has no bias term, so no beta option; got beta Float32Array(3)',
    ]);
    expect(await refused(w.layerNorm(mine, 3, { residual: small, bias: new Float32Array(2) }))).toEqual([
      RangeError,
      'layerNorm: bias must have length d = 3, got length 2',
    ]);
    expect(bitDifference(mine, small)).toBeNull();
    for (let i = 0; i < 50; i++) {
      await w.layerNorm(x, D, { residual: r, bias, mean: new Float64Array(ROWS), transfer: false });
      await w.layerNormalization(x, [ROWS, D], { gamma: { data: gamma, shape: [D] } });
      await w.rmsNormStages(x, D, 1, { residual: r });
      expect(await refused(w.rmsNorm(x, D, { rstd: new Float64Array(3) }))).toEqual([
        RangeError,
        `rmsNorm: rstd must have length ${ROWS} (one entry per row), got length 3`,
      ]);
    }
    expect(await w.heapInUse()).toBe(before);
  });
});
