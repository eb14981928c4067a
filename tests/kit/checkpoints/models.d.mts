import type { VirtualFile } from './bytes.mjs';
import type { BuiltFile, TensorSpec } from './safetensors.mjs';

export const LN_F_SEED: number;
export const GPT2_D: number;
export function lnfValues(seed: number, d?: number): { gamma: Float32Array; beta: Float32Array };
export function configJson(config: object): Uint8Array;
export function gpt2Config(): {
  model_type: string;
  architectures: string[];
  layer_norm_epsilon: number;
  n_embd: number;
};
export function gpt2Layout(): TensorSpec[];
export function gpt2Safetensors(seed: number, prefix?: string): BuiltFile & { gamma: Float32Array; beta: Float32Array };
export function gpt2Gguf(
  seed: number,
  options?: { alignment?: number; vocab?: number; version?: number },
): { bytes: Uint8Array; gamma: Float32Array; beta: Float32Array };
export function normGguf(
  architecture: string,
  epsKey: string,
  eps: number,
  options?: { d?: number; seed?: number },
): Buffer;
export const QWEN_D: number;
export const QWEN_EPS: number;
export const QWEN_URL: string;
export const QWEN_CONFIG_URL: string;
export function qwenCheckpoint(): { file: VirtualFile; config: Uint8Array; gamma: Float32Array };
export const PHIMOE_EPS: number;
export function phimoeCheckpoint(
  gamma: Float32Array,
  beta: Float32Array,
): { file: VirtualFile; config: Uint8Array; gguf: Uint8Array };
export function sampleSafetensors(): Uint8Array;
export function sampleGguf(): Uint8Array;
export function sampleNpy(shape?: number[]): Uint8Array;
