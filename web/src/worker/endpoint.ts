/**
 * The two ends of the channel to the worker, over the web Worker API (browsers, Deno, Bun) or
 * Node's worker_threads, behind one small interface each.
 */
import type { FromWorker, ToWorker } from './wire.js';

/** What the caller's thread needs of a web Worker. */
export interface WebWorkerLike {
  postMessage(message: unknown, transfer: ArrayBuffer[]): void;
  addEventListener(type: string, listener: (event: { type: string }) => void): void;
  terminate(): void;
}

/** What the caller's thread needs of a Node worker_threads Worker. */
export interface NodeWorkerLike {
  postMessage(message: unknown, transfer?: readonly unknown[]): void;
  on(event: string, listener: (...args: never[]) => void): unknown;
  terminate(): unknown;
  ref(): void;
  unref(): void;
}

export interface WorkerEvents {
  message(data: FromWorker): void;
  /** The worker can no longer answer: `reason` says why, for the error pending calls get. */
  failure(reason: string): void;
}

/** The caller's end. */
export interface Channel {
  post(message: ToWorker, transfer: ArrayBuffer[]): void;
  terminate(): void;
  /** Node: keep the process alive while calls are pending, and only then. */
  busy(pending: boolean): void;
}

/** Why a worker stopped when a message from it would not deserialize (the same on both platforms). */
const UNREADABLE_MESSAGE = 'a message from it could not be deserialized';

export function connect(worker: WebWorkerLike | NodeWorkerLike, on: WorkerEvents): Channel {
  if ('addEventListener' in worker && typeof worker.addEventListener === 'function') {
    const w = worker as WebWorkerLike;
    w.addEventListener('message', (e) => on.message((e as unknown as { data: FromWorker }).data));
    w.addEventListener('error', (e) => {
      const event = e as unknown as { message?: string; preventDefault(): void };
      event.preventDefault();
      // A script that fails to load or import gives a bare Event, without a message.
      const message = event.message;
      on.failure(
        message ||
          'its script failed to load (a network error, an HTTP error, a missing import or a MIME type other than JavaScript; the browser gives no detail: see its console)',
      );
    });
    w.addEventListener('messageerror', () => on.failure(UNREADABLE_MESSAGE));
    return {
      post: (message, transfer) => w.postMessage(message, transfer),
      terminate: () => w.terminate(),
      busy: () => {},
    };
  }
  const w = worker as NodeWorkerLike;
  w.on('message', (data: FromWorker) => on.message(data));
  w.on('error', (error: Error) => on.failure(`it threw ${error?.name ?? 'Error'}: ${error?.message ?? String(error)}`));
  w.on('messageerror', () => on.failure(UNREADABLE_MESSAGE));
  w.on('exit', (code: number) => on.failure(`it exited with code ${code}`));
  w.unref();
  return {
    post: (message, transfer) => w.postMessage(message, transfer),
    terminate: () => void w.terminate(),
    busy: (pending) => (pending ? w.ref() : w.unref()),
  };
}

/** The worker's end. */
export interface WorkerPort {
  post(message: FromWorker, transfer: ArrayBuffer[]): void;
  listen(handler: (message: ToWorker) => void): void;
}

type NodeParentPort = {
  postMessage(message: unknown, transfer?: readonly unknown[]): void;
  on(event: 'message', listener: (data: unknown) => void): void;
};

export async function workerPort(): Promise<WorkerPort> {
  const scope = globalThis as unknown as {
    postMessage?: (message: unknown, transfer: ArrayBuffer[]) => void;
    addEventListener?: (type: 'message', listener: (e: { data: unknown }) => void) => void;
  };
  if (typeof scope.postMessage === 'function' && typeof scope.addEventListener === 'function') {
    return {
      post: (message, transfer) => scope.postMessage!(message, transfer),
      listen: (handler) => scope.addEventListener!('message', (e) => handler(e.data as ToWorker)),
    };
  }
  const threads = await nodeThreads();
  const port = threads?.parentPort as NodeParentPort | null | undefined;
  if (!port) {
    throw new Error(
      'layernorm-wasm/worker/script runs inside a worker started by initWorker(); import initWorker instead',
    );
  }
  return {
    post: (message, transfer) => port.postMessage(message, transfer),
    listen: (handler) => port.on('message', (data) => handler(data as ToWorker)),
  };
}

/** Node's worker_threads, or undefined where there is none (browsers, or a bundle for them). */
export async function nodeThreads(): Promise<
  { Worker?: new (url: URL, options: object) => NodeWorkerLike; parentPort: unknown } | undefined
> {
  try {
    const threads = await import('#worker-threads');
    return threads.Worker ? (threads as never) : undefined;
  } catch {
    return undefined;
  }
}
