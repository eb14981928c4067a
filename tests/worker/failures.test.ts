// A worker that crashes, exits, is terminated or never starts: every pending call rejects with a
// clear error, later calls too, nothing hangs. Also init()'s own errors, forwarded from the worker.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { DisposedError, UnsupportedError } from '../../dist/index.js';
import { WorkerError, initWorker } from '../../dist/worker/index.js';
import { rejection } from '../helpers/errors.js';

const fixture = new URL('./fixtures/crashing-worker.mjs', import.meta.url);
const x = new Float32Array(10 * 768).map((_, i) => Math.sin(i));
const big = new Float32Array(4000 * 768).map((_, i) => Math.cos(i));

describe('a worker that stops', () => {
  it('exits during a call: that call and the one queued behind it reject, later calls too', async () => {
    const w = await initWorker({ worker: () => new Worker(fixture) });
    const queued = w.layerNorm(x.slice(), 768);
    const first = rejection(w.layerNormStats(new Float32Array(13), 13));
    const second = rejection(w.layerNormStats(x, 768));
    const before = await queued; // ahead of the fault: answered
    expect(before.length).toBe(x.length);
    for (const [error, fn] of [
      [await first, 'layerNormStats'],
      [await second, 'layerNormStats'],
    ] as const) {
      expect(error).toBeInstanceOf(WorkerError);
      expect(error.message).toBe(`${fn}: the worker stopped before this call finished: it exited with code 7`);
    }
    const later = await rejection(w.layerNorm(x, 768));
    expect(later).toBeInstanceOf(WorkerError);
    expect(later.message).toBe(
      'layerNorm: the worker stopped earlier (it exited with code 7); start a new one with initWorker()',
    );
  });

  it('throws outside any call: pending calls reject with the error it threw', async () => {
    const w = await initWorker({ worker: () => new Worker(fixture) });
    const error = await rejection(w.layerNormStats(new Float32Array(17 * 4), 17));
    expect(error).toBeInstanceOf(WorkerError);
    expect(error.message).toBe(
      'layerNormStats: the worker stopped before this call finished: it threw Error: worker fault',
    );
  });

  it('is terminated from outside while a call runs', async () => {
    let thread: Worker | undefined;
    const w = await initWorker({ worker: () => (thread = new Worker(fixture)) });
    // A call that never finishes on its own (the fixture spins on it), so the termination is sure
    // to come first, however busy the machine.
    const pending = rejection(w.layerNormStats(new Float32Array(19 * 4), 19));
    await thread!.terminate();
    const error = await pending;
    expect(error).toBeInstanceOf(WorkerError);
    expect(error.message).toMatch(
      /^layerNormStats: the worker stopped before this call finished: it exited with code \d+$/,
    );
  });

  it('whose script cannot be loaded: initWorker rejects', async () => {
    const missing = new URL('./fixtures/no-such-worker.mjs', import.meta.url);
    const error = await rejection(initWorker({ worker: () => new Worker(missing) }));
    expect(error).toBeInstanceOf(WorkerError);
    expect(error.message).toContain(
      'initWorker: the worker stopped before it was ready: it threw Error: Cannot find module',
    );
    expect(error.message).toContain('no-such-worker.mjs');
  });
});

describe('dispose()', () => {
  it('rejects pending calls with DisposedError, then every later call', async () => {
    const w = await initWorker();
    const ln = await w.createLayerNorm(768);
    const pending = [rejection(w.layerNorm(big.slice(), 768)), rejection(w.layerNormStats(x, 768))];
    w.dispose();
    w.dispose(); // idempotent
    expect(w.disposed).toBe(true);
    const messages = [];
    for (const error of await Promise.all(pending)) {
      expect(error).toBeInstanceOf(DisposedError);
      messages.push(error.message);
    }
    expect(messages).toEqual([
      'layerNorm: the worker was disposed before this call finished',
      'layerNormStats: the worker was disposed before this call finished',
    ]);
    const later = await rejection(w.heapInUse());
    expect([later.constructor, later.message]).toEqual([
      DisposedError,
      'heapInUse: this worker was disposed; start a new one with initWorker()',
    ]);
    const forward = await rejection(ln.forward(x));
    expect([forward.constructor, forward.message]).toEqual([
      DisposedError,
      'LayerNorm.forward: this worker was disposed; start a new one with initWorker()',
    ]);
  });

  it('is also Symbol.dispose (using)', async () => {
    const w = await initWorker();
    w[Symbol.dispose]();
    expect(w.disposed).toBe(true);
  });

  it('a Node process whose worker was never disposed still exits when its work is done', () => {
    const script = `
      import { initWorker } from ${JSON.stringify(new URL('../../dist/worker/index.js', import.meta.url).href)};
      const w = await initWorker();
      const y = await w.layerNorm(new Float32Array([1, 2, 3, 4]), 4);
      console.log(w.backend, y.length);`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
      cwd: join(import.meta.dirname, '..', '..'),
    });
    expect(out.trim()).toBe('simd 4');
  });
});

describe('initWorker errors', () => {
  it('forwards init() errors from the worker, as init() throws them', async () => {
    const error = await rejection(initWorker({ backend: 'gpu' as never }));
    expect([error.constructor, error.message]).toEqual([
      TypeError,
      `init: backend must be 'auto', 'simd' or 'scalar', got string "gpu"`,
    ]);
  });

  it.each([
    ['options not an object', 5, TypeError, 'initWorker: options must be an object, got number 5'],
    [
      'worker not a function',
      { worker: 'worker.js' },
      TypeError,
      'initWorker: worker must be a function that returns a Worker, got string "worker.js"',
    ],
    [
      'worker() returning something else',
      { worker: () => ({}) },
      TypeError,
      'initWorker: worker() must return a Worker (web) or a worker_threads Worker (Node), got Object',
    ],
    [
      'an init option that cannot cross to a worker',
      { backend: 'auto', hook: () => {} },
      TypeError,
      'initWorker: option hook cannot be sent to the worker (got function)',
    ],
  ])('%s', async (_, options, type, message) => {
    const error = await rejection(initWorker(options as never));
    expect([error.constructor, error.message]).toEqual([type, message]);
  });

  it('exports the package error classes it rejects with', () => {
    expect(new WorkerError('x').name).toBe('WorkerError');
    expect(UnsupportedError).toBeTypeOf('function');
  });
});
