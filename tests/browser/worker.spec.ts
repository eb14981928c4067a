/**
 * layernorm-wasm/worker in Chromium, from a plain ESM page whose import map maps only the
 * package's entries (a module worker cannot see that map): results bit-identical to the
 * main-thread runtime, where each array goes (moved, copied, shared, wasm memory), errors as the
 * main thread throws them, progress, cancellation, a failing worker and dispose().
 */
import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { serveWorkerPage } from './worker-page';

const site = serveWorkerPage();
const open = (page: Page) => site.open(page);

/* eslint-disable @typescript-eslint/no-explicit-any -- page-side code sees the package untyped */
type Lnw = { init: any; initWorker: any; DisposedError: any; WorkerError: any };
declare const window: Window & { lnw: Lnw };

test('the worker gives the main-thread runtime’s results bit for bit, on both backends', async ({ page }) => {
  await open(page);
  const result = await page.evaluate(async () => {
    const { init, initWorker } = window.lnw;
    const d = 768;
    const x = new Float32Array(40 * d).map((_, i) => Math.sin(i * 0.37) * 3 + (i % d === 447 ? 900 : 0));
    const gamma = new Float32Array(d).map((_, i) => 1 + 0.5 * Math.cos(i));
    const beta = new Float32Array(d).map((_, i) => 0.1 * Math.sin(i));
    const same = (a: Float32Array, b: Float32Array) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
    const out: Record<string, unknown> = {};
    for (const backend of ['simd', 'scalar']) {
      const rt = await init({ backend });
      const w = await initWorker({ backend });
      const ln = await w.createLayerNorm(d, { gamma, beta });
      const stats = await w.layerNormStats(x, d);
      const expectedStats = rt.layerNormStats(x, d);
      const stages = await w.layerNormStages(x, d, 3, { gamma, beta });
      out[backend] = {
        backend: w.backend,
        kernel: w.kernel === rt.kernel,
        gainBias: same(await w.layerNorm(x.slice(), d, { gamma, beta }), rt.layerNorm(x, d, { gamma, beta })),
        biasFree: same(await w.layerNorm(x.slice(), d, { gamma, eps: 0.1 }), rt.layerNorm(x, d, { gamma, eps: 0.1 })),
        stats: ['mean', 'variance', 'rstd'].every((k) => same(stats[k], expectedStats[k])),
        stages: same(stages.output, rt.layerNormStages(x, d, 3, { gamma, beta }).output),
        forward: same(await ln.forward(x.slice()), rt.layerNorm(x, d, { gamma, beta })),
      };
      w.dispose();
    }
    return out;
  });
  const all = { kernel: true, gainBias: true, biasFree: true, stats: true, stages: true, forward: true };
  expect(result).toEqual({ simd: { backend: 'simd', ...all }, scalar: { backend: 'scalar', ...all } });
});

test('where arrays go: moved by default, copied on request, shared when shared, wasm memory copied', async ({
  page,
}) => {
  await open(page);
  const result = await page.evaluate(async () => {
    const { init, initWorker } = window.lnw;
    const d = 768;
    const x = new Float32Array(8 * d).map((_, i) => Math.cos(i) * 2);
    const rt = await init();
    const w = await initWorker();
    const expected = rt.layerNorm(x, d);
    const same = (a: Float32Array, b: Float32Array) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

    const moved = x.slice();
    const pending = w.layerNorm(moved, d);
    const movedLengthDuringCall = moved.length;
    const y = await pending;

    const kept = x.slice();
    const out = new Float32Array(x.length);
    const filled = await w.layerNorm(kept, d, { out, transfer: false });

    const sx = new Float32Array(new SharedArrayBuffer(x.byteLength));
    sx.set(x);
    const sout = new Float32Array(new SharedArrayBuffer(x.byteLength));
    const shared = await w.layerNorm(sx, d, { out: sout });

    // A view of the main-thread runtime's wasm memory cannot be detached: it is copied instead.
    const t = rt.allocate(8, d);
    t.set(x);
    const fromWasm = await w.layerNorm(t.view, d);
    const tensorIntact = same(t.toArray(), x);
    t.dispose();
    w.dispose();
    return {
      crossOriginIsolated: self.crossOriginIsolated,
      movedLengthDuringCall,
      movedResult: same(y, expected) && y.buffer.byteLength === x.byteLength,
      copyKeptX: same(kept, x),
      copyResolvesToOut: filled === out && same(out, expected),
      sharedResolvesToOut: shared === sout && same(sout, expected) && same(sx, x),
      wasmMemory: same(fromWasm, expected) && tensorIntact,
      mainStillWorks: same(rt.layerNorm(x, d), expected),
    };
  });
  expect(result).toEqual({
    crossOriginIsolated: true,
    movedLengthDuringCall: 0,
    movedResult: true,
    copyKeptX: true,
    copyResolvesToOut: true,
    sharedResolvesToOut: true,
    wasmMemory: true,
    mainStillWorks: true,
  });
});

