/**
 * Connects the store to the engine worker: sends it the weights and activations, asks for a new
 * output whenever ε, the variant, the weights or the activations change, and for the stages of the
 * selected row, the checks and the timings. Only the newest request of each kind counts; an older
 * one still running is cancelled.
 */
import { DEFAULT_FORM } from 'layernorm-wasm';
import { Cancelled, type Call, type EngineClient } from '../engine/client';
import { STREAM_BYTES, type EngineApi, type LayerParams, type Operation } from '../engine/protocol';
import { effectiveVariant, idle, type Job, type PageState, type PageStore } from '../state';
import { errorText } from '../ui/format';

/** The default sample's width before any weights have arrived (GPT-2 small's d). */
const DEFAULT_D = 768;

export function startEngine(store: PageStore, engine: EngineClient): void {
  const latest = new Map<string, Call<unknown>>();

  /** Starts `type`, cancelling the previous request under the same key. */
  function run<K extends Operation>(
    key: string,
    type: K,
    args: EngineApi[K]['args'],
    onProgress?: (done: number, total: number) => void,
  ): Promise<EngineApi[K]['result']> {
    latest.get(key)?.cancel();
    const call = engine.start(type, args, { onProgress: onProgress && ((p) => onProgress(p.done, p.total)) });
    latest.set(key, call as Call<unknown>);
    return call.result.finally(() => {
      if (latest.get(key) === call) latest.delete(key);
    });
  }

  const params = (s: Readonly<PageState>): LayerParams | null =>
    s.eps === null ? null : { eps: s.eps, variant: effectiveVariant(s) };

  /** Normalizes whatever the engine holds (a new large file first) with the current parameters. */
  async function recompute(): Promise<void> {
    const s = store.state;
    const p = params(s);
    if (!s.weights || !p || (!s.activations && !pendingInfo)) return;
    const streamed = pendingInfo !== null || (s.activations?.streamed ?? false);
    store.set({ computing: true });
    try {
      const result = await run('compute', 'compute', p, (done, total) => {
        const large = store.state.large;
        if (streamed && large) store.set({ large: { ...large, status: 'running', done, total } });
      });
      const large = store.state.large;
      store.set({
        result,
        resultError: null,
        computing: false,
        activations: pendingInfo ?? store.state.activations,
        large: large && large.status === 'running' ? { ...large, status: 'done', done: result.rows } : large,
      });
      pendingInfo = null;
    } catch (e) {
      if (e instanceof Cancelled) return;
      const text = errorText(e);
      if (pendingInfo) {
        pendingInfo = null;
        const large = store.state.large;
        store.set({
          computing: false,
          actMessage: {
            kind: 'error',
            text: store.state.activations ? `${text} The page keeps the previous activations.` : text,
          },
          large: large && large.status === 'running' ? { ...large, status: 'failed', message: text } : large,
        });
      } else {
        store.set({ computing: false, result: null, resultError: text });
      }
    }
  }

  /** A large file being normalized for the first time: it becomes the activations when that finishes. */
  let pendingInfo: PageState['activations'] = null;

  async function loadActivations(args: EngineApi['loadActivations']['args'], large: boolean): Promise<void> {
    try {
      const info = await run('load', 'loadActivations', args);
      const note = info.tokensNote ? { kind: 'warn' as const, text: info.tokensNote } : null;
      if (large) {
        pendingInfo = info;
        store.set({
          actMessage: note,
          large: { name: info.label, bytes: info.bytes, status: 'running', done: 0, total: info.rows, message: '' },
        });
      } else {
        // These replace a large file still being read, if any (the engine dropped it too).
        pendingInfo = null;
        store.set({ actMessage: note, activations: info, large: null });
      }
      if (info.gen) store.set({ gen: info.gen });
      await recompute();
    } catch (e) {
      if (e instanceof Cancelled) return;
      const text = errorText(e);
      const large = store.state.large;
      store.set({
        actMessage: {
          kind: 'error',
          text: store.state.activations ? `${text} The page keeps the previous activations.` : text,
        },
        large: large && large.status === 'running' ? { ...large, status: 'failed', message: text } : large,
      });
    }
  }

  store.handle('act/generate', ({ B, T, seed }) => {
    const d = store.state.weights?.d ?? DEFAULT_D;
    void loadActivations({ kind: 'generate', B, T, seed, d }, false);
  });
  store.handle('act/text', ({ text }) => void loadActivations({ kind: 'text', text, name: 'pasted text' }, false));
  store.handle('act/file', ({ file, tokens }) => {
    const large = file.size > STREAM_BYTES && /\.npy$/i.test(file.name);
    if (large) {
      store.set({
        large: {
          name: file.name,
          bytes: file.size,
          status: 'running',
          done: 0,
          total: 0,
          message: 'Reading the header…',
        },
      });
    }
    void loadActivations({ kind: 'file', file, tokens }, large);
  });
  store.handle('act/cancel', () => {
    latest.get('compute')?.cancel();
    latest.get('load')?.cancel();
    pendingInfo = null;
    void engine.call('discardPending', null);
    const large = store.state.large;
    store.set({
      computing: false,
      large: large ? { ...large, status: 'cancelled', message: 'Cancelled; nothing was kept.' } : null,
    });
  });

  store.handle('out/download', async ({ format }) => {
    try {
      const { blob, name } = await engine.call('download', { format });
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = name;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (e) {
      store.set({ resultError: errorText(e) });
    }
  });

  // ---- checks

  const job = <T>(status: Job<T>['status'], result: T | null, message = '', done = 0, total = 0): Job<T> => ({
    status,
    result,
    message,
    done,
    total,
  });

  async function scalar(): Promise<void> {
    const p = params(store.state);
    if (!p || !store.state.result) return;
    store.set({ scalar: job('running', store.state.scalar.result) });
    try {
      const r = await run('scalar', 'scalar', p, (done, total) =>
        store.set({ scalar: job('running', store.state.scalar.result, '', done, total) }),
      );
      store.set({ scalar: job('done', r) });
    } catch (e) {
      if (!(e instanceof Cancelled)) store.set({ scalar: job<never>('failed', null, errorText(e)) });
    }
  }
  store.handle('check/scalar', () => void scalar());

  async function lab(): Promise<void> {
    const s = store.state;
    const p = params(s);
    if (!p || !s.result || !s.expected.length) {
      if (!s.expected.length) store.set({ lab: idle(), labRows: null, labView: null });
      return;
    }
    store.set({ lab: job('running', s.lab.result) });
    try {
      const r = await run('lab', 'lab', { ...p, tolerance: s.tolerance }, (done, total) =>
        store.set({ lab: job('running', store.state.lab.result, '', done, total) }),
      );
      const view = store.state.labView;
      const keep = view && r.files.some((f) => f.id === view.fileId && !f.shapeError);
      const first = r.files.find((f) => !f.shapeError);
      store.set({
        lab: job('done', r),
        labView: keep ? { ...view } : first ? { fileId: first.id, sort: 'abs', failingOnly: false, offset: 0 } : null,
      });
    } catch (e) {
      if (!(e instanceof Cancelled)) store.set({ lab: job<never>('failed', null, errorText(e)) });
    }
  }

  store.handle('lab/add', async ({ files }) => {
    const added = [];
    const errors: string[] = [];
    for (const file of files) {
      try {
        added.push(await engine.call('addExpected', { file }));
      } catch (e) {
        errors.push(errorText(e));
      }
    }
    store.set({
      expected: [...store.state.expected, ...added],
      expectedMessage: errors.length ? { kind: 'error', text: errors.join(' ') } : null,
    });
    if (added.length) void lab();
  });
  store.handle('lab/remove', async ({ id }) => {
    await engine.call('removeExpected', { id });
    store.set({ expected: store.state.expected.filter((f) => f.id !== id) });
    void lab();
  });

  store.watch(
    ['labView'],
    async (s) => {
      const v = s.labView;
      if (!v) return store.set({ labRows: null });
      try {
        store.set({ labRows: await run('labRows', 'labRows', { ...v, limit: 50 }) });
      } catch (e) {
        if (!(e instanceof Cancelled)) store.set({ labRows: null });
      }
    },
    { immediate: false },
  );

  // ---- speed

  async function timing(): Promise<void> {
    const p = params(store.state);
    if (!p || !store.state.result) return;
    try {
      store.set({ timing: job('done', await run('timing', 'timing', p)) });
    } catch (e) {
      if (!(e instanceof Cancelled)) store.set({ timing: job<never>('failed', null, errorText(e)) });
    }
  }

  store.handle('speed/bench', async () => {
    const p = params(store.state) ?? { eps: 1e-5, variant: DEFAULT_FORM };
    store.set({ bench: job<never>('running', null, '', 0, 9) });
    try {
      const r = await run('bench', 'bench', p, (done, total) =>
        store.set({ bench: job<never>('running', null, '', done, total) }),
      );
      store.set({ bench: job('done', r) });
    } catch (e) {
      if (!(e instanceof Cancelled)) store.set({ bench: job<never>('failed', null, errorText(e)) });
    }
  });

  // ---- what follows from what

  let debounce: ReturnType<typeof setTimeout> | undefined;
  const later = (fn: () => void, ms: number) => {
    clearTimeout(debounce);
    debounce = setTimeout(fn, ms);
  };

  store.watch(
    ['weights'],
    (s) => {
      const w = s.weights;
      const a = s.activations;
      if (!w) return;
      // A generated sample follows the weights' width; other inputs are checked against it.
      if (a && a.origin === 'generated' && a.d !== w.d) {
        const { B, T, seed } = s.gen;
        void loadActivations({ kind: 'generate', B, T, seed, d: w.d }, false);
      } else void recompute();
    },
    { immediate: false },
  );
  store.watch(['eps', 'variant'], (s) => s.eps !== null && later(() => void recompute(), 120), { immediate: false });

  // Everything downstream of a new output.
  store.watch(
    ['result'],
    (s) => {
      if (!s.result) return;
      if (s.scalar.status !== 'idle') void scalar();
      if (s.expected.length) void lab();
      void timing();
    },
    { immediate: false },
  );
  // A row the new activations do not have: their first.
  store.watch(['activations'], (s) => s.activations && s.row >= s.activations.rows && store.set({ row: 0 }), {
    immediate: false,
  });
  let tolTimer: ReturnType<typeof setTimeout> | undefined;
  store.watch(
    ['tolerance'],
    () => {
      clearTimeout(tolTimer);
      tolTimer = setTimeout(() => void lab(), 150);
    },
    { immediate: false },
  );

  void engine.call('init', null).then(
    (r) => store.set({ engine: { status: 'ready', backend: r.backend, kernel: r.kernel, message: '' } }),
    (e: unknown) => store.set({ engine: { status: 'failed', backend: '', kernel: '', message: errorText(e) } }),
  );
}
