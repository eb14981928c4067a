/**
 * The activations card's requests: a generated sample, pasted text or a file loaded into the
 * engine (a large .npy file read in slices, with its progress, and cancelled on request), then
 * normalized. A generated sample follows the weights' width.
 */
import { Cancelled } from '../engine/client';
import { STREAM_BYTES, type ActivationSource } from '../engine/protocol';
import type { PageStore } from '../state';
import { errorText } from '../ui/format';
import { activationsFailed, type PendingActivations } from './large-file';
import type { Requests } from './requests';

/** The default sample's width before any weights have arrived (GPT-2 small's d). */
const DEFAULT_D = 768;

export function startActivations(
  store: PageStore,
  requests: Requests,
  pending: PendingActivations,
  recompute: () => Promise<void>,
): void {
  /** Loads `source` into the engine; a large file becomes the activations once it is normalized. */
  async function load(source: ActivationSource, large: boolean): Promise<void> {
    try {
      const info = await requests.run('load', 'loadActivations', source);
      const note = info.tokensNote ? { kind: 'warn' as const, text: info.tokensNote } : null;
      if (large) {
        pending.info = info;
        store.set({
          actMessage: note,
          large: { name: info.label, bytes: info.bytes, status: 'running', done: 0, total: info.rows, message: '' },
        });
      } else {
        // These replace a large file still being read, if any (the engine dropped it too).
        pending.info = null;
        store.set({ actMessage: note, activations: info, large: null });
      }
      if (info.gen) store.set({ gen: info.gen });
      await recompute();
    } catch (e) {
      if (e instanceof Cancelled) return;
      store.set(activationsFailed(store.state, errorText(e)));
    }
  }

  store.handle('act/generate', ({ B, T, seed }) => {
    const d = store.state.weights?.d ?? DEFAULT_D;
    void load({ kind: 'generate', B, T, seed, d }, false);
  });
  store.handle('act/text', ({ text }) => void load({ kind: 'text', text, name: 'pasted text' }, false));
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
    void load({ kind: 'file', file, tokens }, large);
  });
  store.handle('act/cancel', () => {
    requests.cancel('compute');
    requests.cancel('load');
    pending.info = null;
    void requests.engine.call('discardPending', null);
    const large = store.state.large;
    store.set({
      computing: false,
      large: large ? { ...large, status: 'cancelled', message: 'Cancelled; nothing was kept.' } : null,
    });
  });

  store.watch(
    ['weights'],
    (s) => {
      const w = s.weights;
      const a = s.activations;
      if (!w) return;
      // A generated sample follows the weights' width; other inputs are checked against it.
      if (a && a.origin === 'generated' && a.d !== w.d) {
        const { B, T, seed } = s.gen;
        void load({ kind: 'generate', B, T, seed, d: w.d }, false);
      } else void recompute();
    },
    { immediate: false },
  );
  // A row the new activations do not have: their first.
  store.watch(['activations'], (s) => s.activations && s.row >= s.activations.rows && store.set({ row: 0 }), {
    immediate: false,
  });
}
