// Errors thrown in the worker arrive as the errors the main-thread runtime throws: the same class
// (instanceof works with the package's own classes), name and message, for every bad input in
// the catalogue (web/docs/errors.md); and the worker keeps working after each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DisposedError, init, type LayerNorm, type LayerNormRuntime } from '../../dist/index.js';
import { initWorker, type LayerNormWorker, type WorkerLayerNorm } from '../../dist/worker/index.js';
import { rejection, thrown } from '../helpers/errors.js';

let rt: LayerNormRuntime;
let w: LayerNormWorker;
let ln: LayerNorm;
let wln: WorkerLayerNorm;
beforeAll(async () => {
  rt = await init();
  w = await initWorker();
  ln = rt.createLayerNorm(3);
  wln = await w.createLayerNorm(3);
});
afterAll(() => w.dispose());

const x = () => new Float32Array(12).map((_, i) => i * 0.5);
function detached(n: number): Float32Array {
  const a = new Float32Array(n);
  structuredClone(a.buffer, { transfer: [a.buffer] });
  return a;
}
class Activations {
  data = [1, 2, 3];
}

/** The same call on either side: `t` is the main-thread runtime or the worker, `l` a LayerNorm of d = 3. */
type Call = (
  t: Record<string, (...a: unknown[]) => unknown>,
  l: Record<string, (...a: unknown[]) => unknown>,
) => unknown;
const calls: [string, Call][] = [
  ['x as a plain array', (t) => t.layerNorm([1, 2, 3], 3)],
  ['x as a Float64Array', (t) => t.layerNorm(new Float64Array(3), 3)],
  ['x as null', (t) => t.layerNorm(null, 3)],
  ['x as a Proxy of a Float32Array', (t) => t.layerNorm(new Proxy(x(), {}), 3)],
  ['x from Object.create(Float32Array.prototype)', (t) => t.layerNorm(Object.create(Float32Array.prototype), 3)],
  ['x as a class instance', (t) => t.layerNorm(new Activations(), 3)],
  ['x as a function', (t) => t.layerNorm(() => 1, 3)],
  ['x as a symbol', (t) => t.layerNorm(Symbol('x'), 3)],
  ['x on a detached buffer', (t) => t.layerNorm(detached(12), 3)],
  ['x.length not a multiple of d', (t) => t.layerNorm(new Float32Array(10), 3)],
  ['d = 0', (t) => t.layerNorm(x(), 0)],
  ['d = 2.5', (t) => t.layerNorm(x(), 2.5)],
  ['d = NaN', (t) => t.layerNorm(x(), NaN)],
  ['d as a string', (t) => t.layerNorm(x(), '3')],
  ['d as a bigint', (t) => t.layerNorm(x(), 3n)],
  ['d wider than wasm memory', (t) => t.layerNorm(x(), 2 ** 29)],
  ['gamma of the wrong length', (t) => t.layerNorm(x(), 3, { gamma: new Float32Array(4) })],
  ['gamma as a plain array', (t) => t.layerNorm(x(), 3, { gamma: [1, 1, 1] })],
  ['gamma as a Proxy of an array', (t) => t.layerNorm(x(), 3, { gamma: new Proxy([1, 1, 1], {}) })],
  ['gamma on a detached buffer', (t) => t.layerNorm(x(), 3, { gamma: detached(3) })],
  ['beta as a Float64Array', (t) => t.layerNorm(x(), 3, { beta: new Float64Array(3) })],
  ['eps negative', (t) => t.layerNorm(x(), 3, { eps: -1e-5 })],
  ['eps NaN', (t) => t.layerNorm(x(), 3, { eps: NaN })],
  ['eps as a string', (t) => t.layerNorm(x(), 3, { eps: '1e-5' })],
  ['out of the wrong length', (t) => t.layerNorm(x(), 3, { out: new Float32Array(11) })],
  ['out as a Float64Array', (t) => t.layerNorm(x(), 3, { out: new Float64Array(12) })],
  ['out on a detached buffer', (t) => t.layerNorm(x(), 3, { out: detached(12) })],
  ['options as a number', (t) => t.layerNorm(x(), 3, 5)],
  ['options as a Proxy with a bad gamma', (t) => t.layerNorm(x(), 3, new Proxy({ gamma: new Float64Array(3) }, {}))],
  ['layerNormStats with x.length not a multiple of d', (t) => t.layerNormStats(x(), 5)],
  ['layerNormStats with a negative eps', (t) => t.layerNormStats(x(), 3, { eps: -1 })],
  ['layerNormStages with row = 4 of 4', (t) => t.layerNormStages(x(), 3, 4)],
  ['layerNormStages with row = 1.5', (t) => t.layerNormStages(x(), 3, 1.5)],
  ['layerNormStages with row as a string', (t) => t.layerNormStages(x(), 3, '0')],
  ['createLayerNorm with a negative eps', (t) => t.createLayerNorm(3, { eps: -1 })],
  ['createLayerNorm with gamma of length 5', (t) => t.createLayerNorm(3, { gamma: new Float32Array(5) })],
  ['createLayerNorm with d = 0', (t) => t.createLayerNorm(0)],
  ['forward with a Float64Array', (_, l) => l.forward(new Float64Array(12))],
  ['forward with x.length not a multiple of d', (_, l) => l.forward(new Float32Array(4))],
  ['forward with out of the wrong length', (_, l) => l.forward(x(), new Float32Array(3))],
  ['forward with a detached x', (_, l) => l.forward(detached(12))],
];

