/**
 * The gain a kernel must multiply by, from the weight a checkpoint stores: as stored, 1 + w for
 * the families whose norm adds the 1 at run time (transformers' Gemma, Nemotron, Qwen3-Next;
 * llama.cpp adds it when converting, so a GGUF holds 1 + w already), or ones for a norm without
 * parameters (OLMo 1). The rule of each family is the table's (architectures.ts).
 */

import { NORMS, type NormKind } from '../norms.js';
import type { GainRule, NormFamily } from './architectures.js';

export type { GainRule } from './architectures.js';

/** What the loader applied: the family it read the checkpoint as, and how γ follows from the stored w. */
export interface NormConvention {
  /** The family's name in the table (README "Which norm each family computes"); null when the checkpoint names none it knows. */
  family: string | null;
  /** 'w': γ is the stored weight; '1 + w': γ = 1 + w, rounded once to float32; '1': the norm has no parameters, γ is ones. */
  gain: GainRule;
}

/** The rule for a checkpoint of `family` in `format`: a GGUF holds what llama.cpp multiplies by. */
export function gainRule(family: NormFamily | null, format: 'safetensors' | 'gguf' | 'npy'): GainRule {
  if (family === null) return 'w';
  if (format === 'gguf') return family.gain === '1' ? '1' : 'w';
  return family.gain;
}

/** γ from the stored weight under `rule` ('1 + w' in place: each 1 + w rounded to float32, as transformers computes it). */
export function applyGain(w: Float32Array, rule: GainRule): Float32Array {
  if (rule === '1 + w') for (let i = 0; i < w.length; i++) w[i] = 1 + w[i]!;
  return w;
}

/**
 * The warning for a checkpoint that names a model (`named`, e.g. `model_type "recurrent_gemma" in
 * config.json`) whose family the table does not have: which one, and what the loader assumed in
 * its place, the kind of norm (from its ε key, `said`, when there is one) and γ as stored.
 */
export function unplacedFamily(
  named: string,
  norm: NormKind,
  said: string | null,
  format: 'safetensors' | 'gguf' | 'npy',
): string {
  const gain =
    format === 'gguf'
      ? 'γ as stored (a GGUF holds the γ llama.cpp multiplies by)'
      : 'γ = w, the weight as stored (if its code computes with 1 + w, as Gemma’s does, γ is off by 1)';
  return (
    `${named} is not a family the loader's table knows (README "Which norm, γ and ε"), so it assumed ` +
    `${NORMS[norm].name} (${said ?? 'nothing in the checkpoint says which norm'}) and ${gain}`
  );
}
