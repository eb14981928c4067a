/**
 * The runtime as the objects it makes see it: the tensors and resident norms that own heap
 * blocks, and layerNormalization, which runs as one checked call. They depend on this interface,
 * not on runtime.ts, which constructs them: the dependencies point one way.
 */
import type { CheckedNorm } from '../checks/call.js';
import type { Executor } from './executor.js';
import type { Params } from './plan.js';
import type { Heap } from './heap.js';
import type { ActivationArray } from '../types.js';

export interface RuntimeCore {
  readonly heap: Heap;
  readonly executor: Executor;
  /** Frees `ptr` after `owner` is collected, unless untrack(token) comes first. */
  track(owner: object, ptr: number, token: object): void;
  untrack(token: object): void;
  /** Runs a checked call; `resident` holds a LayerNorm object's gain and bias in the heap. */
  normalize(c: CheckedNorm, resident: Params | null): ActivationArray;
}
