/** The public types of `layernorm-wasm/onnx`. */
import type { NormForm, NormKind } from '../norms.js';
import type { Dim } from './model.js';
import type { NormOp } from './match.js';

export type { Dim, NormOp };

/**
 * A normalization of the model, with what the package's functions take: `d`, `gamma`, `beta`,
 * `eps` and `norm` are the options of `layerNorm` / `rmsNorm` / `createLayerNorm` and the weights
 * `<layernorm-explainer>` takes, as they are.
 */
export interface OnnxNorm {
  /**
   * Where it sits, from the node names exporters write (`/transformer/h.3/ln_2/ReduceMean` →
   * `transformer.h.3.ln_2`), else from γ's name (`model.norm.weight` → `model.norm`), else
   * `norm <index>`. Unique in the model.
   */
  readonly name: string;
  /** Its place among the model's norms, in graph order. */
  readonly index: number;
  /** Which norm it computes: a key of NORMS ('layernorm', 'rmsnorm'). */
  readonly norm: NormKind;
  /** The form it runs in: a key of NORM_FORMS ('layernorm', 'biasfree' for a LayerNorm without β, 'rmsnorm'). */
  readonly form: NormForm;
  /** How the model writes it: the operator, or 'decomposed' (the arithmetic exporters write below opset 17). */
  readonly op: NormOp;
  /** The row width: γ's length. */
  readonly d: number;
  /** ε as the model stores it (a float32 1e-5 is 0.000009999999747378752). */
  readonly eps: number;
  readonly gamma: Float32Array;
  /** null: no β (a bias-free LayerNorm, or an RMSNorm). */
  readonly beta: Float32Array | null;
  /**
   * The graph's names of the values it reads and writes. For the fused Skip operators, `input` is
   * their input_skip_bias_sum output (input + skip + bias, the values normalized), which the
   * exposed model adds to the node when the model does not write it.
   */
  readonly values: { readonly input: string; readonly output: string };
  /** The names of its nodes, in graph order. */
  readonly nodes: readonly string[];
}

/** A graph input or output as the model declares it. */
export interface OnnxValue {
  readonly name: string;
  /** 'float32', 'int64', 'bool', …; null when the model does not say. */
  readonly type: string | null;
  /** Numbers, symbolic names ('batch_size') and null for what the model does not state; null: no shape stated. */
  readonly shape: readonly Dim[] | null;
}

/** The size of a table the model looks tokens or positions up in. */
export interface TableSize {
  /** Its rows: the ids (or positions) it has. */
  readonly size: number;
  /** The initializer it is. */
  readonly tensor: string;
}

export interface OnnxModel {
  /** The file's bytes, as read (the exposed model copies its ranges). */
  readonly bytes: Uint8Array;
  /** The URL, file name or buffer it was read from. */
  readonly source: string;
  readonly irVersion: number;
  /** The ONNX operator set's version. */
  readonly opset: number | null;
  readonly producer: string;
  /** Every normalization of the main graph, in graph order. */
  readonly norms: readonly OnnxNorm[];
  readonly inputs: readonly OnnxValue[];
  readonly outputs: readonly OnnxValue[];
  /** The token embedding's rows, when the model has one it reads token ids from. */
  readonly vocabulary: TableSize | null;
  /** The position table's rows (a position embedding, or a rotary cache), when it has one. */
  readonly context: TableSize | null;
}

/** A model whose graph outputs also hold the chosen norms' inputs and outputs (exposeNorms). */
export interface ExposedModel {
  /** The model as read. */
  readonly model: OnnxModel;
  /** The new model's bytes: what `InferenceSession.create` takes. */
  readonly bytes: Uint8Array;
  /** The norms whose values it outputs, in graph order. */
  readonly norms: readonly OnnxNorm[];
}

/** Which norms to expose or capture: names or indices; default all. */
export type NormSelection = readonly (string | number)[];

export interface ExposeOptions {
  norms?: NormSelection;
}

/** A tensor as capture returns it: float32 values in row-major order. */
export interface CapturedTensor {
  readonly data: Float32Array;
  readonly shape: readonly number[];
}

/** A norm with its input and the runtime's own output for the tokens captured. */
export interface CapturedNorm extends OnnxNorm {
  /** The values the norm normalized: [batch, tokens, d] as the model shapes them, one row per token. */
  readonly input: CapturedTensor;
  /** What the runtime's own norm gave for them. */
  readonly output: CapturedTensor;
  /** input.data.length / d. */
  readonly rows: number;
}

/** Another output of the model, as the runtime returned it. */
export interface OutputTensor {
  readonly type: string;
  readonly data: ArrayLike<number | bigint>;
  readonly shape: readonly number[];
}

export interface Capture {
  /** The token ids, as fed. */
  readonly ids: readonly number[];
  /** Their count: the rows of each norm's input. */
  readonly tokens: number;
  /** The norms captured, in graph order. */
  readonly norms: readonly CapturedNorm[];
  /** The model's own outputs (logits, present key values, …), by name. */
  readonly outputs: Readonly<Record<string, OutputTensor>>;
}
