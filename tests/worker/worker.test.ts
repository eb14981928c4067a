// layernorm-wasm/worker in Node (worker_threads): the same results as the main-thread runtime,
// bit for bit, and the documented fate of every array passed (moved, copied, shared, filled).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { init, type LayerNormRuntime } from '../../dist/index.js';
import { initWorker, type LayerNormWorker } from '../../dist/worker/index.js';
import { bitDifference, fieldsDifference } from '../helpers/bits.js';
import { gaussian, gpt2Like, rng } from '../helpers/cases.js';

const D = 768;
const rand = rng(14);
const x = gpt2Like(rand, 24, D);
const gamma = gaussian(rand, D, 1, 0.2);
const beta = gaussian(rand, D, 0, 0.1);

const detached = (a: ArrayBufferView) => a.byteLength === 0 && a.buffer.byteLength === 0;

describe.each(['simd', 'scalar'] as const)('%s backend', (backend) => {
  let rt: LayerNormRuntime;
  let w: LayerNormWorker;
  beforeAll(async () => {
    rt = await init({ backend });
    w = await initWorker({ backend });
  });
  afterAll(() => w.dispose());

  it('reports the backend and kernel the main-thread runtime reports', () => {
    expect(w.backend).toBe(backend);
    expect(w.kernel).toBe(rt.kernel);
  });

  it('layerNorm: bit-identical to the main thread, with and without β, any ε', async () => {
    for (const options of [{ gamma, beta }, { gamma }, {}, { gamma, beta, eps: 0.1 }, { eps: 0 }]) {
      const expected = rt.layerNorm(x, D, options);
      expect(bitDifference(await w.layerNorm(x.slice(), D, options), expected)).toBeNull();
      expect(bitDifference(await w.layerNorm(x, D, { ...options, transfer: false }), expected)).toBeNull();
    }
  });

  it('layerNormStats and layerNormStages: the same statistics and stages', async () => {
    expect(
      fieldsDifference(await w.layerNormStats(x, D, { eps: 1e-3 }), rt.layerNormStats(x, D, { eps: 1e-3 })),
    ).toBeNull();
    expect(await w.layerNormStages(x, D, 7, { gamma, beta })).toEqual(rt.layerNormStages(x, D, 7, { gamma, beta }));
  });

  it('createLayerNorm: γ and β stay in the worker; forward is bit-identical', async () => {
    const ln = await w.createLayerNorm(D, { gamma, beta, eps: 1e-5 });
    expect([ln.d, ln.eps, ln.hasGamma, ln.hasBeta]).toEqual([D, 1e-5, true, true]);
    const expected = rt.layerNorm(x, D, { gamma, beta });
    expect(bitDifference(await ln.forward(x.slice()), expected)).toBeNull();
    const out = new Float32Array(x.length);
    expect(await ln.forward(x, out, { transfer: false })).toBe(out);
    expect(bitDifference(out, expected)).toBeNull();
    ln.dispose();
  });
});

