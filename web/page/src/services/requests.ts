/**
 * What every card's service shares in asking the engine worker: requests under a key, where a newer
 * one cancels the one still running under the same key (only the newest of each kind counts); the
 * layer's settings as the engine takes them; and a request's state as a card shows it.
 */
import type { Call, EngineClient } from '../engine/client';
import { formToRun } from '../engine/form';
import type { EngineApi, LayerParams, Operation } from '../engine/protocol';
import type { Job, PageState } from '../state';

export interface Requests {
  readonly engine: EngineClient;
  /** Starts `type`, cancelling the previous request under the same key. */
  run<K extends Operation>(
    key: string,
    type: K,
    args: EngineApi[K]['args'],
    onProgress?: (done: number, total: number) => void,
  ): Promise<EngineApi[K]['result']>;
  /** Cancels the request under `key`, if one is running. */
  cancel(key: string): void;
}

export function latestRequests(engine: EngineClient): Requests {
  const latest = new Map<string, Call<unknown>>();
  return {
    engine,
    run(key, type, args, onProgress) {
      latest.get(key)?.cancel();
      const call = engine.start(type, args, { onProgress: onProgress && ((p) => onProgress(p.done, p.total)) });
      latest.set(key, call as Call<unknown>);
      return call.result.finally(() => {
        if (latest.get(key) === call) latest.delete(key);
      });
    },
    cancel: (key) => latest.get(key)?.cancel(),
  };
}

/** The layer's settings as the engine runs them; null while ε is not a number. */
export const layerParams = (s: Readonly<PageState>): LayerParams | null =>
  s.eps === null ? null : { eps: s.eps, form: formToRun(s.weights, s.form) };

export const job = <T>(status: Job<T>['status'], result: T | null, message = '', done = 0, total = 0): Job<T> => ({
  status,
  result,
  message,
  done,
  total,
});
