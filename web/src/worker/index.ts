/**
 * layernorm-wasm/worker: the runtime in a worker of its own, so large inputs never block the
 * caller's thread. (Long for a façade file: the caller's side of the protocol, placement of
 * arrays, calls and replies, and the resident-object proxies are one state machine.)
 *
 *   const w = await initWorker();
 *   const y = await w.layerNorm(x, 768, { gamma, beta });   // x moves to the worker and back as y
 */
import { errorText } from '../checks/error-text.js';
import { DisposedError, UnsupportedError, describe } from '../errors.js';
import { NORMS } from '../norms.js';
import { checkOptions } from '../checks/validate.js';
import { connect, nodeThreads, type Channel, type NodeWorkerLike, type WebWorkerLike } from './endpoint.js';
import { WorkerError } from './errors.js';
import { LAYER_NORM_METHODS, RUNTIME_METHODS, type MethodSpec, type ResidentShape } from './methods.js';
import { isShared, place, workerOptions, type Placement } from './placement.js';
import type { LayerNormWorker, WorkerInitOptions } from './types.js';
import { decodeError, encodeValue, type CallMessage, type FromWorker } from './wire.js';
import { RULES } from '../checks/rules.js';

export type * from './types.js';
export { WorkerError } from './errors.js';
export { DisposedError, UnsupportedError, WasmLoadError } from '../errors.js';

/**
 * Starts a worker, loads the wasm module in it and resolves to its runtime. `options` are init()'s
 * (forwarded to the worker), plus `worker` to start the worker yourself. Each call starts a new
 * worker; dispose() stops it.
 */
export async function initWorker(options?: WorkerInitOptions): Promise<LayerNormWorker> {
  const o = checkOptions('initWorker', options);
  const { worker: factory, ...initOptions } = o;
  if (factory !== undefined && typeof factory !== 'function') {
    throw new TypeError(RULES.mustBe('initWorker', 'worker', 'a function that returns a Worker', factory));
  }
  const forwarded = await sendableInitOptions(initOptions);
  const worker = factory ? (factory as () => unknown)() : await spawn();
  if (!isWorker(worker)) {
    throw new TypeError(
      `initWorker: worker() must return a Worker (web) or a worker_threads Worker (Node), got ${describe(worker)}`,
    );
  }
  const runtime = new WorkerRuntime(worker);
  return runtime.start(forwarded);
}

async function spawn(): Promise<WebWorkerLike | NodeWorkerLike> {
  if (typeof Worker === 'function') {
    const script = scriptUrl();
    if (isCrossOrigin(script)) return crossOriginWorker(script);
    // Written out in full so that bundlers (Vite, webpack) find the script and emit it.
    return new Worker(new URL('./script.js', import.meta.url), { type: 'module', name: 'layernorm-wasm' });
  }
  const threads = await nodeThreads();
  if (threads?.Worker) {
    // The worker inherits Node's flags, but --input-type (of `node -e`) makes it refuse to start.
    const flags = (globalThis as { process?: { execArgv?: string[] } }).process?.execArgv ?? [];
    const execArgv = flags.filter((a) => !a.startsWith('--input-type'));
    return new threads.Worker(scriptUrl(), { execArgv, name: 'layernorm-wasm' });
  }
  throw new UnsupportedError(
    'initWorker: this environment has no Worker (neither the web API nor node:worker_threads)',
  );
}

/**
 * The worker script beside this file. Not `new URL('./script.js', import.meta.url)` again:
 * bundlers would copy the file as a raw asset (or warn) for branches only Node and CDNs take.
 */
