/**
 * Which norm a checkpoint holds, and its ε, from what the checkpoint says about itself: a GGUF's
 * `general.architecture` and `<arch>.attention.layer_norm_epsilon` / `…_rms_epsilon`, or a
 * config.json's `rms_norm_eps`, `layer_norm_epsilon` / `layer_norm_eps` and `model_type`.
 * llama.cpp's final `output_norm.weight` is a LayerNorm gain for GPT-2 and an RMSNorm gain for
 * Llama, so the tensor names alone cannot tell.
 */

import type { NormKind } from '../norms.js';
import { architectureNorm } from './architectures.js';
import { brief } from './brief.js';
import type { ModelConfig } from './config.js';
import type { GgufScalar } from './tensors.js';

export type { NormKind } from '../norms.js';

/** One statement about the norm: its kind, its ε (null when only the kind is known), and where it was said (for messages). */
export interface NormClue {
  norm: NormKind;
  eps: number | null;
  said: string;
}

export interface NormEvidence {
  layernorm: NormClue | null;
  rmsnorm: NormClue | null;
  /** GGUF general.architecture or config.json model_type. */
  architecture: string | null;
}

export const NO_EVIDENCE: NormEvidence = { layernorm: null, rmsnorm: null, architecture: null };

/**
 * Model types whose config calls an RMSNorm's ε `layer_norm_epsilon` (T5's norm has no mean and
 * no bias; Mamba's is an RMSNorm too).
 */
const RMS_WITH_LAYER_NORM_EPSILON = new Set([
  't5',
  'mt5',
  'umt5',
  'longt5',
  'switch_transformers',
  'mamba',
  'mamba2',
  'falcon_mamba',
]);

function checkEps(value: unknown, key: string, fail: (problem: string) => Error): number {
  const eps = typeof value === 'bigint' ? Number(value) : value;
  if (typeof eps !== 'number' || !Number.isFinite(eps) || eps < 0) {
    throw fail(`expected ${key} to be a finite number >= 0, got ${brief(value)}`);
  }
  return eps;
}

export function ggufEvidence(
  metadata: ReadonlyMap<string, GgufScalar> | undefined,
  fail: (problem: string) => Error,
): NormEvidence {
  if (!metadata) return NO_EVIDENCE;
  const arch = metadata.get('general.architecture');
  const architecture = typeof arch === 'string' ? arch : null;
  const lookup = (suffix: string): [string, GgufScalar] | null => {
    if (architecture !== null && metadata.has(`${architecture}.${suffix}`)) {
      return [`${architecture}.${suffix}`, metadata.get(`${architecture}.${suffix}`)!];
    }
    for (const [key, value] of metadata) if (key.endsWith(`.${suffix}`)) return [key, value];
    return null;
  };
  const about = architecture !== null ? `general.architecture "${architecture}", ` : '';
  const clue = (norm: NormKind, suffix: string): NormClue | null => {
    const found = lookup(suffix);
    if (!found) return null;
    const eps = checkEps(found[1], found[0], fail);
    return { norm, eps, said: `${about}${found[0]} = ${eps}` };
  };
  return {
    layernorm: clue('layernorm', 'attention.layer_norm_epsilon'),
    rmsnorm: clue('rmsnorm', 'attention.layer_norm_rms_epsilon'),
    architecture,
  };
}

export function configEvidence(config: ModelConfig | null, fail: (problem: string) => Error): NormEvidence {
  if (!config) return NO_EVIDENCE;
  // Multimodal configs keep the language model's settings in text_config.
  const nested = config.values.text_config;
  const scopes: Array<[Record<string, unknown>, string]> = [[config.values, '']];
  if (typeof nested === 'object' && nested !== null && !Array.isArray(nested)) {
    scopes.push([nested as Record<string, unknown>, 'text_config.']);
  }
  const find = (key: string): [unknown, string] | null => {
    for (const [values, prefix] of scopes) if (values[key] !== undefined) return [values[key], prefix + key];
    return null;
  };
  const type = find('model_type');
  const architecture = type && typeof type[0] === 'string' ? type[0] : null;
  const about = `${config.describe}${architecture !== null ? ` (model_type "${architecture}")` : ''}`;
  const clue = (norm: NormKind, found: [unknown, string]): NormClue => {
    const eps = checkEps(found[0], `${found[1]} in ${config.describe}`, fail);
    return { norm, eps, said: `${about}: ${found[1]} = ${eps}` };
  };
  const rms = find('rms_norm_eps');
  const ln = find('layer_norm_epsilon') ?? find('layer_norm_eps');
  const lnIsRms =
    ln !== null &&
    ((architecture !== null && RMS_WITH_LAYER_NORM_EPSILON.has(architecture)) || find('rms_norm')?.[0] === true);
  return {
    layernorm: ln && !lnIsRms ? clue('layernorm', ln) : null,
    rmsnorm: rms ? clue('rmsnorm', rms) : ln && lnIsRms ? clue('rmsnorm', ln) : null,
    architecture,
  };
}

/**
 * For a GGUF that states no ε key: the kind its general.architecture is known to use (a Llama
 * GGUF without `llama.attention.layer_norm_rms_epsilon` still holds RMSNorms). The ε stays unknown.
 */
export function architectureEvidence(architecture: string | null): NormEvidence {
  const norm = architectureNorm(architecture);
  if (norm === null) return { ...NO_EVIDENCE, architecture };
  const clue: NormClue = {
    norm,
    eps: null,
    said: `general.architecture "${architecture}", which uses ${norm === 'rmsnorm' ? 'RMSNorm' : 'LayerNorm'}; the file states no ε`,
  };
  return { layernorm: norm === 'layernorm' ? clue : null, rmsnorm: norm === 'rmsnorm' ? clue : null, architecture };
}

/** What the evidence says about a gain that has (or lacks) a bias beside it. */
export function decideNorm(
  evidence: NormEvidence,
  hasBias: boolean,
): { norm: NormKind; eps: number | null; said: string | null } {
  const { layernorm, rmsnorm } = evidence;
  // Both said (rare): an RMSNorm has no bias, so a bias beside the gain settles it.
  const clue = layernorm && rmsnorm ? (hasBias ? layernorm : rmsnorm) : (layernorm ?? rmsnorm);
  if (clue) return { norm: clue.norm, eps: clue.eps, said: clue.said };
  return { norm: 'layernorm', eps: null, said: null };
}
