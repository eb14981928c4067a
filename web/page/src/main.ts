/**
 * The page: a store, the panels that draw it, and the services that fill it (the engine worker,
 * the weights loader, the address bar). The cards with charts load when they come near the
 * viewport; `?embed=explain` loads only the explainer card.
 */
// KaTeX's stylesheet, cut to what the build-time equations use (see plugins/equations.ts).
import 'katex/dist/katex.min.css';
import './style.css';
import { EngineClient } from './engine/client';
import { decodePermalink, syncAddressBar } from './permalink';
import { startEngine } from './services/engine';
import { startWeightsLoader } from './services/weights';
import { createStore, type PageStore } from './state';
import { $ } from './ui/dom';

const store = createStore();
const engine = new EngineClient();
store.set({
  ...decodePermalink(new URLSearchParams(location.search)),
  touch: matchMedia('(hover: none), (pointer: coarse)').matches,
});
startEngine(store, engine);
startWeightsLoader(store, engine);
syncAddressBar(store);

/**
 * Mounts a card's panel once the card comes within 400 px of the viewport. Anything the visitor
 * did to its controls before that (a value typed, a file picked) is replayed to the panel.
 */
function whenNear(card: HTMLElement, load: () => Promise<(store: PageStore, root: HTMLElement) => void>): void {
  const io = new IntersectionObserver(
    (entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      io.disconnect();
      void load().then((mount) => {
        const edited = [...card.querySelectorAll('input, select, textarea')].filter(changed);
        mount(store, card);
        for (const input of edited) {
          input.dispatchEvent(new Event('input', { bubbles: true }));
          input.dispatchEvent(new Event('change', { bubbles: true }));
        }
        card.dataset.mounted = 'true';
      });
    },
    { rootMargin: '0px 0px 400px 0px' },
  );
  io.observe(card);
}

function changed(e: Element): boolean {
  if (e instanceof HTMLSelectElement) return [...e.options].some((o) => o.selected !== o.defaultSelected);
  if (e instanceof HTMLTextAreaElement) return e.value !== e.defaultValue;
  if (!(e instanceof HTMLInputElement)) return false;
  if (e.type === 'file') return (e.files?.length ?? 0) > 0;
  if (e.type === 'radio' || e.type === 'checkbox') return e.checked !== e.defaultChecked && e.checked;
  return e.value !== e.defaultValue;
}

const explain = () => import('./panels/explain').then((m) => m.mountExplain);
if (store.state.embed) {
  document.body.classList.add('embed');
  whenNear($('explain'), explain);
  // Tell an embedding article how tall the card is, so its <iframe> can fit it.
  new ResizeObserver(() => {
    parent.postMessage({ type: 'layernorm-embed:height', height: document.documentElement.scrollHeight }, '*');
  }).observe(document.body);
} else {
  void import('./panels/page').then((m) => m.mountPage(store));
  whenNear($('explain'), explain);
  whenNear($('check'), () => import('./panels/check').then((m) => m.mountCheck));
}

const { B, T, seed } = store.state.gen;
store.dispatch({ type: 'act/generate', B, T, seed });
store.dispatch({ type: 'weights/load', source: store.state.weightsSource });
