/**
 * The norms this package computes, specified once. The runtime, the wire to the C++ core, the
 * loaders, the worker, the page and the benchmark take a norm's name, code and facts from here:
 * adding a norm is a row in NORMS (and a form in NORM_FORMS) plus its kernel. The runtime's and
 * the worker's methods for it are installed under the names its row's `api` gives, their types
 * follow its facts (types.ts `NormMethods`), `normReference` takes its kind, and the page's Layer
 * card gets its radio (web/page/plugins/norm-forms.ts). No file under web/ decides by a norm's
 * name (`npm run lint` checks it, web/scripts/structure.mjs): it reads the fact from the row. How
 * a checkpoint says it holds a norm is the formats' own spelling (io/norm-kind.ts).
 *
 * A checkpoint family's gain convention (Gemma stores w and multiplies by 1 + w) is not a property
 * of the norm but of the family that wrote the file: it lives with the families the loader knows
 * (io/architectures.ts), which name a kind from this table.
 *
 * May import: nothing.
 */

/**
 * The facts of a norm's arithmetic, all the C++ core is told of it (cpp/src/norm_traits.h states
 * the same for the norms it names): whether it subtracts the row's mean, what its moment divides
 * the (centred) sum of squares by — the width d (a variance, a mean square) or 1 (a sum of
 * squares) — and whether it adds a bias β. The gain always multiplies: a family whose checkpoint
 * stores w for 1 + w is converted by the loader (io/convention.ts). The references, the stage
 * types and the explainer follow from these three.
 */
export interface NormFacts {
  /** Subtracts the row's mean (LayerNorm) or not (RMSNorm). */
  readonly centred: boolean;
  /** What the moment divides the sum of squares by: 'width' (d) or 'one'. */
  readonly divisor: 'width' | 'one';
  /** Has an additive bias β (the core computes it only for a centred norm). */
  readonly bias: boolean;
}

export interface NormSpec extends NormFacts {
  /** As the page, errors and reports write it. */
  readonly name: string;
  /** The formula over one row of width d. */
  readonly equation: string;
  /** The statistic under the square root, as the page labels it. */
  readonly moment: string;
  /** The statistic under the square root, in words (the page's captions and notes). */
  readonly momentName: string;
  /** How the row's statistics are defined, one equation each (the explainer shows them). */
  readonly statistics: readonly string[];
  /**
   * The names of its runtime (and worker) methods, installed from this row, and of its reference
   * (`normReference` for this kind), as calls and messages name them.
   */
  readonly api: { readonly call: string; readonly create: string; readonly stages: string; readonly reference: string };
}

export const NORMS = {
  layernorm: {
    name: 'LayerNorm',
    equation: 'y = γ ⊙ (x − μ) / √(σ² + ε) + β',
    centred: true,
    divisor: 'width',
    bias: true,
    moment: 'σ²',
    momentName: 'variance',
    statistics: ['μ = Σᵢ xᵢ / d', 'σ² = Σᵢ (xᵢ − μ)² / d'],
    api: {
      call: 'layerNorm',
      create: 'createLayerNorm',
      stages: 'layerNormStages',
      reference: 'layerNormReference',
    },
  },
  rmsnorm: {
    name: 'RMSNorm',
    equation: 'y = γ ⊙ x / √(mean(x²) + ε)',
    centred: false,
    divisor: 'width',
    bias: false,
    moment: 'mean(x²)',
    momentName: 'mean square',
    statistics: ['mean(x²) = Σᵢ xᵢ² / d'],
    api: { call: 'rmsNorm', create: 'createRmsNorm', stages: 'rmsNormStages', reference: 'rmsNormReference' },
  },
} as const satisfies Record<string, NormSpec>;

/**
 * The `Norm` code the core takes for a norm's facts (cpp/include/layernorm/layernorm.h, NormOf):
 * the wire carries the facts, so a row of NORMS needs no code of its own in the C++ core.
 */
export const normWire = (f: NormFacts): number =>
  0x100 | (f.centred ? 1 : 0) | (f.divisor === 'one' ? 2 : 0) | (f.bias ? 4 : 0);