function scriptUrl(): URL {
  return new URL(import.meta.url.replace(/[^/?#]*([?#].*)?$/, 'script.js'));
}

/** Loaded from another origin (a CDN), where a page may not start a worker directly. */
function isCrossOrigin(url: URL): boolean {
  const page = (globalThis as { location?: { origin?: string } }).location?.origin;
  return /^https?:$/.test(url.protocol) && page !== undefined && url.origin !== page;
}

/** A same-origin (blob:) module worker that imports the script from its origin, which must allow CORS. */
function crossOriginWorker(script: URL): WebWorkerLike {
  const source = `import ${JSON.stringify(script.href)};`;
  const blob = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  try {
    return new Worker(blob, { type: 'module', name: 'layernorm-wasm' });
  } finally {
    // The constructor has already resolved the blob: URL.
    URL.revokeObjectURL(blob);
  }
}

function isWorker(w: unknown): w is WebWorkerLike | NodeWorkerLike {
  const o = w as Record<string, unknown> | null;
  return (
    o !== null &&
    typeof o === 'object' &&
    typeof o.postMessage === 'function' &&
    typeof o.terminate === 'function' &&
    (typeof o.addEventListener === 'function' || typeof o.on === 'function')
  );
}

/**
 * init() options as the worker can receive them: a Response as its bytes, a URL as its href, and
 * URL strings made absolute against this page, since inside the worker a relative URL would be
 * resolved against the worker script's location instead.
 */
async function sendableInitOptions(options: Record<string, unknown>, path = ''): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(options)) {
    const where = `${path}${key}`;
    if (typeof Response === 'function' && v instanceof Response) out[key] = await v.arrayBuffer();
    else if (v instanceof URL) out[key] = v.href;
    else if (typeof v === 'string' && URL_OPTIONS.test(where)) out[key] = absolute(v);
    else if (typeof v === 'function' || typeof v === 'symbol') {
      throw new TypeError(`initWorker: option ${where} cannot be sent to the worker (got ${describe(v)})`);
    } else if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      out[key] = await sendableInitOptions(v as Record<string, unknown>, `${where}.`);
    } else out[key] = encodeValue(v);
  }
  return out;
}

/** init() options that hold URLs: `wasm` (a base URL) and `wasm.simd` / `wasm.scalar`. */
const URL_OPTIONS = /^wasm(\.(simd|scalar))?$/;

/** A URL as fetch() on this page would resolve it; unchanged when there is no base (init() then says why). */
function absolute(url: string): string {
  const g = globalThis as { document?: { baseURI?: string }; location?: { href?: string } };
  try {
    return new URL(url, g.document?.baseURI ?? g.location?.href).href;
  } catch {
    return url;
  }
}

// ---- the runtime proxy

type Call = {
  fn: string;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  onProgress?: (done: number, total: number) => void;
  /** The caller's option arrays that the worker sends back filled. */
  fills: Map<string, ArrayBufferView>;
  /** Resolve to the caller's own `out` (filled here unless shared) instead of the array that came back. */
  callerOut?: Float32Array;
  /** The call creates a resident object: wrap the answer. */
  resident?: boolean;
  cleanup(): void;
};

function isAttached(buffer: ArrayBufferLike): boolean {
  try {
    new Uint8Array(buffer, 0, 0);
    return true;
  } catch {
    return false;
  }
}

class WorkerRuntime {
  backend = '' as LayerNormWorker['backend'];
  kernel = '';
  readonly #channel: Channel;
  readonly #calls = new Map<number, Call>();
  #nextId = 1;
  #disposed = false;
  /** Why the worker stopped answering, once it has. */
  #failure: string | null = null;
  #starting: { resolve(w: LayerNormWorker): void; reject(e: unknown): void } | null = null;
  #initOptions: Record<string, unknown> = {};
  readonly #finalizer = new FinalizationRegistry<number>((handle) => this.release(handle));

