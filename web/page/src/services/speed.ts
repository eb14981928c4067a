/**
 * The speed card's requests: the timing of every new output's computation, and the benchmark
 * when the visitor asks for it.
 */
import { DEFAULT_FORM } from 'layernorm-wasm';
import { Cancelled } from '../engine/client';
import type { PageStore } from '../state';
import { errorText } from '../ui/format';
import { job, layerParams, type Requests } from './requests';

/** The benchmark's runs (engine/later.ts): the progress shows 0 of them until its first run ends. */
const BENCH_STEPS = 9;

export function startSpeed(store: PageStore, requests: Requests): void {
  async function timing(): Promise<void> {
    const p = layerParams(store.state);
    if (!p || !store.state.result) return;
    try {
      store.set({ timing: job('done', await requests.run('timing', 'timing', p)) });
    } catch (e) {
      if (!(e instanceof Cancelled)) store.set({ timing: job<never>('failed', null, errorText(e)) });
    }
  }

  store.handle('speed/bench', async () => {
    const p = layerParams(store.state) ?? { eps: 1e-5, form: DEFAULT_FORM };
    store.set({ bench: job<never>('running', null, '', 0, BENCH_STEPS) });
    try {
      const r = await requests.run('bench', 'bench', p, (done, total) =>
        store.set({ bench: job<never>('running', null, '', done, total) }),
      );
      store.set({ bench: job('done', r) });
    } catch (e) {
      if (!(e instanceof Cancelled)) store.set({ bench: job<never>('failed', null, errorText(e)) });
    }
  });

  store.watch(
    ['result'],
    (s) => {
      if (s.result) void timing();
    },
    { immediate: false },
  );
}
