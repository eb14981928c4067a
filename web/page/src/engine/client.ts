/** The main thread's handle on the engine worker: one promise per request, progress, cancellation. */
import type { EngineApi, EngineReply, EngineRequest, Operation, Progress } from './protocol';

/** A request that was cancelled (by `cancel` or a newer request of the same kind). */
export class Cancelled extends Error {
  override name = 'Cancelled';
  constructor() {
    super('Cancelled');
  }
}

/** An error the engine reported, with the name of the error class it threw there. */
export class EngineError extends Error {
  readonly network: boolean;
  constructor(
    readonly kind: string,
    message: string,
    network = false,
    /** Gains to pick from, when a checkpoint does not say which norm is its final one. */
    readonly candidates: string[] = [],
  ) {
    super(message);
    this.name = kind;
    this.network = network;
  }
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  onProgress?: (p: Progress) => void;
}

export interface Call<T> {
  readonly id: number;
  readonly result: Promise<T>;
  cancel(): void;
}

export class EngineClient {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;

  constructor() {
    this.#worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'layernorm-engine' });
    this.#worker.onmessage = (e: MessageEvent<EngineReply>) => this.#receive(e.data);
    this.#worker.onerror = (e) => {
      e.preventDefault();
      const error = new EngineError('WorkerError', `The engine stopped: ${e.message || 'the worker script failed'}`);
      for (const p of this.#pending.values()) p.reject(error);
      this.#pending.clear();
    };
  }

  start<K extends Operation>(
    type: K,
    args: EngineApi[K]['args'],
    options: { onProgress?: (p: Progress) => void; transfer?: Transferable[] } = {},
  ): Call<EngineApi[K]['result']> {
    const id = this.#nextId++;
    const result = new Promise<EngineApi[K]['result']>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject, onProgress: options.onProgress });
    });
    this.#worker.postMessage({ type, id, args } as EngineRequest, options.transfer ?? []);
    return {
      id,
      result,
      cancel: () => {
        const p = this.#pending.get(id);
        if (!p) return;
        this.#pending.delete(id);
        this.#worker.postMessage({ type: 'cancel', id } satisfies EngineRequest);
        p.reject(new Cancelled());
      },
    };
  }

  call<K extends Operation>(
    type: K,
    args: EngineApi[K]['args'],
    options?: { onProgress?: (p: Progress) => void; transfer?: Transferable[] },
  ): Promise<EngineApi[K]['result']> {
    return this.start(type, args, options).result;
  }

  #receive(reply: EngineReply): void {
    const p = this.#pending.get(reply.id);
    if (!p) return; // cancelled here already
    if ('progress' in reply) {
      p.onProgress?.(reply.progress);
      return;
    }
    this.#pending.delete(reply.id);
    if (reply.ok) p.resolve(reply.value);
    else if (reply.error.name === 'CancelledError') p.reject(new Cancelled());
    else {
      const { name, message, network, candidates } = reply.error;
      p.reject(new EngineError(name, message, network ?? false, candidates ?? []));
    }
  }
}