  constructor(worker: WebWorkerLike | NodeWorkerLike) {
    this.#channel = connect(worker, {
      message: (m) => this.#receive(m),
      failure: (reason) => this.#fail(reason),
    });
  }

  start(initOptions: Record<string, unknown>): Promise<LayerNormWorker> {
    this.#initOptions = initOptions;
    this.#channel.busy(true);
    return new Promise((resolve, reject) => {
      this.#starting = { resolve, reject };
    });
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#channel.terminate();
    this.#channel.busy(false);
    for (const [id, call] of this.#calls) {
      this.#settle(id)?.reject(new DisposedError(`${call.fn}: the worker was disposed before this call finished`));
    }
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  /** Why a new call cannot be made, or null. */
  #refusal(fn: string): Error | null {
    if (this.#disposed) return new DisposedError(`${fn}: this worker was disposed; start a new one with initWorker()`);
    if (this.#failure !== null) {
      return new WorkerError(`${fn}: the worker stopped earlier (${this.#failure}); start a new one with initWorker()`);
    }
    return null;
  }

  track(object: object, handle: number, token: object): void {
    this.#finalizer.register(object, handle, token);
  }

  release(handle: number, token?: object): void {
    if (token) this.#finalizer.unregister(token);
    if (this.#disposed || this.#failure !== null) return;
    this.#channel.post({ type: 'release', handle }, []);
  }

  /** Calls `method` of the runtime (handle 0) or of a resident object in the worker. */
  call(
    handle: number,
    method: string,
    spec: MethodSpec,
    fn: string,
    args: unknown[],
    resident?: ResidentShape,
  ): Promise<unknown> {
    const refusal = this.#refusal(fn);
    if (refusal) return Promise.reject(refusal);
    let worker: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void; transfer: boolean };
    let message: Omit<CallMessage, 'id'>;
    let plan: Placement;
    try {
      worker = workerOptions(fn, spec, args);
      if (worker.signal?.aborted) return Promise.reject(worker.signal.reason);
      spec.precheck?.(args, resident);
      plan = place(spec, args, worker.transfer);
      message = {
        type: 'call',
        handle,
        method,
        args: plan.args,
        progress: worker.onProgress !== undefined,
        abortable: worker.signal !== undefined,
        fills: [...plan.fills.keys()],
      };
    } catch (error) {
      return Promise.reject(error);
    }
    const id = this.#nextId++;
    try {
      this.#channel.post({ ...message, id }, plan.transfer);
    } catch (error) {
      // The caller's array could not move (wasm memory cannot be detached): nothing was sent, so
      // send it again with every array copied.
      const moved = plan.transfer[0];
      if (!plan.movesCallerMemory || !moved || !isAttached(moved)) {
        return Promise.reject(
          new TypeError(`${fn}: the arguments could not be sent to the worker: ${errorText(error)}`),
        );
      }
      plan = place(spec, args, false);
      try {
        this.#channel.post({ ...message, id, args: plan.args, fills: [...plan.fills.keys()] }, plan.transfer);
      } catch (again) {
        return Promise.reject(
          new TypeError(`${fn}: the arguments could not be sent to the worker: ${errorText(again)}`),
        );
      }
    }
    return new Promise((resolve, reject) => {
      const signal = worker.signal;
      const onAbort = () => {
        if (!this.#settle(id)) return;
        if (!this.#disposed && this.#failure === null) this.#channel.post({ type: 'abort', id }, []);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#calls.set(id, {
        fn,
        resolve,
        reject,
        onProgress: worker.onProgress,
        fills: plan.fills,
        callerOut: plan.callerOut,
        resident: spec.resident !== undefined,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      });
      this.#channel.busy(true);
    });
  }

  /** Forgets a pending call and returns it (undefined when it was already settled). */
  #settle(id: number): Call | undefined {
    const call = this.#calls.get(id);
    if (!call) return undefined;
    this.#calls.delete(id);
    call.cleanup();
    if (this.#calls.size === 0) this.#channel.busy(false);
    return call;
  }

  #receive(m: FromWorker): void {
    switch (m.type) {
      case 'ready':
        this.#channel.post({ type: 'init', options: this.#initOptions }, []);
        return;
      case 'init-done': {
        this.backend = m.backend as LayerNormWorker['backend'];
        this.kernel = m.kernel;
        this.#channel.busy(false);
        this.#starting?.resolve(this as unknown as LayerNormWorker);
        this.#starting = null;
        return;
      }
      case 'init-failed':
        this.#starting?.reject(decodeError(m.error));
        this.#starting = null;
        this.dispose();
        return;
      case 'progress': {
        const call = this.#calls.get(m.id);
        if (!call?.onProgress) return;
        try {
          call.onProgress(m.done, m.total);
        } catch (error) {
          // A throwing progress callback ends its call, as it would a synchronous loop.
          this.#settle(m.id);
          this.#channel.post({ type: 'abort', id: m.id }, []);
          call.reject(error);
        }
        return;
      }
      case 'error':
        this.#settle(m.id)?.reject(decodeError(m.error));
        return;
      case 'result': {
        const call = this.#settle(m.id);
        if (!call) return;
        for (const [key, mine] of call.fills) {
          const back = m.fills[key];
          if (ArrayBuffer.isView(back)) (mine as unknown as Float32Array).set(back as unknown as Float32Array);
        }
        if (call.resident) call.resolve(new ResidentProxy(this, m.value as ResidentInfo));
        else if (call.callerOut) {
          if (!isShared(call.callerOut)) call.callerOut.set(m.value as Float32Array);
          call.resolve(call.callerOut);
        } else call.resolve(m.value);
        return;
      }
    }
  }

  #fail(reason: string): void {
    if (this.#disposed || this.#failure !== null) return;
    this.#failure = reason;
    this.#channel.terminate();
    this.#channel.busy(false);
    this.#starting?.reject(new WorkerError(`initWorker: the worker stopped before it was ready: ${reason}`));
    this.#starting = null;
    for (const [id, call] of this.#calls) {
      this.#settle(id)?.reject(new WorkerError(`${call.fn}: the worker stopped before this call finished: ${reason}`));
    }
  }
}

