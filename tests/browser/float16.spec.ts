/**
 * Float16Array activations in Chromium, which has Float16Array (Node 20, where the Vitest suites
 * run, has none: their Float16Array tests are skipped there). From the plain ESM page of
 * worker.spec.ts: a Float16Array in, a Float16Array out, with the same bits as its Uint16Array
 * with dtype 'float16', on the main thread and through the worker; and the dtype that contradicts it
 * refused with the catalogue's message (errors.md R2).
 */
import { test, expect } from './fixtures';
import { serveWorkerPage } from './worker-page';

const site = serveWorkerPage();

/* eslint-disable @typescript-eslint/no-explicit-any -- page-side code sees the package untyped */
declare const window: Window & { lnw: { init: any; initWorker: any } };

test('a Float16Array gives a Float16Array of the Uint16Array path’s bits, on the main thread and in the worker', async ({
  page,
}) => {
  await site.open(page);
  const result = await page.evaluate(async () => {
    const F16 = (globalThis as any).Float16Array;
    const { init, initWorker } = window.lnw;
    const d = 768;
    const values = Array.from({ length: 8 * d }, (_, i) => Math.sin(i * 0.37) * 3 + (i % d === 447 ? 900 : 0));
    const x = new F16(values);
    const r = new F16(values.map((v) => v * 0.5 - 1));
    const gamma = new Float32Array(d).map((_, i) => 1 + 0.5 * Math.cos(i));
    const bits = (a: ArrayBufferView) => Array.from(new Uint16Array(a.buffer, a.byteOffset, a.byteLength / 2));
    const same = (a: ArrayBufferView, b: ArrayBufferView) => JSON.stringify(bits(a)) === JSON.stringify(bits(b));
    const out: Record<string, unknown> = {};
    const rt = await init();
    const y = rt.layerNorm(x, d, { gamma });
    out.kind = y.constructor.name;
    out.mainSame = same(y, rt.layerNorm(new Uint16Array(x.buffer), d, { gamma, dtype: 'float16' }));
    const sumOut = new F16(x.length);
    const fused = rt.rmsNorm(x, d, { gamma, residual: r, sumOut });
    const sumBits = new Uint16Array(x.length);
    const fusedBits = rt.rmsNorm(new Uint16Array(x.buffer), d, {
      gamma,
      residual: new Uint16Array(r.buffer),
      sumOut: sumBits,
      dtype: 'float16',
    });
    out.fusedSame = fused.constructor === F16 && same(fused, fusedBits) && same(sumOut, sumBits);
    try {
      rt.layerNorm(x, d, { dtype: 'bfloat16' });
      out.mismatch = 'no error';
    } catch (e) {
      out.mismatch = `${(e as Error).constructor.name}: ${(e as Error).message}`;
    }
    // A float16 tensor takes a Float16Array's bits as they are; a bfloat16 tensor refuses it.
    const t16 = rt.allocate(8, d, { dtype: 'float16' });
    t16.set(x);
    out.tensorSame = same(t16.view, x);
    const tb = rt.allocate(1, 2, { dtype: 'bfloat16' });
    try {
      tb.set(new F16(2));
      out.tensorMismatch = 'no error';
    } catch (e) {
      out.tensorMismatch = `${(e as Error).constructor.name}: ${(e as Error).message}`;
    }
    t16.dispose();
    tb.dispose();
    const w = await initWorker();
    try {
      const wy = await w.layerNorm(x.slice(), d, { gamma });
      out.workerKind = wy.constructor.name;
      out.workerSame = same(wy, y);
    } finally {
      w.dispose();
    }
    return out;
  });
  expect(result).toEqual({
    kind: 'Float16Array',
    mainSame: true,
    fusedSame: true,
    mismatch: "TypeError: layerNorm: x is a Float16Array, whose values are float16, got dtype 'bfloat16'",
    tensorSame: true,
    tensorMismatch:
      "TypeError: WasmTensor.set: a Float16Array cannot fill a bfloat16 tensor; convert it with float32ToHalfBits(Float32Array.from(values), 'bfloat16')",
    workerKind: 'Float16Array',
    workerSame: true,
  });
});
