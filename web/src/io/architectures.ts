/**
 * The norm that well-known GGUF architectures (llama.cpp's `general.architecture` names) use, for
 * a file that states no ε key saying so itself: `output_norm.weight` is an RMSNorm gain in a Llama
 * and a LayerNorm gain in a GPT-2, and the tensor names alone cannot tell. Only architectures
 * whose every variant uses the one kind are listed; any other name decides nothing.
 */

import type { NormKind } from './norm-kind.js';

/** RMSNorm throughout (llama.cpp runs Mistral and Mixtral files as "llama" too). */
const RMSNORM = [
  'llama',
  'llama4',
  'mistral',
  'qwen2',
  'qwen2moe',
  'qwen3',
  'qwen3moe',
  'gemma',
  'gemma2',
  'gemma3',
  'phi3',
  'deepseek',
  'deepseek2',
  'internlm2',
  'granite',
  'mamba',
] as const;

/** LayerNorm throughout (with or without bias: both are LayerNorms). */
const LAYERNORM = [
  'gpt2',
  'gptj',
  'gptneox',
  'bloom',
  'falcon',
  'starcoder',
  'phi2',
  'mpt',
  'bert',
  'nomic-bert',
  'stablelm',
] as const;

const KINDS: ReadonlyMap<string, NormKind> = new Map<string, NormKind>([
  ...RMSNORM.map((a) => [a, 'rmsnorm'] as const),
  ...LAYERNORM.map((a) => [a, 'layernorm'] as const),
]);

/** The norm a GGUF architecture uses, or null when the name is not one of the known ones. */
export function architectureNorm(architecture: string | null): NormKind | null {
  return architecture === null ? null : (KINDS.get(architecture) ?? null);
}