test('errors arrive as the main thread throws them, and the worker keeps working', async ({ page }) => {
  await open(page);
  const result = await page.evaluate(async () => {
    const { init, initWorker, DisposedError } = window.lnw;
    const rt = await init();
    const w = await initWorker();
    const x = () => new Float32Array(12).map((_, i) => i * 0.5);
    const detached = () => {
      const a = new Float32Array(12);
      structuredClone(a.buffer, { transfer: [a.buffer] });
      return a;
    };
    class Activations {}
    const mainLn = rt.createLayerNorm(3);
    const workerLn = await w.createLayerNorm(3);
    mainLn.dispose();
    workerLn.dispose();
    const calls: [string, (t: any, l: any) => unknown][] = [
      ['Float64Array x', (t) => t.layerNorm(new Float64Array(3), 3)],
      ['Proxy x', (t) => t.layerNorm(new Proxy(x(), {}), 3)],
      ['detached x', (t) => t.layerNorm(detached(), 3)],
      ['class instance x', (t) => t.layerNorm(new Activations(), 3)],
      ['d = 0', (t) => t.layerNorm(x(), 0)],
      ['gamma length', (t) => t.layerNorm(x(), 3, { gamma: new Float32Array(4) })],
      ['eps string', (t) => t.layerNorm(x(), 3, { eps: '1e-5' })],
      ['stages row', (t) => t.layerNormStages(x(), 3, 4)],
      ['stats d', (t) => t.layerNormStats(x(), 5)],
      ['disposed LayerNorm', (_, l) => l.forward(x())],
    ];
    const rows = [];
    for (const [name, call] of calls) {
      let expected: any, got: any;
      try {
        call(rt, mainLn);
      } catch (e) {
        expected = e;
      }
      try {
        await call(w, workerLn);
      } catch (e) {
        got = e;
      }
      rows.push({
        name,
        sameClass: expected !== undefined && got instanceof expected.constructor,
        sameMessage: got?.message === expected?.message && got?.name === expected?.name,
      });
    }
    const disposedIsPackageClass = (await workerLn.forward(x()).catch((e: unknown) => e)) instanceof DisposedError;
    const works = (await w.layerNorm(x(), 3))[0];
    w.dispose();
    return { rows, disposedIsPackageClass, works: Math.abs(works + 1.2247) < 1e-3 };
  });
  for (const row of result.rows) expect(row, row.name).toEqual({ name: row.name, sameClass: true, sameMessage: true });
  expect(result.disposedIsPackageClass).toBe(true);
  expect(result.works).toBe(true);
});

test('progress after each slice of a large call, and cancellation with the signal’s reason', async ({ page }) => {
  await open(page);
  const result = await page.evaluate(async () => {
    const { initWorker } = window.lnw;
    const w = await initWorker();
    const d = 768;
    const rows = 6000;
    const big = new Float32Array(rows * d).map((_, i) => Math.sin(i * 0.01));
    const progress: number[] = [];
    await w.layerNorm(big.slice(), d, { onProgress: (done: number, total: number) => progress.push(done / total) });
    const controller = new AbortController();
    const reason = new Error('cancelled by the user');
    const cancelled = await w
      .layerNorm(big.slice(), d, { signal: controller.signal, onProgress: () => controller.abort(reason) })
      .then(
        () => 'resolved',
        (e: unknown) => e === reason,
      );
    const after = (await w.layerNormStats(big, d)).mean.length;
    w.dispose();
    return { progress, cancelled, after };
  });
  const perSlice = Math.floor((1 << 20) / 768);
  expect(result.progress).toEqual([1, 2, 3, 4].map((k) => (k * perSlice) / 6000).concat([1]));
  expect(result.cancelled).toBe(true);
  expect(result.after).toBe(6000);
});

