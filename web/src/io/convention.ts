/**
 * The gain a kernel must multiply by, from the weight a checkpoint stores: as stored, 1 + w for
 * the families whose norm adds the 1 at run time (transformers' Gemma, Nemotron, Qwen3-Next;
 * llama.cpp adds it when converting, so a GGUF holds 1 + w already), or ones for a norm without
 * parameters (OLMo 1). The rule of each family is the table's (architectures.ts).
 */

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
