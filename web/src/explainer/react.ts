/**
 * layernorm-wasm/explainer/react: <layernorm-explainer> in React's JSX, typed (React 18 and 19,
 * `jsx: react-jsx`). Import it once, e.g. `import 'layernorm-wasm/explainer/react';` beside the
 * element's own import: it holds types only. React 19 sets the element's properties and `on<event>`
 * listeners from these props; React 18 sets attributes (strings) and no listeners, so there give
 * `activations`, `weights` and the listeners through a ref (or use the attributes alone).
 */
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { LayerNormExplainer } from './element.js';
import type { ExplainerErrorEvent } from './index.js';
import type {
  ExplainerActivationsInput,
  ExplainerEngine,
  ExplainerRuntime,
  ExplainerScale,
  ExplainerTheme,
  ExplainerView,
  ExplainerWeightsInput,
  RenderDetail,
  RowChangeDetail,
  ViewChangeDetail,
} from './types.js';

/** The element's props in JSX: its properties, attributes and events. */
export interface LayerNormExplainerProps extends DetailedHTMLProps<
  HTMLAttributes<LayerNormExplainer>,
  LayerNormExplainer
> {
  weights?: ExplainerWeightsInput | null;
  activations?: ExplainerActivationsInput | null;
  row?: number;
  engine?: ExplainerEngine | null;
  runtime?: ExplainerRuntime | null;
  src?: string;
  'activations-src'?: string;
  'tokens-src'?: string;
  theme?: ExplainerTheme;
  view?: ExplainerView;
  scale?: ExplainerScale;
  start?: number;
  zoom?: { from: number; to: number } | null;
  label?: string;
  sections?: string;
  onrowchange?: (event: CustomEvent<RowChangeDetail>) => void;
  onviewchange?: (event: CustomEvent<ViewChangeDetail>) => void;
  onrender?: (event: CustomEvent<RenderDetail>) => void;
  onerror?: (event: ExplainerErrorEvent) => void;
}

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'layernorm-explainer': LayerNormExplainerProps;
    }
  }
}
