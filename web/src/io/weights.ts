/**
 * loadNormWeights / loadLayerNormWeights: the gain (and bias) of one norm layer from a
 * checkpoint, reading only the header and the tensors' bytes, with the norm's kind and ε as the
 * checkpoint states them.
 */

import { byteSourceFor, type ByteSource, type ByteSourceOptions } from './byte-source.js';
import { readModelConfig, readSiblingConfig, type ModelConfig } from './config.js';
import { applyGain, gainRule, unplacedFamily, type NormConvention } from './convention.js';
import { FormatError, type FileFormat } from './errors.js';
import { checkLoadOptions, checkWeightsSource, isNpyPair, refuseTensorNames } from './load-arguments.js';
import type { LoadWeightsOptions, NpyPairSource, WeightsSource } from './load-types.js';
import { decideNorm, NO_EVIDENCE, type NormEvidence, type NormKind } from './norm-kind.js';
import { evidenceFor, refusal, warningsFor, type Accept } from './norm-choice.js';
import { NORMS } from '../norms.js';
import { isGguf, isNpy } from './magic.js';
import { readSafetensorsIndex } from './safetensors.js';
import { checkVector, resolveNormNames } from './tensor-names.js';
import { decodeTensor, readTensorBytes, type TensorIndex } from './tensors.js';

export type { NormKind } from './norm-kind.js';
export type { ConfigSource } from './config.js';
export type { GainRule, NormConvention } from './convention.js';
export { KNOWN_LAYERNORM_NAMES } from './tensor-names.js';

/** GPT-2 small on the Hugging Face Hub; its final LayerNorm is `ln_f.weight` / `ln_f.bias`. */
export const GPT2_SAFETENSORS_URL = 'https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors';

export type { LoadWeightsOptions, NpyPairSource, WeightsSource } from './load-types.js';

/** What a norm layer's weights look like, LayerNorm or RMSNorm. */
export interface NormWeights {
  gamma: Float32Array;
  /** The bias; always null for an RMSNorm. */
  beta: Float32Array | null;
  d: number;
  /**
   * 'rmsnorm' when the checkpoint says so (GGUF `<arch>.attention.layer_norm_rms_epsilon`, a
   * family in the table that computes RMSNorm, config.json `rms_norm_eps`); otherwise 'layernorm'.
   */
  norm: NormKind;
  /** ε as the checkpoint states it (or its family's code fixes it); null when it does not say (use your own, e.g. 1e-5). */
  eps: number | null;
  /** GGUF general.architecture or config.json model_type, e.g. 'gpt2', 'llama'; null when unknown. */
  architecture: string | null;
  /**
   * How `gamma` was made from what the checkpoint stores, by the family it names (README "Which
   * norm each family computes"): as stored, 1 + w (Gemma 1–3, Nemotron, Qwen3-Next in
   * transformers' checkpoints), or ones (OLMo 1's LayerNorm has no parameters).
   */
  convention: NormConvention;
  /**
   * What the loader could not tell from the checkpoint and assumed: one sentence each. Today the
   * one case is a checkpoint naming a family outside the table (say RecurrentGemma): the sentence
   * names it and says what was assumed (the kind from its ε key, γ as stored). Empty otherwise.
   */
  warnings: string[];
  /** Tensor names used (for .npy pairs, the files). */
  names: { weight: string; bias: string | null };
  /** Stored dtype of the gain, e.g. "F32", "F16", "BF16" (npy: "float32" …). */
  dtype: string;
  dtypes: { weight: string; bias: string | null };
  format: 'safetensors' | 'gguf' | 'npy';
  /** Bytes actually read from the file(s) or network. */
  bytesRead: number;
  /** The URL, file name or buffer description. */
  source: string;
}

/** A LayerNorm's weights: what `loadLayerNormWeights` returns. */
export interface LayerNormWeights extends NormWeights {
  norm: 'layernorm';
}

/** Settles the norm kind for the chosen tensors; a norm without a bias (RMSNorm) drops it. */
function settleNorm(
  evidence: NormEvidence,
  names: { weight: string; bias: string | null },
  options: LoadWeightsOptions,
  accept: Accept,
  fail: (p: string) => Error,
): { norm: NormKind; eps: number | null; said: string | null; names: { weight: string; bias: string | null } } {
  const decided = decideNorm(evidence, names.bias !== null);
  const refused = refusal(accept, decided, names.weight, fail);
  if (refused) throw refused;
  const { norm, eps, said } = decided;
  if (NORMS[norm].bias) return { norm, eps, said, names };
  if (typeof options.bias === 'string') {
    throw fail(
      `expected a bias beside "${names.weight}", but it is the gain of an ${NORMS[norm].name} (${decided.said}), which has none; leave out options.bias`,
    );
  }
  return { norm, eps, said, names: { weight: names.weight, bias: null } };
}

