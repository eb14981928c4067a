/**
 * What `layernorm-wasm/onnx` says of a model it cannot use, each message written once. They are
 * the problems of a FormatError of format 'onnx' ("<source>: invalid onnx: <problem>"), each saying
 * what was expected, what came and what to use instead; web/docs/errors.md quotes an example of
 * each (tests/fuzz/format-problems.mjs holds their patterns to that list).
 */
import type { Dim } from './model.js';
import type { NormOp } from './match.js';

/** The norms the reader finds, as the messages list them. */
const NORM_OPS =
  'LayerNormalization, SkipLayerNormalization, SimplifiedLayerNormalization, SkipSimplifiedLayerNormalization, or their decomposed forms';

/** "[batch_size, 12, past_sequence_length, 64]"; "?" for a dimension the file does not state. */
export const dimsText = (shape: readonly Dim[] | null): string =>
  shape === null ? 'of unstated shape' : `[${shape.map((d) => (d === null ? '?' : String(d))).join(', ')}]`;

/** A norm as messages name it: its name, and how the graph writes it. */
export const normText = (name: string, op: NormOp): string =>
  `the norm "${name}" (${op === 'decomposed' ? 'decomposed' : op})`;

export const PROBLEMS = {
  /** Bytes that are not a ModelProto; `start` is bytes-preview's "it starts with …". */
  notOnnx: (start: string, why: string | null) =>
    `expected an ONNX model (a protobuf ModelProto), but ${start}${why === null ? '' : `: ${why}`}`,
  /** A field of the ModelProto that runs past the end of the file. */
  truncated: (end: number, field: string, at: number) =>
    `the file is truncated: it ends at byte ${end}, inside ${field} (from byte ${at})`,
  /** Protobuf that breaks inside a message the reader needs. */
  malformed: (at: number, what: string, detail: string) => `malformed protobuf at byte ${at}, in ${what}: ${detail}`,
  externalData: (tensor: string, location: string) =>
    `tensor "${tensor}" keeps its data in an external file (${JSON.stringify(location)}); expected every tensor inside the model: use an export without external data, or save one with onnx.save(model, path, save_as_external_data=False)`,
  noNorm: (nodes: number, opTypes: readonly string[]) =>
    `found no normalization in the main graph (${NORM_OPS}); its ${nodes} nodes are ${opTypes.length ? `${opTypes.slice(0, 12).join(', ')}${opTypes.length > 12 ? ', …' : ''}` : 'none'}`,
  inSubgraph: (norm: string, where: string) =>
    `${norm} is inside ${where}, and a value inside a subgraph cannot be made an output of the model; use an export without If or Loop nodes (decoder_model.onnx or model.onnx rather than decoder_model_merged.onnx)`,
  /** γ, β or ε of another type than float32 (a scalar may also be float64). */
  dtype: (role: string, norm: string, tensor: string, type: string) =>
    `${role} of ${norm} ("${tensor}") is ${type}; expected float32: use the float32 or the quantized (q8) export, whose norms stay float32`,
  notConstant: (role: string, norm: string, value: string) =>
    `${role} of ${norm} is "${value}", a value of the graph; expected an initializer or a Constant node, whose values can be read`,
  notVector: (role: string, norm: string, tensor: string, shape: readonly number[]) =>
    `${role} of ${norm} ("${tensor}") has shape [${shape.join(', ')}]; expected a vector of d values`,
  tensorSize: (tensor: string, type: string, shape: readonly number[]) =>
    `tensor "${tensor}" (${type} [${shape.join(', ')}]) does not hold the values its shape says`,
  betaLength: (norm: string, beta: number, gamma: number) =>
    `β of ${norm} has ${beta} values and γ ${gamma}; expected equal lengths`,
  axis: (norm: string, axis: number) =>
    `${norm} normalizes from axis ${axis}; expected the last axis (-1), the one a row of d values is normalized over`,
  epsRange: (norm: string, eps: number) => `ε of ${norm} is ${eps}; expected a finite number >= 0`,
  activationType: (norm: string, value: string, type: string) =>
    `the ${value} of ${norm} is ${type} (its value_info); expected float32 activations`,
  unfillableInput: (name: string, type: string, shape: readonly Dim[] | null) =>
    `the model declares an input "${name}" (${type} ${dimsText(shape)}) that capture cannot fill from token ids; pass it in options.feeds`,
  runtimeOutput: (value: string, got: string) =>
    `the runtime returned ${got} for "${value}", whose type the model does not state; expected float32 activations`,
} as const;