/** The runtime's methods, each a call into the worker. */
for (const [name, spec] of Object.entries(RUNTIME_METHODS)) {
  Object.defineProperty(WorkerRuntime.prototype, name, {
    value(this: WorkerRuntime, ...args: unknown[]) {
      return this.call(0, name, spec, name, args);
    },
    writable: true,
    configurable: true,
  });
}

// ---- resident objects

type ResidentInfo = ResidentShape & { handle: number; hasGamma: boolean; hasBeta: boolean };

class ResidentProxy {
  readonly norm: ResidentShape['norm'];
  readonly d: number;
  readonly eps: number;
  readonly dtype: ResidentShape['dtype'];
  readonly hasGamma: boolean;
  readonly hasBeta: boolean;
  readonly #owner: WorkerRuntime;
  readonly #handle: number;
  readonly #token = {};
  #disposed = false;

  constructor(owner: WorkerRuntime, info: ResidentInfo) {
    this.#owner = owner;
    this.#handle = info.handle;
    this.norm = info.norm;
    this.d = info.d;
    this.eps = info.eps;
    this.dtype = info.dtype;
    this.hasGamma = info.hasGamma;
    this.hasBeta = info.hasBeta;
    owner.track(this, info.handle, this.#token);
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#owner.release(this.#handle, this.#token);
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  invoke(method: string, spec: MethodSpec, args: unknown[]): Promise<unknown> {
    const fn = `LayerNorm.${method}`;
    if (this.#disposed)
      return Promise.reject(new DisposedError(`${fn}: this ${NORMS[this.norm].name} was disposed; create a new one`));
    return this.#owner.call(this.#handle, method, spec, fn, args, this);
  }
}

for (const [name, spec] of Object.entries(LAYER_NORM_METHODS)) {
  Object.defineProperty(ResidentProxy.prototype, name, {
    value(this: ResidentProxy, ...args: unknown[]) {
      return this.invoke(name, spec, args);
    },
    writable: true,
    configurable: true,
  });
}
