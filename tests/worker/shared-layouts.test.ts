// layernorm-wasm/worker in Node: every array of a call laid out at random in one SharedArrayBuffer
// (x, out, the residual, sumOut, γ, β, the bias, mean and rstd; apart, in place, or overlapping by any number
// of floats). A call the worker cuts into slices (onProgress) must leave the buffer and return
// exactly what the main thread does with the same layout, or throw the same error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { init, type LayerNormRuntime } from '../../dist/index.js';
import { initWorker, type LayerNormWorker } from '../../dist/worker/index.js';
import { bitDifference } from '../helpers/bits.js';
import { gaussian, rng } from '../helpers/cases.js';

const D = 16;
const ROWS = 70_000; // 1,120,000 floats: two slices of 65,536 rows
const N = ROWS * D;
const FLOATS = 3 * N; // the shared buffer holds three row arrays' worth
const TRIALS = 32;

type Name = 'x' | 'out' | 'residual' | 'sumOut' | 'gamma' | 'beta' | 'bias' | 'mean' | 'rstd';
type Layout = { norm: 'layerNorm' | 'rmsNorm'; at: Partial<Record<Name, number>>; initial: Float32Array };

/** A random layout: each array at a random float offset, some in place of another, some left out. */
function layout(rand: () => number): Layout {
  const pick = (length: number, others: number[]) => {
    const r = rand();
    if (r < 0.2 && others.length > 0) return others[Math.floor(rand() * others.length)]!; // in place
    if (r < 0.6 && length === N) return N * Math.floor(rand() * 3); // one of three apart
    const at = Math.floor(rand() * (FLOATS - length));
    return r < 0.8 ? at - (at % D) : at; // at a row boundary, or anywhere
  };
  const at: Layout['at'] = {};
  const rowArrays: number[] = [];
  const put = (name: Name, length: number) => {
    at[name] = pick(length, length === N ? rowArrays : []);
    if (length === N) rowArrays.push(at[name]!);
  };
  put('x', N);
  if (rand() < 0.8) put('out', N);
  if (rand() < 0.6) {
    put('residual', N);
    if (rand() < 0.5) put('sumOut', N);
    if (rand() < 0.5) put('bias', D);
  }
  const norm = rand() < 0.5 ? 'layerNorm' : 'rmsNorm';
  // γ, β and the bias: inside any row array, or anywhere in the buffer.
  for (const name of ['gamma', ...(norm === 'layerNorm' ? ['beta'] : [])] as const) if (rand() < 0.8) put(name, D);
  // The per-row statistics, float64 (8-byte aligned): anywhere, over floats of the other arrays too.
  for (const name of [...(norm === 'layerNorm' ? ['mean'] : []), 'rstd'] as const) {
    if (rand() < 0.3) at[name] = 2 * Math.floor((rand() * (FLOATS - 2 * ROWS)) / 2);
  }
  return { norm, at, initial: gaussian(rand, FLOATS, 0, 2) };
}

/** The layout's arrays in a fresh shared buffer holding its initial values. */
function arrays(l: Layout) {
  const shared = new Float32Array(new SharedArrayBuffer(4 * FLOATS));
  shared.set(l.initial);
  const options: Record<string, Float32Array | Float64Array> = {};
  for (const [name, at] of Object.entries(l.at)) {
    if (name === 'mean' || name === 'rstd') options[name] = new Float64Array(shared.buffer, 4 * at, ROWS);
    else if (name !== 'x') options[name] = shared.subarray(at, at + (['gamma', 'beta', 'bias'].includes(name) ? D : N));
  }
  return { shared, x: shared.subarray(l.at.x!, l.at.x! + N), options };
}

let rt: LayerNormRuntime;
let w: LayerNormWorker;
beforeAll(async () => {
  rt = await init();
  w = await initWorker();
});
afterAll(() => w.dispose());

describe('random layouts in one SharedArrayBuffer', () => {
  it(`${TRIALS} layouts: the worker’s sliced call leaves the main thread’s bits, or throws its error`, async () => {
    const rand = rng(2026);
    let sliced = 0;
    for (let trial = 0; trial < TRIALS; trial++) {
      const l = layout(rand);
      const what = `trial ${trial}: ${l.norm} ${JSON.stringify(l.at)}`;
      const main = arrays(l);
      let mainError: string | null = null;
      let mainY: Float32Array | null = null;
      try {
        mainY = rt[l.norm](main.x, D, main.options) as Float32Array;
      } catch (e) {
        mainError = `${(e as Error).name}: ${(e as Error).message}`;
      }
      const wk = arrays(l);
      let slices = 0;
      let workerError: string | null = null;
      let workerY: Float32Array | null = null;
      try {
        workerY = (await w[l.norm](wk.x, D, {
          ...wk.options,
          transfer: false,
          onProgress: () => slices++,
        })) as Float32Array;
      } catch (e) {
        workerError = `${(e as Error).name}: ${(e as Error).message}`;
      }
      expect(workerError, what).toBe(mainError);
      expect(bitDifference(wk.shared, main.shared), what).toBeNull();
      if (mainY && workerY) expect(bitDifference(workerY, mainY), what).toBeNull();
      if (slices > 1) sliced++;
    }
    // The layouts exercise the slices, not only the calls the worker runs whole.
    expect(sliced).toBeGreaterThan(TRIALS / 4);
  });
});
