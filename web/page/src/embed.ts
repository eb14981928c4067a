/**
 * `?embed=explain`: the explainer alone on a bare page, for an <iframe> in an article. It is the
 * package's <layernorm-explainer> computing on this thread (no engine worker, none of the page's
 * cards), with the weights and the generated sample the link names, until the article sends its
 * own activations through the postMessage API (embed-messages.ts).
 */
import 'layernorm-wasm/explainer';
import { NORM_FORMS } from 'layernorm-wasm';
import type { ExplainerWeights } from 'layernorm-wasm/explainer';
import { GPT2_SAFETENSORS_URL, loadNormWeights } from 'layernorm-wasm/io';
import { PREFIX, readSet } from './embed-messages';
import { gpt2LikeActivations, syntheticWeights } from './engine/sample';
import { decodePermalink, permalink } from './permalink';
import { describeSource, initialState, type PageState } from './state';
import { el } from './ui/dom';
import { errorText } from './ui/format';

const THEMES = ['light', 'dark', 'auto'];

export function startEmbed(params: URLSearchParams): void {
  const state: PageState = { ...initialState(), ...decodePermalink(params) };
  const theme = THEMES.includes(params.get('theme') ?? '') ? params.get('theme')! : 'light';
  document.body.classList.add(theme);
  document.documentElement.classList.add('embed', theme);

  const explainer = createExplainer(state, theme, params.has('f'));
  const status = el('p', '', 'embed-status');
  status.setAttribute('role', 'status');
  const full = el('a', 'Open the full page ↗');
  full.target = '_blank';
  full.rel = 'noopener';
  const fullLink = () => (full.href = permalink({ ...state, row: explainer.row }));
  fullLink();
  const title = el('h1', 'LayerNorm explainer: one token through the final norm', 'sr-only');
  const main = el('main', undefined, 'embed-main');
  main.append(title, status, explainer, el('p', undefined, 'embed-foot'));
  main.lastElementChild!.append(full);
  document.body.append(main);

  // The generated sample the link names, until the article sends its own activations.
  let sent = false;
  let weightsSent = false;
  const generate = (d: number) => {
    const { B, T, seed } = state.gen;
    explainer.activations = { data: gpt2LikeActivations(B, T, d, seed), shape: [B, T, d] };
  };
  generate(768);
  void loadWeights(state, status).then((w) => {
    if (weightsSent) return;
    if (!sent && w.gamma.length !== 768) generate(w.gamma.length);
    explainer.weights = w;
  });

  const post = (type: string, data: Record<string, unknown> = {}) => {
    if (parent !== window) parent.postMessage({ type: PREFIX + type, ...data }, '*');
  };
  // The content's own height (not the frame's, which is never less than its viewport), so that the
  // article's frame shrinks with it as well as grows.
  new ResizeObserver(() => {
    const bottom = main.getBoundingClientRect().bottom + scrollY;
    post('height', { height: Math.ceil(bottom + parseFloat(getComputedStyle(document.body).marginBottom)) });
  }).observe(main);
  // Whatever the element refuses or cannot show (a property, a width mismatch, a row that is not
  // there, weights that do not load) is said to the article too.
  explainer.addEventListener('error', (e) => post('error', { message: (e as ErrorEvent).message }));
  explainer.addEventListener('rowchange', (e) => {
    fullLink();
    post('rowchange', (e as CustomEvent).detail);
  });
  addEventListener('message', (e: MessageEvent) => {
    if (e.source !== parent || e.data?.type !== `${PREFIX}set`) return;
    try {
      const m = readSet(e.data);
      if (m.activations) {
        explainer.activations = m.activations;
        sent = true;
      }
      if (m.tokens) {
        const a = explainer.activations;
        if (!a) throw new TypeError('tokens came before any activations');
        explainer.activations = { ...a, tokens: m.tokens };
      }
      if (m.row !== undefined) explainer.row = m.row;
      const el = explainer as unknown as Record<string, unknown>;
      for (const key of ['weights', 'start', 'view', 'scale'] as const) if (key in m) el[key] = m[key];
      if (m.weights !== undefined) weightsSent = true;
    } catch (error) {
      post('error', { message: errorText(error) });
    }
  });
  post('ready');
}

/** The element as the link shows it: its row, features and scale, in the embedding page's theme. */
function createExplainer(state: PageState, theme: string, linkedWindow: boolean) {
  const explainer = document.createElement('layernorm-explainer');
  explainer.id = 'explainer';
  explainer.setAttribute('theme', theme);
  explainer.row = state.row;
  explainer.view = state.view;
  // The window starts where the link says; otherwise at the token's strongest feature.
  if (linkedWindow) explainer.start = state.windowStart;
  explainer.zoom = state.zoom;
  explainer.scale = state.scale;
  return explainer;
}

/** The weights the link names (a local file cannot be linked: GPT-2 from the Hub instead). */
async function loadWeights(state: PageState, status: HTMLElement): Promise<ExplainerWeights> {
  const source = state.weightsSource;
  const typedEps = state.epsOrigin === 'typed' && state.eps !== null ? state.eps : null;
  const bias = NORM_FORMS[state.form].bias;
  const synthetic = (seed: number): ExplainerWeights => {
    const { gamma, beta } = syntheticWeights(768, seed);
    return { gamma, beta: bias ? beta : null, eps: typedEps ?? 1e-5 };
  };
  if (source.kind === 'synthetic') return synthetic(source.seed);
  const url = source.kind === 'url' ? source.url : GPT2_SAFETENSORS_URL;
  const label = source.kind === 'url' ? url : describeSource({ kind: 'hf' });
  status.textContent = `Loading ${label}… Until it arrives: γ = 1, no β.`;
  try {
    const w = await loadNormWeights(url);
    status.textContent = '';
    return {
      gamma: w.gamma,
      beta: bias ? w.beta : null,
      eps: typedEps ?? w.eps ?? 1e-5,
      norm: w.norm,
      architecture: w.architecture,
    };
  } catch (e) {
    status.textContent = `Could not load ${label}: ${errorText(e)} Showing synthetic demo weights (random, not GPT-2's) instead.`;
    return synthetic(1);
  }
}
