// layernorm-wasm/worker in Node (worker_threads): γ, β or the residual bias living in the same
// SharedArrayBuffer as an array the call writes (out, sumOut, or x itself with out = x). The
// main thread reads them once, before it writes anything; a call the worker cuts into slices
// (onProgress) must give the same bits, and so must the call it runs whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { init, type LayerNormRuntime } from '../../dist/index.js';
import { initWorker, type LayerNormWorker } from '../../dist/worker/index.js';
import { bitDifference } from '../helpers/bits.js';
import { gaussian, gpt2Like, rng } from '../helpers/cases.js';

const D = 768;
const ROWS = 3000; // about 2.2 slices of 4 MiB at d = 768
const N = ROWS * D;
const x0 = gpt2Like(rng(21), ROWS, D);
const residual0 = gpt2Like(rng(22), ROWS, D);
const gamma0 = gaussian(rng(23), D, 1, 0.2);
const beta0 = gaussian(rng(24), D, 0, 0.1);
const bias0 = gaussian(rng(25), D, 0, 0.1);

type Options = Record<string, Float32Array | number>;

/**
 * Each case lays out its arrays in a fresh SharedArrayBuffer (`shared`, which the call writes
 * into) and returns the call's x and options.
 */
const CASES: Record<string, () => { shared: Float32Array; x: Float32Array; options: Options }> = {
  'γ is the first row of out': () => {
    const shared = sharedCopy(x0.map((v) => -v));
    shared.set(gamma0);
    return { shared, x: x0, options: { gamma: shared.subarray(0, D), beta: beta0, out: shared } };
  },
  'β straddles rows 1 and 2 of out': () => {
    const shared = sharedCopy(x0.map((v) => v / 2));
    shared.set(beta0, D + 3);
    return { shared, x: x0, options: { gamma: gamma0, beta: shared.subarray(D + 3, 2 * D + 3), out: shared } };
  },
  'the bias is row 1 of out': () => {
    const shared = sharedCopy(x0.map((v) => v * 3));
    shared.set(bias0, D);
    const options = { gamma: gamma0, beta: beta0, residual: residual0, bias: shared.subarray(D, 2 * D), out: shared };
    return { shared, x: x0, options };
  },
  'γ lies inside x, with out = x': () => {
    const shared = sharedCopy(x0);
    return { shared, x: shared, options: { gamma: shared.subarray(7, 7 + D), beta: beta0, out: shared } };
  },
  'γ is the first row of sumOut': () => {
    const shared = sharedCopy(x0.map((v) => -v));
    shared.set(gamma0);
    const options = { gamma: shared.subarray(0, D), residual: residual0, bias: bias0, sumOut: shared };
    return { shared, x: x0, options };
  },
};

function sharedCopy(values: Float32Array): Float32Array {
  const a = new Float32Array(new SharedArrayBuffer(4 * values.length));
  a.set(values);
  return a;
}

describe.each(['simd', 'scalar'] as const)('%s backend', (backend) => {
  let rt: LayerNormRuntime;
  let w: LayerNormWorker;
  beforeAll(async () => {
    rt = await init({ backend });
    w = await initWorker({ backend });
  });
  afterAll(() => w.dispose());

  it.each(Object.keys(CASES))('%s: the main thread’s bits, sliced or not', async (name) => {
    const main = CASES[name]!();
    const read = (['gamma', 'beta', 'bias'] as const).find(
      (k) => (main.options[k] as Float32Array).buffer === main.shared.buffer,
    )!;
    const before = (main.options[read] as Float32Array).slice();
    const mainY = rt.layerNorm(main.x, D, main.options);
    // The case is a real one: the call overwrites the per-feature array it has read.
    expect(bitDifference(main.options[read] as Float32Array, before), name).not.toBeNull();
    for (const sliced of [true, false]) {
      const wk = CASES[name]!();
      const progress: number[] = [];
      const y = await w.layerNorm(wk.x, D, {
        ...wk.options,
        transfer: false,
        ...(sliced ? { onProgress: (done: number) => progress.push(done) } : {}),
      });
      const what = `${name}, ${sliced ? 'with' : 'without'} onProgress`;
      expect(bitDifference(wk.shared, main.shared), what).toBeNull();
      expect(bitDifference(y, mainY), what).toBeNull();
      if (sliced) expect(progress.length, what).toBe(3); // it was cut: 1365 + 1365 + 270 rows
      if (sliced) expect(progress.at(-1), what).toBe(ROWS);
    }
  });
});
