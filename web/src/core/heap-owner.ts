/**
 * An object that owns one block of wasm heap until dispose() (idempotent; also `using`). If it is
 * dropped undisposed, the runtime's FinalizationRegistry frees the block after garbage collection.
 */
import { DisposedError } from '../errors.js';
import type { RuntimeCore } from './runtime-core.js';

export abstract class HeapOwner {
  #ptr: number; // 0: owns nothing (still disposable); -1: disposed
  readonly #token = {};

  constructor(
    protected readonly runtime: RuntimeCore,
    ptr: number,
  ) {
    this.#ptr = ptr;
    if (ptr > 0) runtime.track(this, ptr, this.#token);
  }

  get disposed(): boolean {
    return this.#ptr < 0;
  }

  /** The block's address; throws DisposedError after dispose(). */
  protected address(fn: string, what: string, advice = ''): number {
    if (this.#ptr < 0) throw new DisposedError(`${fn}: this ${what} was disposed${advice}`);
    return this.#ptr;
  }

  dispose(): void {
    if (this.#ptr < 0) return;
    if (this.#ptr > 0) {
      this.runtime.untrack(this.#token);
      this.runtime.heap.free(this.#ptr);
    }
    this.#ptr = -1;
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}
