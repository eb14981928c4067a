/**
 * The calls every runtime answers alike (tests/kit/calls.mjs, which tests/core/calls.test.ts
 * judges on the main thread) through layernorm-wasm/worker (Node, worker_threads): on both
 * backends, moved to the worker and with transfer: false, each returns and fills what the main
 * thread does, bit for bit; and what a call only reads (γ, β, the bias, the residual) stays the
 * caller's, unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { init, type LayerNormRuntime } from '../../dist/index.js';
import { initWorker, type LayerNormWorker } from '../../dist/worker/index.js';
import { CALLS, inputs, type ReadOnlyInput } from '../kit/calls.mjs';
import { bitDifference, recordDifference } from '../helpers/bits.js';

const detached = (a: ArrayBufferView) => a.byteLength === 0 && a.buffer.byteLength === 0;

describe.each(['simd', 'scalar'] as const)('%s backend', (backend) => {
  let rt: LayerNormRuntime;
  let w: LayerNormWorker;
  beforeAll(async () => {
    rt = await init({ backend });
    w = await initWorker({ backend });
  });
  afterAll(() => w.dispose());

  it.each(CALLS.map((c, i) => [c.name, i] as const))('%s: the main thread’s answer, bit for bit', async (_, i) => {
    const c = CALLS[i]!;
    const expected = await c.run(rt, inputs());
    for (const extra of [{}, { transfer: false }]) {
      const readOnly: ReadOnlyInput[] = [];
      const got = await c.run(w, inputs(readOnly), extra);
      const where = `${c.name}, ${JSON.stringify(extra)}`;
      expect(recordDifference(got, expected), where).toBeNull();
      for (const { array, values } of readOnly) {
        expect(detached(array), `${where}: an input the call only reads was moved`).toBe(false);
        expect(bitDifference(array, values), `${where}: an input the call only reads changed`).toBeNull();
      }
    }
  });
});