test('γ, β or the bias in the SharedArrayBuffer of out (or γ inside x with out = x): the main thread’s bits, sliced', async ({
  page,
}) => {
  await open(page);
  const result = await page.evaluate(async () => {
    const { init, initWorker } = window.lnw;
    const d = 768;
    const rows = 3000; // three slices of at most 1365 rows
    const wave = (n: number, k: number) =>
      new Float32Array(n).map((_, i) => Math.sin(i * k) * 2 + (i % 97 === 5 ? 40 : 0));
    const x = wave(rows * d, 0.013);
    const residual = wave(rows * d, 0.029);
    const [gamma, beta, bias] = [wave(d, 0.7).map((v) => 1 + v / 4), wave(d, 0.3).map((v) => v / 8), wave(d, 1.1)];
    const shared = (values: Float32Array) => {
      const a = new Float32Array(new SharedArrayBuffer(4 * values.length));
      a.set(values);
      return a;
    };
    const layouts: Record<string, () => { s: Float32Array; x: Float32Array; o: Record<string, unknown> }> = {
      gamma: () => {
        const s = shared(x.map((v) => -v));
        s.set(gamma);
        return { s, x, o: { gamma: s.subarray(0, d), beta, out: s } };
      },
      beta: () => {
        const s = shared(x.map((v) => v / 2));
        s.set(beta, d + 3);
        return { s, x, o: { gamma, beta: s.subarray(d + 3, 2 * d + 3), out: s } };
      },
      bias: () => {
        const s = shared(x.map((v) => v * 3));
        s.set(bias, d);
        return { s, x, o: { gamma, beta, residual, bias: s.subarray(d, 2 * d), out: s } };
      },
      gammaInX: () => {
        const s = shared(x);
        return { s, x: s, o: { gamma: s.subarray(7, 7 + d), beta, out: s } };
      },
    };
    const same = (a: Float32Array, b: Float32Array) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
    const rt = await init();
    const w = await initWorker();
    const out: Record<string, { same: boolean; slices: number }> = {};
    for (const [name, layout] of Object.entries(layouts)) {
      const main = layout();
      rt.layerNorm(main.x, d, main.o);
      const wk = layout();
      let slices = 0;
      await w.layerNorm(wk.x, d, { ...wk.o, transfer: false, onProgress: () => slices++ });
      out[name] = { same: same(wk.s, main.s), slices };
    }
    w.dispose();
    return { isolated: self.crossOriginIsolated, out };
  });
  const sliced = { same: true, slices: 3 };
  expect(result).toEqual({ isolated: true, out: { gamma: sliced, beta: sliced, bias: sliced, gammaInX: sliced } });
});

test('a relative options.wasm is relative to the page, as for init(), not to the worker script', async ({ page }) => {
  await open(page);
  const wasmRequests: string[] = [];
  page.context().on('request', (r) => r.url().endsWith('.wasm') && wasmRequests.push(new URL(r.url()).pathname));
  const result = await page.evaluate(async () => {
    // The page is /test/index.html: '../dist/wasm/' is /dist/wasm/ (from the worker script,
    // /dist/worker/script.js, it would be /dist/dist/wasm/).
    const w = await window.lnw.initWorker({ wasm: '../dist/wasm/' });
    const y = await w.layerNorm(
      new Float32Array(768).map((_, i) => i % 7),
      768,
    );
    w.dispose();
    return { kernel: w.kernel, finite: y.every(Number.isFinite) };
  });
  expect(result).toEqual({ kernel: 'f32_layernorm_ukernel__wasmsimd_u8', finite: true });
  expect(wasmRequests).toEqual(['/dist/wasm/layernorm-simd.wasm']);
});

test.describe('a worker that fails', () => {
  test.use({ allowConsole: [/Failed to load resource: the server responded with a status of 404/, /worker fault/] });

  test('an error thrown in the worker outside a call rejects the pending call and every later one', async ({
    page,
  }) => {
    await open(page);
    const result = await page.evaluate(async (origin) => {
      const { initWorker, WorkerError } = window.lnw;
      const w = await initWorker({
        worker: () => new Worker(`${origin}/test/crashing-worker.js`, { type: 'module' }),
      });
      const first = await w.layerNormStats(new Float32Array(17 * 2), 17).catch((e: Error) => e);
      const later = await w.layerNorm(new Float32Array(4), 4).catch((e: Error) => e);
      return {
        first: [first instanceof WorkerError, first.message],
        later: [later instanceof WorkerError, later.message],
      };
    }, site.origin());
    expect(result.first).toEqual([
      true,
      'layerNormStats: the worker stopped before this call finished: Uncaught Error: worker fault',
    ]);
    expect(result.later).toEqual([
      true,
      'layerNorm: the worker stopped earlier (Uncaught Error: worker fault); start a new one with initWorker()',
    ]);
  });

  test('a worker script that does not load rejects initWorker', async ({ page }) => {
    await open(page);
    const result = await page.evaluate(async (origin) => {
      const { initWorker, WorkerError } = window.lnw;
      const e = await initWorker({
        worker: () => new Worker(`${origin}/test/missing-worker.js`, { type: 'module' }),
      }).catch((error: Error) => error);
      return [e instanceof WorkerError, e.message];
    }, site.origin());
    expect(result[0]).toBe(true);
    expect(result[1]).toMatch(/^initWorker: the worker stopped before it was ready: its script failed to load \(/);
  });

  test('dispose() rejects pending calls with DisposedError and refuses later ones', async ({ page }) => {
    await open(page);
    const result = await page.evaluate(async () => {
      const { initWorker, DisposedError } = window.lnw;
      const w = await initWorker();
      const pending = w.layerNorm(new Float32Array(4000 * 768), 768).catch((e: Error) => e);
      w.dispose();
      const e = await pending;
      const later = await w.layerNorm(new Float32Array(4), 4).catch((error: Error) => error);
      return [e instanceof DisposedError, e.message, later instanceof DisposedError, later.message];
    });
    expect(result).toEqual([
      true,
      'layerNorm: the worker was disposed before this call finished',
      true,
      'layerNorm: this worker was disposed; start a new one with initWorker()',
    ]);
  });
});
