/**
 * The output card's requests: a new output whenever ε or the norm form changes (the activations
 * and weights services ask for one when theirs do), a large file normalized in slices with its
 * progress, and the download of the output.
 */
import { Cancelled } from '../engine/client';
import type { PageStore } from '../state';
import { errorText } from '../ui/format';
import { activationsFailed, type PendingActivations } from './large-file';
import { layerParams, type Requests } from './requests';

/** How long ε's text must stay put before the output follows it (ms): a number typed key by key runs once. */
const SETTINGS_SETTLE_MS = 120;

/** Starts the output's requests; returns the one that normalizes what the engine holds now. */
export function startOutput(store: PageStore, requests: Requests, pending: PendingActivations): () => Promise<void> {
  /** Normalizes whatever the engine holds (a new large file first) with the current parameters. */
  async function recompute(): Promise<void> {
    const s = store.state;
    const p = layerParams(s);
    if (!s.weights || !p || (!s.activations && !pending.info)) return;
    const streamed = pending.info !== null || (s.activations?.streamed ?? false);
    store.set({ computing: true });
    try {
      const result = await requests.run('compute', 'compute', p, (done, total) => {
        const large = store.state.large;
        if (streamed && large) store.set({ large: { ...large, status: 'running', done, total } });
      });
      const large = store.state.large;
      store.set({
        result,
        resultError: null,
        computing: false,
        activations: pending.info ?? store.state.activations,
        large: large && large.status === 'running' ? { ...large, status: 'done', done: result.rows } : large,
      });
      pending.info = null;
    } catch (e) {
      if (e instanceof Cancelled) return;
      const text = errorText(e);
      if (pending.info) {
        pending.info = null;
        store.set({ computing: false, ...activationsFailed(store.state, text) });
      } else {
        store.set({ computing: false, result: null, resultError: text });
      }
    }
  }

  store.handle('out/download', async ({ format }) => {
    try {
      const { blob, name } = await requests.engine.call('download', { format });
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

  let settle: ReturnType<typeof setTimeout> | undefined;
  store.watch(
    ['eps', 'form'],
    (s) => {
      if (s.eps === null) return;
      clearTimeout(settle);
      settle = setTimeout(() => void recompute(), SETTINGS_SETTLE_MS);
    },
    { immediate: false },
  );

  return recompute;
}