describe('where arrays go', () => {
  let rt: LayerNormRuntime;
  let w: LayerNormWorker;
  beforeAll(async () => {
    rt = await init();
    w = await initWorker();
  });
  afterAll(() => w.dispose());
  const expected = () => rt.layerNorm(x, D, { gamma, beta });

  it('by default x moves to the worker and the result comes back in its memory', async () => {
    const mine = x.slice();
    const bytes = mine.byteLength;
    const pending = w.layerNorm(mine, D, { gamma, beta });
    expect(detached(mine)).toBe(true); // from the call on
    const y = await pending;
    expect(y.byteLength).toBe(bytes);
    expect(y.buffer.byteLength).toBe(bytes);
    expect(bitDifference(y, expected())).toBeNull();
    expect(gamma.length).toBe(D); // read-only inputs are copied, never moved
  });

  it('a view of part of a buffer: the whole buffer moves, the result is the same view of it', async () => {
    const backing = new Float32Array(x.length + 2 * D).fill(42);
    backing.set(x, D);
    const bytes = backing.byteLength;
    const view = backing.subarray(D, D + x.length);
    const y = await w.layerNorm(view, D, { gamma, beta });
    expect(detached(backing)).toBe(true);
    expect([y.byteOffset, y.length, y.buffer.byteLength]).toEqual([D * 4, x.length, bytes]);
    expect(bitDifference(y, expected())).toBeNull();
    const whole = new Float32Array(y.buffer);
    expect(whole[0]).toBe(42); // the rest of the buffer comes back untouched
    expect(whole[whole.length - 1]).toBe(42);
  });

  it('with out: out moves and receives the result; x is copied and stays yours', async () => {
    const mine = x.slice();
    const out = new Float32Array(x.length);
    const y = await w.layerNorm(mine, D, { gamma, beta, out });
    expect(detached(out)).toBe(true);
    expect(bitDifference(mine, x)).toBeNull();
    expect(bitDifference(y, expected())).toBeNull();
  });

  it('out === x works in place', async () => {
    const mine = x.slice();
    expect(bitDifference(await w.layerNorm(mine, D, { gamma, beta, out: mine }), expected())).toBeNull();
    const kept = x.slice();
    expect(await w.layerNorm(kept, D, { gamma, beta, out: kept, transfer: false })).toBe(kept);
    expect(bitDifference(kept, expected())).toBeNull();
  });

  it('transfer: false detaches nothing, fills out and resolves to it', async () => {
    const mine = x.slice();
    const out = new Float32Array(x.length);
    const y = await w.layerNorm(mine, D, { gamma, beta, out, transfer: false });
    expect(y).toBe(out);
    expect(bitDifference(out, expected())).toBeNull();
    expect(bitDifference(mine, x)).toBeNull();
    const fresh = await w.layerNorm(mine, D, { gamma, beta, transfer: false });
    expect(fresh).not.toBe(mine);
    expect(bitDifference(fresh, expected())).toBeNull();
  });

  it('an out that partly overlaps x gives what the main thread gives, either way', async () => {
    for (const transfer of [true, false]) {
      const a = new Float32Array(x.length + D);
      a.set(x);
      const b = a.slice();
      rt.layerNorm(a.subarray(0, x.length), D, { gamma, out: a.subarray(D) });
      const y = await w.layerNorm(b.subarray(0, x.length), D, { gamma, out: b.subarray(D), transfer });
      expect(bitDifference(y, a.subarray(D))).toBeNull();
    }
  });

  it('arrays on a SharedArrayBuffer are shared: the worker writes into out itself', async () => {
    const sx = new Float32Array(new SharedArrayBuffer(x.byteLength));
    sx.set(x);
    const sout = new Float32Array(new SharedArrayBuffer(x.byteLength));
    expect(await w.layerNorm(sx, D, { gamma, beta, out: sout })).toBe(sout);
    expect(bitDifference(sout, expected())).toBeNull();
    expect(bitDifference(sx, x)).toBeNull();
    const y = await w.layerNorm(sx, D, { gamma, beta }); // no out: a new array, x untouched
    expect(y.buffer).toBeInstanceOf(ArrayBuffer);
    expect(bitDifference(y, expected())).toBeNull();
    expect(bitDifference(sx, x)).toBeNull();
  });

  it('a view of wasm memory (a main-thread WasmTensor) is copied, and the main-thread runtime still works', async () => {
    const t = rt.allocate(x.length / D, D);
    t.set(x);
    const y = await w.layerNorm(t.view, D, { gamma, beta });
    expect(bitDifference(y, expected())).toBeNull();
    expect(bitDifference(t.toArray(), x)).toBeNull();
    expect(rt.layerNorm(x, D, { gamma, beta })).toEqual(y);
    t.dispose();
  });

  it('layerNormStats and layerNormStages only read x: it stays yours', async () => {
    const mine = x.slice();
    await w.layerNormStats(mine, D);
    await w.layerNormStages(mine, D, 0);
    expect(bitDifference(mine, x)).toBeNull();
  });

  it('resident forward moves x (or out) like layerNorm', async () => {
    const ln = await w.createLayerNorm(D, { gamma, beta });
    const mine = x.slice();
    const y = await ln.forward(mine);
    expect(detached(mine)).toBe(true);
    expect(bitDifference(y, expected())).toBeNull();
    const out = new Float32Array(x.length);
    const kept = x.slice();
    await ln.forward(kept, out);
    expect(detached(out)).toBe(true);
    expect(bitDifference(kept, x)).toBeNull();
    ln.dispose();
  });

  it('zero rows work', async () => {
    expect(await w.layerNorm(new Float32Array(0), D)).toEqual(new Float32Array(0));
    expect((await w.layerNormStats(new Float32Array(0), D)).mean.length).toBe(0);
  });
});

