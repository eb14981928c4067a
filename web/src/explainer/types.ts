/** The element's public types. */
import type { NORM_FORMS, NormForm, NormKind } from '../norms.js';
import type { LayerNormRuntime, LayerNormStages, RmsNormStages } from '../types.js';

/**
 * The norm's weights: γ, and β for a LayerNorm with a bias. What `loadNormWeights` returns works
 * as is (its other fields are ignored, except `architecture`: GPT-2's own weights get their
 * massive channels pointed out).
 */
export interface ExplainerWeights {
  gamma: Float32Array;
  /** null or absent: no bias (a bias-free LayerNorm; an RMSNorm has none). */
  beta?: Float32Array | null;
  /** null or absent: 1e-5. */
  eps?: number | null;
  /** Absent: 'layernorm'. */
  norm?: NormKind;
  architecture?: string | null;
}

/**
 * What the `weights` property takes: γ and β as a Float32Array (kept as is), another typed array
 * or a number[] (what JSON gives), converted to float32 once.
 */
export interface ExplainerWeightsInput extends Omit<ExplainerWeights, 'gamma' | 'beta'> {
  gamma: Float32Array | ArrayLike<number>;
  beta?: Float32Array | ArrayLike<number> | null;
}

/** Hidden states to explain: rows of d values (the last axis of `shape`), one token each. */
export interface ExplainerActivations {
  data: Float32Array;
  shape: readonly number[];
  /** One string per row, shown as the token's label. */
  tokens?: readonly string[] | null;
}

/** What the `activations` property takes: `data` as for the weights' γ (converted to float32 once). */
export interface ExplainerActivationsInput extends Omit<ExplainerActivations, 'data'> {
  data: Float32Array | ArrayLike<number>;
}

/** The selected row's stages, exactly as `layerNormStages` / `rmsNormStages` return them. */
export type ExplainerStages = LayerNormStages | RmsNormStages;

/** The row's own statistics, whichever norm runs. */
export interface ExplainerRowStatistics {
  /** The row's mean and variance (LayerNorm's statistics). */
  mean: number;
  variance: number;
  /** √(mean(x²) + ε), what RMSNorm divides by. */
  rms: number;
}

/**
 * The same row under every form the element compares (same γ), each computed by the module, by
 * the form's name: a form with β is null when the weights have none.
 */
export type ExplainerVariants = ExplainerRowStatistics & {
  [F in NormForm]: (typeof NORM_FORMS)[F]['bias'] extends true ? Float32Array | null : Float32Array;
};

export interface Explanation {
  stages: ExplainerStages;
  variants: ExplainerVariants;
}

/** What the element asks of an engine: one row's explanation under these weights (γ = 1 when null). */
export interface ExplainRequest {
  row: number;
  weights: ExplainerWeights | null;
  eps: number;
}

/**
 * Where the numbers come from when the host computes them itself, e.g. in a worker that holds the
 * activations: the element then needs only their shape and tokens. By default the element
 * computes with the package's runtime on this thread.
 */
export interface ExplainerEngine {
  readonly shape: readonly number[];
  readonly tokens?: readonly string[] | null;
  explain(request: ExplainRequest): Promise<Explanation>;
}

export type ExplainerRuntime = LayerNormRuntime | Promise<LayerNormRuntime>;

export type ExplainerView = 'window' | 'all';
/** `auto` follows the reader's prefers-color-scheme. */
export type ExplainerTheme = 'light' | 'dark' | 'auto';
export type ExplainerScale = 'symlog' | 'linear' | 'own';

export interface RowChangeDetail {
  row: number;
  /** The row's token string, when there are tokens. */
  token: string | null;
}

export interface RenderDetail {
  /** The row just drawn. */
  row: number;
}

/** What went wrong, as the element shows it. */
export interface ExplainerErrorDetail {
  message: string;
  /** The TypeError or RangeError of a refused property, a failed load's error; null for a width mismatch or a missing row. */
  error: unknown;
}

export interface ViewChangeDetail {
  view: ExplainerView;
  /** First feature of the window (view 'window'). */
  start: number;
  /** The features shown in view 'all'; null: every one. */
  zoom: { from: number; to: number } | null;
  scale: ExplainerScale;
}