describe('every bad call rejects as the main thread throws', () => {
  it.each(calls)('%s', async (_, call) => {
    const expected = thrown(() => call(rt as never, ln as never));
    const got = await rejection(call(w as never, wln as never) as Promise<unknown>);
    expect(got).toBeInstanceOf(expected.constructor);
    expect({ name: got.name, message: got.message }).toEqual({ name: expected.name, message: expected.message });
    expect(await w.layerNorm(x(), 3)).toEqual(rt.layerNorm(x(), 3));
  });
});

describe('a call that is going to fail does not take its input', () => {
  it.each([
    ['d = 0', (a: Float32Array) => w.layerNorm(a, 0)],
    ['gamma of the wrong length', (a: Float32Array) => w.layerNorm(a, 3, { gamma: new Float32Array(4) })],
    ['out of the wrong length', (a: Float32Array) => w.layerNorm(new Float32Array(12), 3, { out: a.subarray(1) })],
    ['eps negative', (a: Float32Array) => w.layerNorm(a, 3, { eps: -1 })],
    ['forward with x.length not a multiple of d', (a: Float32Array) => wln.forward(a.subarray(0, 10))],
  ])('%s', async (_, call) => {
    const mine = x();
    await expect(call(mine)).rejects.toBeInstanceOf(RangeError);
    expect(mine).toEqual(x());
  });
});

describe('worker-only errors', () => {
  it.each([
    ['signal not an AbortSignal', { signal: 5 }, 'layerNorm: signal must be an AbortSignal, got number 5'],
    ['onProgress not a function', { onProgress: 'log' }, 'layerNorm: onProgress must be a function, got string "log"'],
    ['transfer not a boolean', { transfer: 'yes' }, 'layerNorm: transfer must be true or false, got string "yes"'],
  ])('%s', async (_, options, message) => {
    const mine = x();
    const error = await rejection(w.layerNorm(mine, 3, options as never));
    expect([error.constructor, error.message]).toEqual([TypeError, message]);
    expect(mine).toEqual(x());
  });

  it('a disposed worker LayerNorm rejects with DisposedError, as on the main thread', async () => {
    const mainLn = rt.createLayerNorm(3);
    const workerLn = await w.createLayerNorm(3);
    mainLn.dispose();
    workerLn.dispose();
    workerLn.dispose(); // idempotent
    const expected = thrown(() => mainLn.forward(x()));
    const got = await rejection(workerLn.forward(x()));
    expect(got).toBeInstanceOf(DisposedError);
    expect(got.message).toBe(expected.message);
    expect(workerLn.disposed).toBe(true);
  });
});