async function loadFromCheckpoint(
  source: ByteSource,
  first: Uint8Array,
  format: 'safetensors' | 'gguf',
  options: LoadWeightsOptions,
  config: Promise<ModelConfig | null>,
  accept: Accept,
): Promise<NormWeights> {
  // GGUF's parser, and what its metadata says of the norm, are loaded only for GGUF files (most
  // pages load safetensors alone).
  const gguf = format === 'gguf' ? await import('./gguf-norm.js') : null;
  const index = gguf ? await gguf.readGgufIndex(source, first) : await readSafetensorsIndex(source, first);
  const fail = (problem: string) => new FormatError(format, problem, { source: source.describe });
  const modelConfig = await config;
  const evidence = gguf
    ? evidenceFor(gguf.ggufEvidence(index.metadata, fail), modelConfig, fail, gguf.architectureEvidence)
    : evidenceFor(NO_EVIDENCE, modelConfig, fail);
  const family = evidence.family;
  const convention: NormConvention = { family: family?.name ?? null, gain: gainRule(family, format) };
  if (convention.gain === '1' && options.weight === undefined) {
    // A LayerNorm without parameters (OLMo 1): its code is loaded only for such a family.
    const { norm, eps } = decideNorm(evidence, false);
    const { parameterless } = await import('./parameterless.js');
    const loaded = parameterless(index, modelConfig, evidence.architecture, format, fail);
    return { ...loaded, norm, eps, convention, warnings: [], bytesRead: source.bytesRead, source: source.describe };
  }
  const rmsOnly = evidence.rmsnorm !== null && evidence.layernorm === null;
  const found = resolveNormNames(index, options, fail, rmsOnly, family?.finalNorm ?? []);
  const settled = settleNorm(evidence, found, options, accept, fail);
  const names = settled.names;
  const wInfo = index.tensors.get(names.weight)!;
  const bInfo = names.bias !== null ? index.tensors.get(names.bias)! : null;
  const d = checkVector(wInfo, format, fail);
  if (bInfo) {
    const db = checkVector(bInfo, format, fail);
    if (db !== d)
      throw fail(`gain "${wInfo.name}" has ${d} values but bias "${bInfo.name}" has ${db}; expected equal lengths`);
  }
  const infos = bInfo ? [wInfo, bInfo] : [wInfo];
  const bytes = await readTensorBytes(source, infos, index.prefix);
  // A tensor named in options.weight is taken as stored unless the family adds 1 to it.
  const rule = convention.gain === '1' ? 'w' : convention.gain;
  return {
    gamma: applyGain(decodeTensor(bytes[0]!, wInfo.dtype, d), rule),
    beta: bInfo ? decodeTensor(bytes[1]!, bInfo.dtype, d) : null,
    d,
    norm: settled.norm,
    eps: settled.eps,
    architecture: evidence.architecture,
    convention: { ...convention, gain: rule },
    warnings: warningsFor(evidence, settled, format),
    names,
    dtype: wInfo.dtype,
    dtypes: { weight: wInfo.dtype, bias: bInfo?.dtype ?? null },
    format,
    bytesRead: source.bytesRead,
    source: source.describe,
  };
}

/** The config.json to consult: the one given, else the Hub sibling of a Hub URL, else none. */
function configFor(source: WeightsSource, options: LoadWeightsOptions): Promise<ModelConfig | null> {
  const pending =
    options.config === null
      ? Promise.resolve(null)
      : options.config !== undefined
        ? readModelConfig(options.config, options)
        : isNpyPair(source)
          ? Promise.resolve(null)
          : readSiblingConfig(source, options);
  // Awaited only once the checkpoint's header is in; until then a rejection is not "unhandled".
  pending.catch(() => undefined);
  return pending;
}

async function load(fn: string, input: unknown, given: unknown, accept: Accept): Promise<NormWeights> {
  // Checked before anything is requested; being async, a bad argument rejects the promise.
  const options = checkLoadOptions(fn, given);
  const source = checkWeightsSource(fn, input);
  if (isNpyPair(source)) refuseTensorNames(fn, options, 'a { gamma, beta } pair of .npy files');
  const config = configFor(source, options);
  if (isNpyPair(source)) return (await import('./npy-weights.js')).loadNpyPair(source, options, config, accept);
  const bytes = byteSourceFor(source, options);
  const fail = (problem: string) =>
    new FormatError(options.format ?? 'safetensors', problem, { source: bytes.describe });
  if (bytes.size !== undefined && bytes.size < 8) throw fail(`expected a weights file, got ${bytes.size} bytes`);
  const first = await bytes.read(0, 8);
  const format = options.format ?? (isGguf(first) ? 'gguf' : isNpy(first) ? 'npy' : 'safetensors');
  if (format === 'npy') {
    refuseTensorNames(fn, options, 'a .npy file');
    const { loadNpyPair } = await import('./npy-weights.js');
    const result = await loadNpyPair({ gamma: source, beta: null }, options, config, accept);
    // The format sniff above was a read too.
    return { ...result, bytesRead: result.bytesRead + bytes.bytesRead };
  }
  return loadFromCheckpoint(bytes, first, format, options, config, accept);
}

/**
 * Loads the gain (and bias) of a norm layer — a LayerNorm or an RMSNorm — from safetensors, GGUF
 * or .npy, reading only the header and the tensors (a few KB for GPT-2's ln_f out of a 548 MB
 * checkpoint). The result says which kind it is (`norm`) and the checkpoint's ε (`eps`, null
 * when the checkpoint does not say): from a GGUF's metadata, or from config.json (`options.config`,
 * or the Hub's config.json beside a Hub URL).
 *
 * `source`: an http(s) URL (read with Range requests), a Blob/File (in Node, fs.openAsBlob), an
 * ArrayBuffer/Uint8Array, or `{ gamma, beta }` of .npy sources.
 */
export function loadNormWeights(source: WeightsSource, options: LoadWeightsOptions = {}): Promise<NormWeights> {
  return load('loadNormWeights', source, options, 'any');
}

/**
 * Loads a LayerNorm's gain and bias (see `loadNormWeights` for sources and options). A checkpoint
 * that says its norms are RMSNorms (a Llama-family GGUF, a config.json with `rms_norm_eps`) is
 * refused with a FormatError naming what it holds, before its tensors are read: load those with
 * `loadNormWeights`.
 */
export async function loadLayerNormWeights(
  source: WeightsSource,
  options: LoadWeightsOptions = {},
): Promise<LayerNormWeights> {
  return (await load('loadLayerNormWeights', source, options, 'layernorm')) as LayerNormWeights;
}
