/**
 * The full page: a store, the services that fill it (the engine worker, the weights loader, the
 * address bar) and the panels that draw it. It opens on the explainer; the lab (with its chart
 * library) loads when its card comes near.
 */
import { EngineClient } from './engine/client';
import { whenNear } from './lazy';
import { mountActivations } from './panels/activations';
import { mountExplain } from './panels/explain';
import { mountOutput } from './panels/output';
import { mountSpeed } from './panels/speed';
import { mountStatus } from './panels/status';
import { mountWeights } from './panels/weights';
import { mountWhere } from './panels/where';
import { decodePermalink, syncAddressBar } from './permalink';
import { startEngine } from './services/engine';
import { startWeightsLoader } from './services/weights';
import { createStore } from './state';
import { $ } from './ui/dom';

export function startPage(params: URLSearchParams): void {
  const store = createStore();
  const engine = new EngineClient();
  store.set({ ...decodePermalink(params), touch: matchMedia('(hover: none), (pointer: coarse)').matches });
  startEngine(store, engine);
  startWeightsLoader(store, engine);
  syncAddressBar(store);

  mountExplain(store, engine);
  mountStatus(store);
  mountWeights(store, $('weights-card'));
  mountActivations(store);
  mountOutput(store);
  mountWhere(store);
  mountSpeed(store);
  whenNear(store, $('check'), () => import('./panels/check').then((m) => m.mountCheck));
  whenNear(store, $('text-card'), () =>
    import('./panels/text').then((m) => (s: typeof store, root: HTMLElement) => m.mountText(s, root, engine)),
  );

  const { B, T, seed } = store.state.gen;
  store.dispatch({ type: 'act/generate', B, T, seed });
  store.dispatch({ type: 'weights/load', source: store.state.weightsSource });
}
