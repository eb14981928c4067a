/**
 * The script initWorker() starts in a worker: it runs a runtime of its own and answers the calls
 * it is sent, one at a time and in order. A large row-wise call runs in slices of rows, with
 * progress messages and (when the caller can cancel) a look for an abort message between them.
 */
import { init } from '../core/init.js';
import type { LayerNormRuntime } from '../types.js';
import { isFloat16Array } from '../checks/activations.js';
import { partiallyOverlaps, sharesMemory } from '../checks/validate.js';
import { workerPort, type WorkerPort } from './endpoint.js';
import {
  FEATURE_OPTIONS,
  LAYER_NORM_METHODS,
  ROW_OPTIONS,
  RUNTIME_METHODS,
  SLICE_FLOATS,
  type MethodSpec,
} from './methods.js';
import { decodeValue, encodeError, type CallMessage, type ToWorker } from './wire.js';

type Target = Record<string, unknown>;
type Resident = Target & { d: number; dispose(): void };

let runtime: LayerNormRuntime | null = null;
const residents = new Map<number, Resident>();
let nextHandle = 1;
/** Calls received and not finished, with whether the caller has cancelled them. */
const calls = new Map<number, { aborted: boolean }>();
let queue: Promise<void> = Promise.resolve();
/** Thrown out of a sliced call when its caller has cancelled it. */
const CANCELLED = Symbol('cancelled');

void start();

async function start(): Promise<void> {
  const port = await workerPort();
  port.listen((message) => receive(port, message));
  port.post({ type: 'ready' }, []);
}

function receive(port: WorkerPort, m: ToWorker): void {
  switch (m.type) {
    case 'init':
      queue = queue.then(async () => {
        try {
          const rt = await init(decodeValue(m.options) as Parameters<typeof init>[0]);
          runtime = rt;
          port.post({ type: 'init-done', backend: rt.backend, kernel: rt.kernel }, []);
        } catch (error) {
          port.post({ type: 'init-failed', error: encodeError(error) }, []);
        }
      });
      break;
    case 'call':
      calls.set(m.id, { aborted: false });
      queue = queue.then(() => answer(port, m));
      break;
    case 'abort': {
      const call = calls.get(m.id);
      if (call) call.aborted = true;
      break;
    }
    case 'release':
      queue = queue.then(() => {
        residents.get(m.handle)?.dispose();
        residents.delete(m.handle);
      });
      break;
  }
}

async function answer(port: WorkerPort, m: CallMessage): Promise<void> {
  const state = calls.get(m.id)!;
  try {
    // A call cancelled before it started is dropped: its caller has already been answered.
    if (state.aborted) return;
    const { value, options } = await invoke(port, m, state);
    const fills: Record<string, unknown> = {};
    for (const key of m.fills) fills[key] = options?.[key];
    send(port, { type: 'result', id: m.id, value, fills }, [value, ...Object.values(fills)]);
  } catch (error) {
    if (error !== CANCELLED) port.post({ type: 'error', id: m.id, error: encodeError(error) }, []);
  } finally {
    calls.delete(m.id);
  }
}

/** Posts a reply, moving the buffers of its arrays (they are the worker's own) to the caller. */
function send(port: WorkerPort, message: Parameters<WorkerPort['post']>[0], carried: unknown[]): void {
  const buffers = new Set<ArrayBuffer>();
  const collect = (v: unknown) => {
    if (ArrayBuffer.isView(v)) {
      if (v.buffer instanceof ArrayBuffer) buffers.add(v.buffer);
    } else if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const item of Object.values(v))
        if (ArrayBuffer.isView(item) && item.buffer instanceof ArrayBuffer) buffers.add(item.buffer);
    }
  };
  carried.forEach(collect);
  try {
    port.post(message, [...buffers]);
  } catch {
    // A buffer that cannot move (wasm memory) is copied instead.
    port.post(message, []);
  }
}

