/**
 * What the catalogue's drivers share: the context a case's call receives (tests/kit/catalogue's
 * Context), the error classes its names stand for, how a call must fail (throw, or reject), and the
 * good calls that show a runtime still works after an error.
 */
import { expect } from 'vitest';
import { DisposedError, UnsupportedError, WasmLoadError } from '../../dist/index.js';
import { FetchError, FormatError } from '../../dist/io/index.js';
import { WorkerError } from '../../dist/worker/index.js';
import type { Context, ErrorCase } from '../kit/catalogue/index.mjs';
import { quotes } from '../kit/catalogue/index.mjs';
import { contractViolation } from '../kit/contract.mjs';
import { exactLayerNorm, exactRmsNorm, residualSum } from '../kit/exact.mjs';
import { float16Bits } from '../kit/halves.mjs';

export const CLASSES: Record<ErrorCase['error'], new (...args: never[]) => Error> = {
  TypeError,
  RangeError,
  DisposedError,
  UnsupportedError,
  WasmLoadError,
  FormatError,
  FetchError,
  WorkerError,
};

/** An array a context handed to a call, with a copy of its values then (detached: on purpose). */
export interface HandedOut {
  array: ArrayBufferView;
  values: number[];
  detached: boolean;
}

const x12 = () => new Float32Array(12).map((_, i) => i * 0.5);

/**
 * The arrays of a context: new ones at each call (a worker may move what it is given), each
 * recorded in `handedOut` so that a driver can check what a failed call did with them.
 */
export function arrays(handedOut: HandedOut[] = []) {
  const record = <T extends ArrayBufferView>(array: T): T => {
    handedOut.push({ array, values: Array.from(array as unknown as ArrayLike<number>), detached: false });
    return array;
  };
  return {
    x: () => record(x12()),
    u: () => record(float16Bits(x12())),
    f32: (n: number) => record(new Float32Array(n)),
    f64: (n: number) => record(new Float64Array(n)),
    u16: (n: number) => record(new Uint16Array(n)),
    detached<T extends ArrayBufferView>(a: T): T {
      structuredClone(a.buffer, { transfer: [a.buffer as ArrayBuffer] });
      const entry = handedOut.find((h) => h.array === a);
      if (entry) entry.detached = true;
      return a;
    },
    Float16Array: (globalThis as { Float16Array?: Context['Float16Array'] }).Float16Array,
  };
}

/** A case's own norms on runtime `t`: one of d = 3, and a LayerNorm and an RMSNorm disposed (twice). */
export async function norms(t: Context['t']) {
  const disposedNorm = await t.createLayerNorm(3);
  const disposedRmsNorm = await t.createRmsNorm(3);
  for (const n of [disposedNorm, disposedRmsNorm, disposedNorm, disposedRmsNorm]) n.dispose();
  return { norm3: await t.createLayerNorm(3), disposedNorm, disposedRmsNorm };
}

/**
 * The error of a call that must fail: thrown by a sync call (it must not return), or rejected by
 * an async one (it must return a promise, not throw). Anything else fails the case.
 */
export async function failure(call: () => unknown, async: boolean): Promise<Error> {
  let result: unknown;
  try {
    result = call();
  } catch (e) {
    if (async) throw new Error(`threw synchronously instead of rejecting: ${String(e)}`);
    return e as Error;
  }
  if (!async) throw new Error(`returned instead of throwing: ${String(result)}`);
  if (!(result instanceof Promise)) throw new Error(`returned something other than a Promise: ${String(result)}`);
  try {
    await result;
  } catch (e) {
    return e as Error;
  }
  throw new Error('resolved instead of rejecting');
}

/** The error is the case's: its class exactly, its name, its message as the case quotes it. */
export function expectCaseError(e: Error, c: ErrorCase): void {
  const where = `${c.row}: ${c.name}`;
  expect(e.constructor, where).toBe(CLASSES[c.error]);
  expect(e.name, where).toBe(c.error);
  if (c.message.includes('…')) expect(quotes(c.message, e.message), `${where}: ${e.message}`).toBe(true);
  else expect(e.message, where).toBe(c.message);
}

/** γ of the good calls. */
export const GAMMA3 = Float32Array.of(1, 2, 3);

/** What a working runtime answers for the context's x: LayerNorm with γ, and RMSNorm of x + x. */
export const GOOD = {
  layerNorm: exactLayerNorm(x12(), 3, { gamma: GAMMA3 }),
  rmsNorm: exactRmsNorm(residualSum(x12(), x12(), null, 3), 3),
};

/** A runtime that works: LayerNorm (with GAMMA3) and the fused RMSNorm within the contract of the exact answer. */
export function expectGood(layerNorm: Float32Array, rmsNorm: Float32Array): void {
  expect(contractViolation(layerNorm, GOOD.layerNorm, null, 3)).toBeNull();
  expect(contractViolation(rmsNorm, GOOD.rmsNorm, null, 3)).toBeNull();
}
