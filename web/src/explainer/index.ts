/**
 * layernorm-wasm/explainer: importing it defines <layernorm-explainer> (once: a second import, or
 * a second copy of the package, leaves the first definition in place) and exports its class.
 * Then, in HTML, <layernorm-explainer src="…/model.safetensors" row="3"></layernorm-explainer>, and
 * from a script, el.activations = { data, shape: [T, 768], tokens }.
 */
import { LayerNormExplainer } from './element.js';

export { LayerNormExplainer };
/** How the element writes numbers, for a page that shows values beside it in the same form. */
export { fmtInt as formatCount, fmtEps as formatEps, fmtNum as formatNumber } from './format.js';
export type {
  ExplainerActivations,
  ExplainerActivationsInput,
  ExplainerErrorDetail,
  ExplainerEngine,
  ExplainerRuntime,
  ExplainerScale,
  ExplainerStages,
  ExplainerTheme,
  ExplainerVariants,
  ExplainerView,
  ExplainerWeights,
  ExplainerWeightsInput,
  Explanation,
  ExplainRequest,
  RenderDetail,
  RowChangeDetail,
  ViewChangeDetail,
} from './types.js';
import type { ExplainerErrorDetail, RenderDetail, RowChangeDetail, ViewChangeDetail } from './types.js';

/**
 * The element's `error` event: an ErrorEvent (so `message` and `error` are typed wherever
 * `HTMLElementEventMap` is used) that also carries them as `detail`.
 */
export type ExplainerErrorEvent = ErrorEvent & { readonly detail: ExplainerErrorDetail };

if (typeof customElements !== 'undefined' && !customElements.get('layernorm-explainer')) {
  customElements.define('layernorm-explainer', LayerNormExplainer);
}

declare global {
  interface HTMLElementTagNameMap {
    'layernorm-explainer': LayerNormExplainer;
  }
  /** The element's events, typed for addEventListener (its `error` is an ErrorEvent: ExplainerErrorEvent). */
  interface HTMLElementEventMap {
    rowchange: CustomEvent<RowChangeDetail>;
    viewchange: CustomEvent<ViewChangeDetail>;
    render: CustomEvent<RenderDetail>;
  }
}