async function invoke(
  port: WorkerPort,
  m: CallMessage,
  state: { aborted: boolean },
): Promise<{ value: unknown; options: Record<string, unknown> | undefined }> {
  const spec = (m.handle ? LAYER_NORM_METHODS : RUNTIME_METHODS)[m.method];
  const target = (m.handle ? residents.get(m.handle) : runtime) as Target | null | undefined;
  const method = target?.[m.method];
  if (!spec || typeof method !== 'function') {
    throw new Error(`layernorm-wasm worker: there is no method ${m.method}${m.handle ? ` on object ${m.handle}` : ''}`);
  }
  const args = m.args.map((a) => decodeValue(a));
  const options = spec.options !== undefined ? plainObject(args[spec.options]) : undefined;
  const d = spec.d !== undefined ? args[spec.d] : (target as Resident).d;
  // Slices only serve progress and cancellation: a call that asks for neither runs whole.
  const rows = spec.rows && (m.progress || m.abortable) ? sliceRows(spec, args, d) : null;
  const call = (a: unknown[]) => (method as (...a: unknown[]) => unknown).apply(target, a);
  let value: unknown;
  if (rows === null) {
    value = call(args);
    if (m.progress && spec.rows) {
      const total = (args[0] as Float32Array).length / (d as number);
      port.post({ type: 'progress', id: m.id, done: total, total }, []);
    }
  } else {
    value = await inSlices(spec, call, args, d as number, rows, (done) => {
      if (m.progress) port.post({ type: 'progress', id: m.id, done, total: rows }, []);
      if (!m.abortable || done === rows) return undefined;
      return yieldToEvents().then(() => {
        if (state.aborted) throw CANCELLED;
      });
    });
  }
  if (spec.resident) value = keep(value as Resident, spec.resident);
  return { value, options };
}

function plainObject(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype
    ? (v as Record<string, unknown>)
    : undefined;
}

function keep(object: Resident, fields: readonly string[]): Record<string, unknown> {
  const handle = nextHandle++;
  residents.set(handle, object);
  const info: Record<string, unknown> = { handle };
  for (const f of fields) info[f] = object[f];
  return info;
}

/** An array of activations (float32, or the 16-bit types' Uint16Array / Float16Array). */
const isActivations = (v: unknown): v is Float32Array =>
  ArrayBuffer.isView(v) && (v instanceof Float32Array || v instanceof Uint16Array || isFloat16Array(v));

/**
 * The number of rows when the call is worth cutting and cutting cannot change what it does: a
 * valid shape, every option array's role known, and no array the call writes partly overlapping
 * one it reads. Otherwise null, and the call runs whole, so the runtime judges it (and words any
 * error, and copies an input an output overlaps) exactly as on the main thread.
 */
function sliceRows(spec: MethodSpec, args: unknown[], d: unknown): number | null {
  const x = args[0];
  if (!isActivations(x) || typeof d !== 'number' || !Number.isInteger(d) || d < 1 || x.length % d !== 0) return null;
  const rows = x.length / d;
  if (rows <= Math.max(1, Math.floor(SLICE_FLOATS / d))) return null;
  const same = (a: unknown) => ArrayBuffer.isView(a) && a.constructor === x.constructor;
  const reads: ArrayBufferView[] = [x];
  const writes: ArrayBufferView[] = [];
  const out =
    spec.out === 'options'
      ? plainObject(args[spec.options!])?.out
      : typeof spec.out === 'number'
        ? args[spec.out]
        : undefined;
  if (out !== undefined) {
    if (!same(out) || (out as Float32Array).length !== x.length) return null;
    writes.push(out as Float32Array);
  }
  if (spec.options !== undefined && args[spec.options] !== undefined) {
    const options = plainObject(args[spec.options]);
    if (!options) return null;
    for (const [key, v] of Object.entries(options)) {
      if (key === 'out' || !(ArrayBuffer.isView(v) || (v !== null && typeof v === 'object'))) continue;
      const role = ROW_OPTIONS.get(key);
      // γ, β and the bias are not cut: inSlices copies one that shares memory with a written array.
      if (FEATURE_OPTIONS.has(key)) continue;
      if (!role || !ArrayBuffer.isView(v) || (v as { length?: number }).length !== rows * (role.perRow === 'd' ? d : 1))
        return null;
      (role.reads ? reads : writes).push(v);
    }
  }
  // Slice k writes its rows of the outputs before slice k + 1 reads its rows of the inputs: an
  // output that partly overlaps an input (a residual shifted by part of a row) would be read
  // after it was written, where the whole call reads it first.
  if (writes.some((w) => reads.some((r) => partiallyOverlaps(r, w)))) return null;
  return rows;
}

