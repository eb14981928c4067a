/**
 * Where each array of a worker call goes: moved to the worker and back, copied, or shared. Also
 * the worker's own call options (signal, onProgress, transfer), checked.
 */
import { FEATURE_OPTIONS, ROW_OPTIONS, WORKER_OPTIONS, type MethodSpec } from './methods.js';
import { encodeValue } from './wire.js';
import { RULES } from '../checks/rules.js';

export const isShared = (a: ArrayBufferView): boolean =>
  typeof SharedArrayBuffer === 'function' && a.buffer instanceof SharedArrayBuffer;
const isWhole = (a: ArrayBufferView) => a.byteOffset === 0 && a.byteLength === a.buffer.byteLength;

export interface WorkerOptions {
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  transfer: boolean;
}

/** The worker's own options, checked, from the call's options argument. */
export function workerOptions(fn: string, spec: MethodSpec, args: unknown[]): WorkerOptions {
  const raw = spec.options !== undefined ? args[spec.options] : undefined;
  if (raw === null || typeof raw !== 'object') return { transfer: true };
  const o = raw as Record<string, unknown>;
  const { signal, onProgress, transfer } = o;
  if (
    signal !== undefined &&
    (signal === null ||
      typeof signal !== 'object' ||
      typeof (signal as AbortSignal).aborted !== 'boolean' ||
      typeof (signal as AbortSignal).addEventListener !== 'function')
  ) {
    throw new TypeError(RULES.mustBe(fn, 'signal', 'an AbortSignal', signal));
  }
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new TypeError(RULES.mustBe(fn, 'onProgress', 'a function', onProgress));
  }
  if (transfer !== undefined && typeof transfer !== 'boolean') {
    throw new TypeError(RULES.mustBe(fn, 'transfer', 'true or false', transfer));
  }
  return {
    signal: signal as AbortSignal | undefined,
    onProgress: onProgress as WorkerOptions['onProgress'],
    transfer: transfer ?? true,
  };
}

export interface Placement {
  args: unknown[];
  transfer: ArrayBuffer[];
  /** transfer[0] is the caller's memory (not a private copy). */
  movesCallerMemory: boolean;
  fills: Map<string, ArrayBufferView>;
  callerOut?: Float32Array;
}

/**
 * The arguments as posted. The memory that receives a rows × d result (`out`, else `x`) moves to
 * the worker and back unless `transfer` is false; arrays a call only reads are copied; arrays on a
 * SharedArrayBuffer are shared as they are; other option arrays are copied and sent back filled.
 */
export function place(spec: MethodSpec, args: unknown[], transfer: boolean): Placement {
  const moved: ArrayBuffer[] = [];
  const own: ArrayBuffer[] = [];
  const fills = new Map<string, ArrayBufferView>();
  /**
   * A private copy, which moves to the worker: one copy in all. (Letting postMessage clone a
   * multi-megabyte buffer instead measured several times slower in Chromium.)
   */
  const copy = <T extends ArrayBufferView>(a: T): T => {
    const c = (a as unknown as { slice(): T }).slice();
    own.push(c.buffer as ArrayBuffer);
    return c;
  };
  /** A read-only input: shared, or copied (by cloning, or as a slice when it views part of a buffer). */
  const read = (a: ArrayBufferView) => (isShared(a) ? a : isWhole(a) ? a : copy(a));

  const wire = args.slice(0, spec.arity).map((a) => encodeValue(a));
  const optionsAt = spec.options !== undefined && spec.options < spec.arity ? spec.options : -1;
  let options: Record<string, unknown> | undefined;
  if (
    optionsAt >= 0 &&
    wire[optionsAt] !== null &&
    typeof wire[optionsAt] === 'object' &&
    !Array.isArray(wire[optionsAt])
  ) {
    options = wire[optionsAt] as Record<string, unknown>;
    for (const k of WORKER_OPTIONS) delete options[k];
  }
  const callerOptions = optionsAt >= 0 ? (args[optionsAt] as Record<string, unknown> | undefined) : undefined;

  let callerOut: Float32Array | undefined;
  const handled = new Set<unknown>();
  if (spec.rows === 'array') {
    const x = args[0] as Float32Array;
    const out = (spec.out === 'options' ? callerOptions?.out : args[spec.out!]) as Float32Array | undefined;
    // Option arrays the call writes besides its result (sumOut, mean, rstd) come back as copies
    // filled in the caller's thread: the memory they are in must not move (sumOut may be x).
    const written =
      callerOptions !== null && typeof callerOptions === 'object'
        ? Object.entries(callerOptions).filter(
            ([k, v]) =>
              k !== 'out' &&
              ArrayBuffer.isView(v) &&
              !isShared(v) &&
              !FEATURE_OPTIONS.has(k) &&
              !ROW_OPTIONS.get(k)?.reads,
          )
        : [];
    const movable = (a: ArrayBufferView) =>
      transfer && !written.some(([, w]) => (w as ArrayBufferView).buffer === a.buffer);
    let wx: Float32Array;
    let wout: Float32Array | undefined;
    if (out) {
      const moves = !isShared(out) && movable(out);
      if (isShared(out)) {
        wout = out;
        callerOut = out;
      } else if (moves) {
        wout = out;
        moved.push(out.buffer as ArrayBuffer);
      } else callerOut = out;
      wx = isShared(x) || (moves && x.buffer === out.buffer) ? x : copy(x);
      if (!moves && !isShared(out)) wout = isShared(x) ? undefined : wx;
    } else if (isShared(x)) {
      wx = x;
    } else if (movable(x)) {
      wx = wout = x;
      moved.push(x.buffer as ArrayBuffer);
    } else {
      wx = wout = copy(x);
    }
    wire[0] = wx;
    if (spec.out === 'options') {
      if (options) {
        if (wout) options.out = wout;
        else delete options.out;
      } else if (wout) {
        wire[optionsAt] = { out: wout };
      }
    } else wire[spec.out!] = wout;
    handled.add(wire[0]).add(wout);
  }
  for (let i = 0; i < wire.length; i++) {
    if (ArrayBuffer.isView(wire[i]) && !handled.has(wire[i])) wire[i] = read(wire[i] as ArrayBufferView);
  }
  if (options) {
    for (const [key, v] of Object.entries(options)) {
      if (!ArrayBuffer.isView(v) || handled.has(v)) continue;
      const role = ROW_OPTIONS.get(key);
      if (FEATURE_OPTIONS.has(key) || role?.reads || isShared(v)) {
        options[key] = read(v);
      } else {
        // An array the call may write into: the caller gets its contents back.
        options[key] = copy(v);
        fills.set(key, callerOptions![key] as ArrayBufferView);
      }
    }
  }
  return { args: wire, transfer: [...moved, ...own], movesCallerMemory: moved.length > 0, fills, callerOut };
}
