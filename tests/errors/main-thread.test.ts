/**
 * The error catalogue on the main thread: every case of tests/kit/catalogue that a call on the
 * main thread can show (web/docs/errors.md's rows marked C) throws or rejects with exactly its
 * error class, name and message; afterwards the heap is exactly where it was and the runtime
 * still answers within the contract.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as pkg from '../../dist/index.js';
import * as inline from '../../dist/inline.js';
import * as io from '../../dist/io/index.js';
import { features } from '../../dist/loader.js';
import { casesFor, type Context } from '../kit/catalogue/index.mjs';
import { GAMMA3, arrays, expectCaseError, expectGood, failure, norms } from './context.js';

let rt: pkg.LayerNormRuntime;
let c: Context;
beforeAll(async () => {
  rt = await pkg.init();
  const scalar = await pkg.init({ backend: 'scalar' });
  const allocate = (rows: number, d: number, options?: object) => rt.allocate(rows, d, options as never);
  const disposed = allocate(1, 3);
  disposed.dispose();
  c = {
    t: rt,
    ...arrays(),
    ...(await norms(rt)),
    pkg,
    inline,
    io,
    features,
    tensors: {
      a43: allocate(4, 3),
      b23: allocate(2, 3),
      c44: allocate(4, 4),
      t13: allocate(1, 3),
      f16: allocate(1, 3, { dtype: 'float16' }),
      bf16: allocate(1, 3, { dtype: 'bfloat16' }),
      disposed,
      foreign: scalar.allocate(4, 3),
    },
  };
});
afterAll(() => {
  for (const t of Object.values(c.tensors!)) t.dispose();
  c.norm3.dispose();
});

const x = () => new Float32Array(12).map((_, i) => i * 0.5);

describe('the error catalogue, on the main thread', () => {
  it('the norms the cases use: dispose() is idempotent and says so', () => {
    expect([c.disposedNorm.disposed, c.disposedRmsNorm.disposed, c.norm3.disposed]).toEqual([true, true, false]);
    expect(c.norm3.forward(x()).length).toBe(12);
  });

  for (const e of casesFor('main')) {
    // Cases that need what this engine lacks (Float16Array before Node 24) are reported as skipped.
    it.skipIf(e.needs !== null && !(e.needs in globalThis))(`${e.row}: ${e.name}`, async () => {
      const heap = rt.heapInUse();
      expectCaseError(await failure(() => e.call(c), e.async), e);
      expect(rt.heapInUse(), 'the heap after the error').toBe(heap);
      expectGood(rt.layerNorm(x(), 3, { gamma: GAMMA3 }), rt.rmsNorm(x(), 3, { residual: x() }));
    });
  }
});
