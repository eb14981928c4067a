/**
 * The error catalogue through layernorm-wasm/worker (Node, worker_threads): every case of
 * tests/kit/catalogue that a worker can show rejects with exactly its error class, name and
 * message, the same as the main thread throws for the same call; a call that fails takes none of
 * the arrays it was given (each is still the caller's, unchanged: errors.md W14); and the worker
 * answers the next call as the main thread does, bit for bit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { init, type LayerNormRuntime } from '../../dist/index.js';
import { initWorker, type LayerNormWorker } from '../../dist/worker/index.js';
import { casesFor, type Context } from '../kit/catalogue/index.mjs';
import { GAMMA3, arrays, expectCaseError, expectGood, failure, norms, type HandedOut } from './context.js';

let rt: LayerNormRuntime;
let w: LayerNormWorker;
let main: Context;
let worker: Context;
const handedOut: HandedOut[] = [];
beforeAll(async () => {
  rt = await init();
  w = await initWorker();
  main = { t: rt, ...arrays(), ...(await norms(rt)) };
  worker = { t: w, ...arrays(handedOut), ...(await norms(w)) };
});
afterAll(() => {
  main.norm3.dispose();
  w.dispose();
});

const x = () => new Float32Array(12).map((_, i) => i * 0.5);

/** Whether a buffer was transferred away (no view can be made on it then; Node 20 has no .detached). */
function isDetached(buffer: ArrayBuffer): boolean {
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

describe('the error catalogue, through initWorker()', () => {
  it('the norms the cases use: dispose() is idempotent and says so', async () => {
    expect([worker.disposedNorm.disposed, worker.disposedRmsNorm.disposed, worker.norm3.disposed]).toEqual([
      true,
      true,
      false,
    ]);
    expect((await worker.norm3.forward(x())).length).toBe(12);
  });

  for (const e of casesFor('worker')) {
    it.skipIf(e.needs !== null && !(e.needs in globalThis))(`${e.row}: ${e.name}`, async () => {
      handedOut.length = 0;
      const got = await failure(() => e.call(worker), true);
      expectCaseError(got, e);
      if (e.on === 'both') {
        const thrown = await failure(() => e.call(main), e.async);
        expect(got).toBeInstanceOf(thrown.constructor);
        expect({ name: got.name, message: got.message }).toEqual({ name: thrown.name, message: thrown.message });
      }
      for (const { array, values } of handedOut.filter((h) => !h.detached)) {
        expect(isDetached(array.buffer as ArrayBuffer), 'an array given to a failed call was moved').toBe(false);
        expect(Array.from(array as unknown as ArrayLike<number>), 'an array given to a failed call changed').toEqual(
          values,
        );
      }
      const [layerNorm, rmsNorm] = [
        await w.layerNorm(x(), 3, { gamma: GAMMA3 }),
        await w.rmsNorm(x(), 3, { residual: x() }),
      ];
      expect(layerNorm).toEqual(rt.layerNorm(x(), 3, { gamma: GAMMA3 }));
      expect(rmsNorm).toEqual(rt.rmsNorm(x(), 3, { residual: x() }));
      expectGood(layerNorm, rmsNorm);
    });
  }
});