/**
 * The name of a norm's moment in its stages, from its facts: a centred norm's over d is the
 * variance, an uncentred one's the mean square; over 1, the (centred) sum of squares.
 */
export const MOMENT_KEYS = {
  centred: { width: 'variance', one: 'centredSumOfSquares' },
  uncentred: { width: 'meanSquare', one: 'sumOfSquares' },
} as const;
export type MomentKey<F extends NormFacts> = (typeof MOMENT_KEYS)[F['centred'] extends true
  ? 'centred'
  : 'uncentred'][F['divisor']];
export const momentKey = <F extends NormFacts>(f: F): MomentKey<F> =>
  MOMENT_KEYS[f.centred ? 'centred' : 'uncentred'][f.divisor] as MomentKey<F>;

/** The kinds of norm: the one place their union is written. */
export type NormKind = keyof typeof NORMS;
export const NORM_KINDS = Object.keys(NORMS) as readonly NormKind[];

/** The kind a checkpoint that does not say holds, and the page's before any is loaded: GPT-2's. */
export const DEFAULT_NORM = 'layernorm' satisfies NormKind;

export const isNormKind = (v: unknown): v is NormKind => typeof v === 'string' && Object.hasOwn(NORMS, v);

export interface NormFormSpec {
  readonly norm: NormKind;
  /** Whether β is applied (a LayerNorm run with its gain only is the bias-free form). */
  readonly bias: boolean;
  /** A full label, e.g. for a legend or a report. */
  readonly label: string;
  /** A short label, e.g. for a chart key. */
  readonly short: string;
  /** The formula this form computes over one row. */
  readonly equation: string;
  /** Its code in the page's permalinks. */
  readonly url: string;
  /** Its code in the benchmark's tables. */
  readonly bench: string;
}

/**
 * The forms a norm is run in, as the page and the benchmark show them: GPT-2's ln_f (γ and β), the
 * bias-free LayerNorm (γ only, as LDLM's final norm) and RMSNorm (γ only, no centring).
 */
export const NORM_FORMS = {
  layernorm: {
    norm: 'layernorm',
    bias: true,
    label: 'LayerNorm (γ and β)',
    short: 'LayerNorm',
    equation: NORMS.layernorm.equation,
    url: 'ln',
    bench: 'gb',
  },
  biasfree: {
    norm: 'layernorm',
    bias: false,
    label: 'bias-free LayerNorm (γ only)',
    short: 'bias-free',
    equation: 'y = γ ⊙ (x − μ) / √(σ² + ε)',
    url: 'nobias',
    bench: 'nb',
  },
  rmsnorm: {
    norm: 'rmsnorm',
    bias: false,
    label: 'RMSNorm (γ only)',
    short: 'RMSNorm',
    equation: NORMS.rmsnorm.equation,
    url: 'rms',
    bench: 'rms',
  },
} as const satisfies Record<string, NormFormSpec>;

export type NormForm = keyof typeof NORM_FORMS;
export const NORM_FORM_NAMES = Object.keys(NORM_FORMS) as readonly NormForm[];

/** The forms of the norm K (e.g. what a visitor may pick for a LayerNorm checkpoint). */
export type FormOf<K extends NormKind> = {
  [F in NormForm]: (typeof NORM_FORMS)[F]['norm'] extends K ? F : never;
}[NormForm];

/** The form the page starts in and runs GPT-2's ln_f in: LayerNorm with γ and β. */
export const DEFAULT_FORM = 'layernorm' satisfies FormOf<typeof DEFAULT_NORM>;

/** The norm a form runs. */
export const normOfForm = (form: NormForm): (typeof NORMS)[NormKind] => NORMS[NORM_FORMS[form].norm];

/**
 * The form a norm runs in: its kind, and whether β is applied (a LayerNorm without β is the
 * bias-free form; an RMSNorm has no β). The one place a form is decided from those two facts.
 */
export function normFormOf(norm: NormKind, bias: boolean): NormForm {
  const form = NORM_FORM_NAMES.find(
    (f) => NORM_FORMS[f].norm === norm && NORM_FORMS[f].bias === (bias && NORMS[norm].bias),
  );
  if (!form) throw new RangeError(`no form of ${NORMS[norm].name} ${bias ? 'with' : 'without'} β`);
  return form;
}
