/**
 * Sizes past int32 in Chromium: layerNormStages at d = 2^27, whose six stage vectors alone are
 * 3 GiB, is refused with the documented RangeError (errors.md 45a) before anything is allocated
 * or written, on the main thread (x a tensor's view, every value kept) and in a module worker.
 */
import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { serveWorkerPage } from './worker-page';

const site = serveWorkerPage();
const open = (page: Page) => site.open(page);

/* eslint-disable @typescript-eslint/no-explicit-any -- page-side code sees the package untyped */
declare const window: Window & { lnw: { init: any; initWorker: any } };

test('layerNormStages at d = 2^27: a RangeError, nothing written, on the main thread and in a worker', async ({
  page,
}) => {
  await open(page);
  const result = await page.evaluate(async () => {
    const { init, initWorker } = window.lnw;
    const d = 2 ** 27;
    const pattern = (i: number) => (i * 40503 + 7) & 0x7bff;
    const rt = await init();
    const x = rt.allocate(1, d, { dtype: 'float16' });
    const view = x.view as Uint16Array;
    for (let i = 0; i < d; i++) view[i] = pattern(i);
    const heap = rt.heapInUse();
    const outcome = (e: unknown) => (e instanceof RangeError ? e.message : `not a RangeError: ${String(e)}`);
    let main = 'no error';
    try {
      rt.layerNormStages(x.view, d, 0, { dtype: 'float16' });
    } catch (e) {
      main = outcome(e);
    }
    let changed = -1;
    const after = x.view as Uint16Array;
    for (let i = 0; i < d && changed < 0; i++) if (after[i] !== pattern(i)) changed = i;
    const heapKept = rt.heapInUse() === heap;
    const copy = (x.view as Uint16Array).slice();
    x.dispose();
    const w = await initWorker();
    let worker = 'no error';
    try {
      await w.layerNormStages(copy, d, 0, { dtype: 'float16' });
    } catch (e) {
      worker = outcome(e);
    }
    const workerAfter = (await w.layerNorm(new Float32Array([1, 3]), 2))[1];
    w.dispose();
    const mainAfter = rt.layerNorm(new Float32Array([1, 3]), 2)[1];
    return { main, worker, changed, heapKept, next: [Math.round(mainAfter * 1e4), Math.round(workerAfter * 1e4)] };
  });
  const message =
    'layerNormStages: the row and its stages for d = 134217728 needs 3.25 GiB of wasm memory, more than the module can ever hold (2.00 GiB)';
  expect(result).toEqual({ main: message, worker: message, changed: -1, heapKept: true, next: [10000, 10000] });
});