describe('large calls: slices, progress and cancellation', () => {
  let rt: LayerNormRuntime;
  let w: LayerNormWorker;
  const rows = 6000; // about 4.4 slices of 4 MiB at d = 768
  const big = gpt2Like(rng(3), rows, D);
  beforeAll(async () => {
    rt = await init();
    w = await initWorker();
  });
  afterAll(() => w.dispose());

  it('a sliced call gives the unsliced result, reporting progress in rows after each slice', async () => {
    const seen: [number, number][] = [];
    const y = await w.layerNorm(big.slice(), D, { gamma, beta, onProgress: (done, total) => seen.push([done, total]) });
    expect(bitDifference(y, rt.layerNorm(big, D, { gamma, beta }))).toBeNull();
    const perSlice = Math.floor((1 << 20) / D);
    expect(seen).toEqual([
      [perSlice, rows],
      [2 * perSlice, rows],
      [3 * perSlice, rows],
      [4 * perSlice, rows],
      [rows, rows],
    ]);
  });

  it('sliced into a caller out, with copies, and for statistics', async () => {
    const out = new Float32Array(big.length);
    await w.layerNorm(big, D, { beta, out, transfer: false, onProgress: () => {} });
    expect(bitDifference(out, rt.layerNorm(big, D, { beta }))).toBeNull();
    let last = 0;
    const stats = await w.layerNormStats(big, D, { eps: 0.01, onProgress: (done) => (last = done) });
    expect(fieldsDifference(stats, rt.layerNormStats(big, D, { eps: 0.01 }))).toBeNull();
    expect(last).toBe(rows);
    const ln = await w.createLayerNorm(D, { gamma });
    expect(
      bitDifference(
        await ln.forward(big.slice(), undefined, { onProgress: () => {} }),
        rt.layerNorm(big, D, { gamma }),
      ),
    ).toBeNull();
    ln.dispose();
  });

  it('outputs on a SharedArrayBuffer that overlap the residual shifted by part of a row: the main thread’s bits, sliced or not', async () => {
    // out (or sumOut) begins `shift` floats after the residual in one shared buffer: a sliced call
    // whose slice wrote its output before the next slice read its residual would differ there.
    const n = big.length;
    const residual0 = gpt2Like(rng(4), rows, D);
    const bias = gaussian(rng(5), D, 0, 0.1);
    for (const shift of [300, -300, D + 5]) {
      for (const into of ['out', 'sumOut'] as const) {
        const layout = () => {
          const shared = new Float32Array(new SharedArrayBuffer(4 * (n + Math.abs(shift))));
          const r = shared.subarray(Math.max(0, -shift), Math.max(0, -shift) + n);
          r.set(residual0);
          const o = shared.subarray(Math.max(0, shift), Math.max(0, shift) + n);
          return { shared, r, o };
        };
        const main = layout();
        const mainOut = into === 'out' ? main.o : new Float32Array(n);
        const mainSum = into === 'sumOut' ? main.o : new Float32Array(n);
        rt.layerNorm(big, D, { gamma, beta, residual: main.r, bias, out: mainOut, sumOut: mainSum });
        for (const sliced of [true, false]) {
          const wk = layout();
          const out = into === 'out' ? wk.o : new Float32Array(new SharedArrayBuffer(4 * n));
          const sumOut = into === 'sumOut' ? wk.o : new Float32Array(new SharedArrayBuffer(4 * n));
          const progress: number[] = [];
          await w.layerNorm(big, D, {
            gamma,
            beta,
            residual: wk.r,
            bias,
            out,
            sumOut,
            transfer: false,
            ...(sliced ? { onProgress: (done: number) => progress.push(done) } : {}),
          });
          const what = `${into} at ${shift} floats from the residual, ${sliced ? 'with' : 'without'} onProgress`;
          expect(bitDifference(wk.shared, main.shared), what).toBeNull();
          expect(bitDifference(out, mainOut), what).toBeNull();
          expect(bitDifference(sumOut, mainSum), what).toBeNull();
          if (sliced) expect(progress.at(-1), what).toBe(rows);
        }
      }
    }
  });

  it('a small call reports its progress once, at the end', async () => {
    const seen: number[][] = [];
    await w.layerNorm(x.slice(), D, { onProgress: (...a) => seen.push(a) });
    expect(seen).toEqual([[24, 24]]);
  });

  it('aborting mid-call rejects with the signal reason; the worker goes on serving', async () => {
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    const mine = big.slice();
    const call = w.layerNorm(mine, D, {
      signal: controller.signal,
      onProgress: (done) => done < rows && controller.abort(reason),
    });
    await expect(call).rejects.toBe(reason);
    expect(detached(mine)).toBe(true); // it had moved; an aborted call does not give it back
    expect(
      bitDifference(await w.layerNorm(x.slice(), D, { gamma, beta }), rt.layerNorm(x, D, { gamma, beta })),
    ).toBeNull();
  });

  it('a signal already aborted rejects at once and sends nothing: x stays yours', async () => {
    const mine = x.slice();
    await expect(w.layerNorm(mine, D, { signal: AbortSignal.abort('no') })).rejects.toBe('no');
    expect(bitDifference(mine, x)).toBeNull();
  });

  it('a call cancelled while queued behind another never runs; the one ahead finishes', async () => {
    const controller = new AbortController();
    const ahead = w.layerNorm(big.slice(), D, { gamma });
    const queued = w.layerNormStats(big, D, { signal: controller.signal });
    controller.abort();
    await expect(queued).rejects.toMatchObject({ name: 'AbortError' });
    expect(bitDifference(await ahead, rt.layerNorm(big, D, { gamma }))).toBeNull();
  });

  it('a throwing onProgress rejects its call with that error', async () => {
    const boom = new Error('progress handler failed');
    await expect(
      w.layerNorm(big.slice(), D, {
        onProgress: () => {
          throw boom;
        },
      }),
    ).rejects.toBe(boom);
    expect(bitDifference((await w.layerNormStats(x, D)).mean, rt.layerNormStats(x, D).mean)).toBeNull();
  });
});

describe('worker memory', () => {
  it('100 create/forward/dispose cycles and 100 failed calls leave the worker heap where it was', async () => {
    const w = await initWorker();
    try {
      const before = await w.heapInUse();
      for (let i = 0; i < 100; i++) {
        const ln = await w.createLayerNorm(D, { gamma, beta });
        await ln.forward(x.slice());
        ln.dispose();
        await w.layerNorm(x, D, { gamma: new Float32Array(3) }).catch(() => {});
      }
      expect(await w.heapInUse()).toBe(before);
    } finally {
      w.dispose();
    }
  });
});