/** Runs a row-wise call slice by slice; `between(rowsDone)` may return a promise to wait on. */
async function inSlices(
  spec: MethodSpec,
  call: (args: unknown[]) => unknown,
  args: unknown[],
  d: number,
  rows: number,
  between: (done: number) => Promise<void> | undefined,
): Promise<unknown> {
  const x = args[0] as Float32Array;
  const perSlice = Math.max(1, Math.floor(SLICE_FLOATS / d));
  const options = spec.options !== undefined ? plainObject(args[spec.options]) : undefined;
  let out: Float32Array | undefined;
  if (spec.rows === 'array') {
    out = (spec.out === 'options' ? options?.out : args[spec.out!]) as Float32Array | undefined;
    out ??= new (x.constructor as new (n: number) => Float32Array)(x.length);
  }
  const combined: Record<string, ArrayBufferView & { set(a: ArrayLike<number>, o: number): void }> = {};
  const features = options && featuresReadOnce(options, [x, out, ...[...ROW_OPTIONS.keys()].map((k) => options[k])]);
  for (let r0 = 0; r0 < rows; r0 += perSlice) {
    const r1 = Math.min(rows, r0 + perSlice);
    const part = args.slice();
    part[0] = x.subarray(r0 * d, r1 * d);
    if (options) {
      const o: Record<string, unknown> = { ...options, ...features };
      for (const [key, role] of ROW_OPTIONS) {
        const k = role.perRow === 'd' ? d : 1;
        if (o[key]) o[key] = (o[key] as Float32Array).subarray(r0 * k, r1 * k);
      }
      if (out && spec.out === 'options') o.out = out.subarray(r0 * d, r1 * d);
      part[spec.options!] = o;
    }
    if (out && typeof spec.out === 'number') part[spec.out] = out.subarray(r0 * d, r1 * d);
    const result = call(part);
    if (spec.rows === 'per-row') {
      for (const [key, v] of Object.entries(result as Record<string, unknown>)) {
        if (!ArrayBuffer.isView(v)) continue;
        const T = v.constructor as new (n: number) => (typeof combined)[string];
        (combined[key] ??= new T(rows)).set(v as unknown as ArrayLike<number>, r0);
      }
    }
    const wait = between(r1);
    if (wait) await wait;
  }
  return spec.rows === 'array' ? out : combined;
}

/**
 * The per-feature arrays (gain, bias, residual bias) that share memory with the call's row arrays
 * (`arrays`: x, out, the residual, sumOut, mean, rstd), copied as they are before the first slice:
 * the whole call reads them once, before it writes anything, and slice k + 1 must not read what
 * slice k wrote into them. (One that shares memory only with an input is copied too: d floats,
 * and the same values.)
 */
function featuresReadOnce(options: Record<string, unknown>, arrays: unknown[]): Record<string, unknown> {
  const views = arrays.filter((a): a is ArrayBufferView => ArrayBuffer.isView(a));
  const copies: Record<string, unknown> = {};
  for (const key of FEATURE_OPTIONS) {
    const v = options[key];
    if (isActivations(v) && views.some((w) => sharesMemory(v, w))) copies[key] = v.slice();
  }
  return copies;
}

/** Lets queued messages (an abort) run: a message to ourselves, which no timer clamping delays. */
function yieldToEvents(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
