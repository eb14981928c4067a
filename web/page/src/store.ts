/**
 * A small store: one state object, shallow updates, listeners per key, and actions for one-off
 * requests (a file to read, a download). Panels read and write the store and handle nothing else;
 * the services (the engine, the weights loader, the permalink) answer actions.
 */

type Keys<S> = ReadonlyArray<keyof S>;

interface Watcher<S> {
  keys: ReadonlySet<keyof S>;
  fn: (state: Readonly<S>) => void;
}

/** Runs `fn` in a task of its own, once however often it is asked before that task runs. */
function deferred<S>(fn: (state: Readonly<S>) => void, get: () => Readonly<S>): (state: Readonly<S>) => void {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    setTimeout(() => {
      queued = false;
      fn(get());
    }, 0);
  };
}

export class Store<S extends object, A extends { type: string }> {
  #state: S;
  readonly #watchers = new Set<Watcher<S>>();
  readonly #handlers = new Map<string, Set<(action: A) => void>>();
  #pending = new Set<keyof S>();
  #flushing = false;

  constructor(initial: S) {
    this.#state = initial;
  }

  get state(): Readonly<S> {
    return this.#state;
  }

  /** Merges `patch` into the state and notifies the watchers of the keys whose values changed. */
  set(patch: Partial<S>): void {
    const next = { ...this.#state };
    for (const key of Object.keys(patch) as (keyof S)[]) {
      if (Object.is(next[key], patch[key])) continue;
      next[key] = patch[key] as S[keyof S];
      this.#pending.add(key);
    }
    this.#state = next;
    this.#flush();
  }

  /**
   * Calls `fn` whenever one of `keys` changes (and once now, unless `immediate` is false).
   * Changes made inside a watcher are delivered after the current round, never re-entrantly.
   * `defer`: call it in a task of its own (coalesced), so a heavy drawing never adds to the task
   * that made the change: the page's main-thread tasks stay short.
   */
  watch(keys: Keys<S>, fn: (state: Readonly<S>) => void, { immediate = true, defer = false } = {}): () => void {
    const run = defer ? deferred(fn, () => this.#state) : fn;
    const watcher: Watcher<S> = { keys: new Set(keys), fn: run };
    this.#watchers.add(watcher);
    if (immediate) run(this.#state);
    return () => this.#watchers.delete(watcher);
  }

  dispatch(action: A): void {
    const handlers = this.#handlers.get(action.type);
    if (!handlers?.size) throw new Error(`no handler for the action "${action.type}"`);
    for (const h of handlers) h(action);
  }

  handle<T extends A['type']>(type: T, fn: (action: Extract<A, { type: T }>) => void): void {
    let set = this.#handlers.get(type);
    if (!set) this.#handlers.set(type, (set = new Set()));
    set.add(fn as (action: A) => void);
  }

  #flush(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    try {
      while (this.#pending.size) {
        const changed = this.#pending;
        this.#pending = new Set();
        for (const w of [...this.#watchers]) {
          for (const k of changed) {
            if (w.keys.has(k)) {
              w.fn(this.#state);
              break;
            }
          }
        }
      }
    } finally {
      this.#flushing = false;
    }
  }
}
