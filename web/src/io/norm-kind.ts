/**
 * Which norm a checkpoint holds, and its ε, from what the checkpoint says about itself: a GGUF's
 * `general.architecture` and `<arch>.attention.layer_norm_epsilon` / `…_rms_epsilon`, or a
 * config.json's `model_type` / `architectures` and its ε keys. The family a checkpoint names
 * (architectures.ts, one table) decides the kind, which ε key is its norm's and how γ is stored;
 * for a family outside the table, a GGUF's own ε key says which kind. llama.cpp's final
 * `output_norm.weight` is a LayerNorm gain for GPT-2 and an RMSNorm gain for Llama, so the tensor
 * names alone cannot tell.
 */

import { NORMS, type NormKind } from '../norms.js';
import { classFamily, modelTypeFamily, type NormFamily } from './architectures.js';
import { brief } from './brief.js';
import type { ModelConfig } from './config.js';

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
  /** The family the checkpoint names, from the table in architectures.ts. */
  family: NormFamily | null;
  /** How the checkpoint names its model (for a message when the table has no such family), or null when it does not. */
  named: string | null;
}

export const NO_EVIDENCE: NormEvidence = {
  layernorm: null,
  rmsnorm: null,
  architecture: null,
  family: null,
  named: null,
};

export function checkEps(value: unknown, key: string, fail: (problem: string) => Error): number {
  const eps = typeof value === 'bigint' ? Number(value) : value;
  if (typeof eps !== 'number' || !Number.isFinite(eps) || eps < 0) {
    throw fail(`expected ${key} to be a finite number >= 0, got ${brief(value)}`);
  }
  return eps;
}

/** Evidence holding one clue (or none), filed under its kind. */
export function filed(
  clue: NormClue | null,
  architecture: string | null,
  family: NormFamily | null,
  named: string | null,
): NormEvidence {
  return {
    layernorm: clue?.norm === 'layernorm' ? clue : null,
    rmsnorm: clue?.norm === 'rmsnorm' ? clue : null,
    architecture,
    family,
    named,
  };
}

/** The scopes a config.json keeps its settings in: the top level, then a multimodal config's text_config. */
function configScopes(config: ModelConfig): Array<[Record<string, unknown>, string]> {
  const nested = config.values.text_config;
  const scopes: Array<[Record<string, unknown>, string]> = [[config.values, '']];
  if (typeof nested === 'object' && nested !== null && !Array.isArray(nested)) {
    scopes.push([nested as Record<string, unknown>, 'text_config.']);
  }
  return scopes;
}

/** The family a config.json names: its model_type (top level first), else a class in `architectures`. */
function configFamily(scopes: Array<[Record<string, unknown>, string]>): NormFamily | null {
  for (const [values] of scopes) {
    const family = modelTypeFamily(typeof values.model_type === 'string' ? values.model_type : null);
    if (family) return family;
  }
  for (const [values] of scopes) {
    const classes = Array.isArray(values.architectures) ? values.architectures : [];
    for (const name of classes) {
      const family = typeof name === 'string' ? classFamily(name) : null;
      if (family) return family;
    }
  }
  return null;
}

export function configEvidence(config: ModelConfig | null, fail: (problem: string) => Error): NormEvidence {
  if (!config) return NO_EVIDENCE;
  const scopes = configScopes(config);
  const find = (key: string): [unknown, string] | null => {
    for (const [values, prefix] of scopes) if (values[key] !== undefined) return [values[key], prefix + key];
    return null;
  };
  const type = find('model_type');
  const architecture = type && typeof type[0] === 'string' ? type[0] : null;
  const family = configFamily(scopes);
  const about = `${config.describe}${architecture !== null ? ` (model_type "${architecture}")` : ''}`;
  const classes = find('architectures');
  const named =
    architecture !== null
      ? `model_type "${architecture}" in ${config.describe}`
      : Array.isArray(classes?.[0]) && classes[0].length > 0
        ? `${classes[1]} ${brief(classes[0])} in ${config.describe}`
        : null;
  const clue = (norm: NormKind, found: [unknown, string]): NormClue => {
    const eps = checkEps(found[0], `${found[1]} in ${config.describe}`, fail);
    return { norm, eps, said: `${about}: ${found[1]} = ${eps}` };
  };
  const rms = find('rms_norm_eps');
  const ln = find('layer_norm_epsilon') ?? find('layer_norm_eps');
  if (family) {
    // The family's norm, with the ε its own key holds (T5 and Mamba call an RMSNorm's ε
    // layer_norm_epsilon), else any ε key the config has, else the ε its code fixes.
    const found = family.epsKeys.map(find).find((f) => f !== null) ?? rms ?? ln;
    if (found) return filed(clue(family.norm, found), architecture, family, named);
    const name = NORMS[family.norm].name;
    const said =
      family.fixedEps !== undefined
        ? `${about}: ${family.name}'s ${name} has ε = ${family.fixedEps} in its code`
        : `${about}: ${family.name} uses ${name}; the config states no ε`;
    return filed({ norm: family.norm, eps: family.fixedEps ?? null, said }, architecture, family, named);
  }
  const lnIsRms = ln !== null && find('rms_norm')?.[0] === true;
  return {
    layernorm: ln && !lnIsRms ? clue('layernorm', ln) : null,
    rmsnorm: rms ? clue('rmsnorm', rms) : ln && lnIsRms ? clue('rmsnorm', ln) : null,
    architecture,
    family: null,
    named,
  };
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
