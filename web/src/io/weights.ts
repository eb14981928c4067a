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
import {
  architectureEvidence,
  configEvidence,
  decideNorm,
  ggufEvidence,
  type NormEvidence,
  type NormKind,
} from './norm-kind.js';
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

/**
 * The evidence a checkpoint offers: GGUF metadata first (its ε key, read as its family's norm when
 * the table has the family), then config.json, then what a GGUF's architecture is known to use.
 */
function evidenceFor(index: TensorIndex | null, config: ModelConfig | null, fail: (p: string) => Error): NormEvidence {
  const own = ggufEvidence(index?.metadata, fail);
  const fromConfig = configEvidence(config, fail);
  const about = {
    architecture: own.architecture ?? fromConfig.architecture,
    family: own.family ?? fromConfig.family,
    named: own.named ?? fromConfig.named,
  };
  if (own.layernorm || own.rmsnorm) return { ...own, ...about };
  if (fromConfig.layernorm || fromConfig.rmsnorm) return { ...fromConfig, ...about };
  return { ...architectureEvidence(own.architecture), ...about };
}

/** The warnings of a load: a family the checkpoint names that the table does not have. */
function warningsFor(
  evidence: NormEvidence,
  decided: { norm: NormKind; said: string | null },
  format: 'safetensors' | 'gguf' | 'npy',
): string[] {
  if (evidence.family !== null || evidence.named === null) return [];
  return [unplacedFamily(evidence.named, decided.norm, decided.said, format)];
}

/** Which kinds the caller takes: loadLayerNormWeights refuses another norm before reading its data. */
type Accept = NormKind | 'any';

/** The refusal of a norm the caller does not take, or null when it takes it. */
function refusal(
  accept: Accept,
  decided: { norm: NormKind; said: string | null },
  weight: string,
  fail: (p: string) => Error,
): Error | null {
  if (accept === 'any' || decided.norm === accept) return null;
  const got = NORMS[decided.norm].name;
  return fail(
    `expected a ${NORMS[accept].name}, got an ${got}: "${weight}" is the gain of an ${got} (${decided.said}); ` +
      'load it with loadNormWeights, which returns either kind',
  );
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
  // GGUF's parser is loaded only for GGUF files (most pages load safetensors alone).
  const index =
    format === 'gguf'
      ? await (await import('./gguf.js')).readGgufIndex(source, first)
      : await readSafetensorsIndex(source, first);
  const fail = (problem: string) => new FormatError(format, problem, { source: source.describe });
  const modelConfig = await config;
  const evidence = evidenceFor(index, modelConfig, fail);
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

/** Reads a 1-D .npy through a byte source: preamble, header, then exactly the data. */
async function readNpyVector(source: ByteSource): Promise<{ data: Float32Array; dtype: string }> {
  // The .npy reader is loaded only for .npy weights.
  const { decodeNpyData, readNpyHeaderFrom } = await import('./npy.js');
  const header = await readNpyHeaderFrom(source);
  if (header.shape.length !== 1) {
    throw new FormatError('npy', `expected a vector of shape (d,), got shape (${header.shape.join(', ')})`, {
      source: source.describe,
    });
  }
  const byteLength = header.count * header.itemSize;
  const data = decodeNpyData(await source.read(header.dataOffset, byteLength), header.dtype, header.count);
  return { data, dtype: header.dtype };
}

/** Progress over several sources reported as one total. */
function sharedProgress(options: LoadWeightsOptions, count: number): ByteSourceOptions[] {
  const read = new Array<number>(count).fill(0);
  const expected = new Array<number>(count).fill(0);
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  return read.map((_, i) => ({
    ...options,
    onProgress: options.onProgress
      ? (r: number, e: number) => {
          read[i] = r;
          expected[i] = e;
          options.onProgress!(sum(read), sum(expected));
        }
      : undefined,
  }));
}

async function loadNpyPair(
  pair: NpyPairSource,
  options: LoadWeightsOptions,
  config: Promise<ModelConfig | null>,
  accept: Accept,
): Promise<NormWeights> {
  const hasBeta = pair.beta !== undefined && pair.beta !== null && options.bias !== null;
  const [gOpts, bOpts] = sharedProgress(options, 2);
  const gSrc = byteSourceFor(pair.gamma, gOpts!);
  const bSrc = hasBeta ? byteSourceFor(pair.beta!, bOpts!) : null;
  const [g, b] = await Promise.all([readNpyVector(gSrc), bSrc ? readNpyVector(bSrc) : Promise.resolve(null)]);
  const fail = (problem: string) => new FormatError('npy', problem, { source: gSrc.describe });
  if (b && b.data.length !== g.data.length) {
    throw fail(
      `gamma has ${g.data.length} values but beta (${bSrc!.describe}) has ${b.data.length}; expected equal lengths`,
    );
  }
  const evidence = evidenceFor(null, await config, fail);
  const names = { weight: gSrc.describe, bias: bSrc ? bSrc.describe : null };
  const decided = decideNorm(evidence, b !== null);
  const refused = refusal(accept, decided, names.weight, fail);
  if (refused) throw refused;
  if (!NORMS[decided.norm].bias && b) {
    throw fail(
      `expected a gain only: the config says ${NORMS[decided.norm].name} (${decided.said}), which has no bias, but a beta file was given (${bSrc!.describe})`,
    );
  }
  // The gain given is the family's stored weight (np.save of Gemma's model.norm.weight is w, not 1 + w).
  const rule = gainRule(evidence.family, 'npy');
  const gain = rule === '1' ? 'w' : rule;
  return {
    gamma: applyGain(g.data, gain),
    beta: b ? b.data : null,
    d: g.data.length,
    norm: decided.norm,
    eps: decided.eps,
    architecture: evidence.architecture,
    convention: { family: evidence.family?.name ?? null, gain },
    warnings: warningsFor(evidence, decided, 'npy'),
    names,
    dtype: g.dtype,
    dtypes: { weight: g.dtype, bias: b ? b.dtype : null },
    format: 'npy',
    bytesRead: gSrc.bytesRead + (bSrc?.bytesRead ?? 0),
    source: bSrc ? `${gSrc.describe} + ${bSrc.describe}` : gSrc.describe,
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
  if (isNpyPair(source)) return loadNpyPair(source, options, config, accept);
  const bytes = byteSourceFor(source, options);
  const fail = (problem: string) =>
    new FormatError(options.format ?? 'safetensors', problem, { source: bytes.describe });
  if (bytes.size !== undefined && bytes.size < 8) throw fail(`expected a weights file, got ${bytes.size} bytes`);
  const first = await bytes.read(0, 8);
  const format = options.format ?? (isGguf(first) ? 'gguf' : isNpy(first) ? 'npy' : 'safetensors');
  if (format === 'npy') {
    refuseTensorNames(fn, options, 'a .npy file');
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
