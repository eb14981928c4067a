/**
 * The tiny models of tests/data/onnx/ (written by make-models.py) and what the tests expect of
 * each: its family (whose weights and independent forward pass, tests/kit/onnx/tiny-models.mjs,
 * give each norm's γ, β and input), how it writes its norms, and what they are.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  EPS_GPT2,
  EPS_LLAMA,
  NORM_NAMES,
  gpt2NormInputs,
  llamaNormInputs,
  readWeights,
  type Weights,
} from '../kit/onnx/tiny-models.mjs';

export const DATA = join(import.meta.dirname, '..', 'data', 'onnx');
export const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(join(DATA, name)));

type Family = 'gpt2' | 'gpt2-biasfree' | 'llama';

export interface TinyModel {
  file: string;
  family: Family;
  /** The norms' kind and form (NORMS, NORM_FORMS keys), and how the graph writes each, in order. */
  norm: 'layernorm' | 'rmsnorm';
  form: 'layernorm' | 'biasfree' | 'rmsnorm';
  ops: readonly string[];
  eps: number;
  /** Its weights are quantized: its outputs are not the float64 forward pass's. */
  quantized?: boolean;
  /**
   * onnxruntime-node 1.30 crashes (SIGSEGV) creating a session of this model at the default
   * optimization level: its graph optimizer mishandles a LayerNormalization whose B input is written
   * as an empty name (`['x', 'γ', '']`, as torch exports a LayerNorm without bias at opset 17; a
   * single such node in a model is enough). onnxruntime-web runs it. Node runs it at level 'basic'.
   */
  nodeOptimization?: 'basic';
}

const dec = 'decomposed';
const fused = [
  'LayerNormalization',
  'SkipLayerNormalization',
  'SkipLayerNormalization',
  'SkipLayerNormalization',
  'SkipLayerNormalization',
];
const simplified = ['SimplifiedLayerNormalization', ...fused.slice(1).map(() => 'SkipSimplifiedLayerNormalization')];
const five = (op: string) => [op, op, op, op, op];
const E1 = Math.fround(EPS_GPT2);
const E2 = Math.fround(EPS_LLAMA);

export const MODELS: readonly TinyModel[] = [
  {
    file: 'gpt2-opset17.onnx',
    family: 'gpt2',
    norm: 'layernorm',
    form: 'layernorm',
    ops: five('LayerNormalization'),
    eps: E1,
  },
  { file: 'gpt2-opset14.onnx', family: 'gpt2', norm: 'layernorm', form: 'layernorm', ops: five(dec), eps: E1 },
  // ε and Pow's 2 are initializers here, Constant nodes in gpt2-opset14.onnx.
  { file: 'gpt2-nopos-opset14.onnx', family: 'gpt2', norm: 'layernorm', form: 'layernorm', ops: five(dec), eps: E1 },
  {
    file: 'gpt2-q8-opset14.onnx',
    family: 'gpt2',
    norm: 'layernorm',
    form: 'layernorm',
    ops: five(dec),
    eps: E1,
    quantized: true,
  },
  {
    file: 'gpt2-biasfree-opset14.onnx',
    family: 'gpt2-biasfree',
    norm: 'layernorm',
    form: 'biasfree',
    ops: five(dec),
    eps: E1,
  },
  {
    file: 'gpt2-biasfree-opset17.onnx',
    family: 'gpt2-biasfree',
    norm: 'layernorm',
    form: 'biasfree',
    ops: five('LayerNormalization'),
    eps: E1,
    nodeOptimization: 'basic',
  },
  { file: 'gpt2-fused.onnx', family: 'gpt2', norm: 'layernorm', form: 'layernorm', ops: fused, eps: E1 },
  { file: 'llama-opset14.onnx', family: 'llama', norm: 'rmsnorm', form: 'rmsnorm', ops: five(dec), eps: E2 },
  { file: 'llama-fused.onnx', family: 'llama', norm: 'rmsnorm', form: 'rmsnorm', ops: simplified, eps: E2 },
];

export const namesOf = (m: TinyModel): readonly string[] => (m.family === 'llama' ? NORM_NAMES.llama : NORM_NAMES.gpt2);

const weightsCache = new Map<Family, Weights>();
export function weightsOf(family: Family): Weights {
  if (!weightsCache.has(family)) weightsCache.set(family, readWeights(fixture(`${family}.weights.bin`)));
  return weightsCache.get(family)!;
}

/** The norm's γ and β as the model's weights file holds them (β null for none). */
export function paramsOf(m: TinyModel, name: string): { gamma: Float32Array; beta: Float32Array | null } {
  const w = weightsOf(m.family);
  const beta = w.get(`${name}.bias`);
  return { gamma: Float32Array.from(w.get(`${name}.weight`)!.data), beta: beta ? Float32Array.from(beta.data) : null };
}

/** What each norm sees for these ids, in float64, by the kit's own forward pass. */
export function referenceInputs(m: TinyModel, ids: readonly number[]): Float64Array[] {
  const w = weightsOf(m.family);
  if (m.family === 'llama') return llamaNormInputs(w, ids);
  return gpt2NormInputs(w, ids, { bias: m.family === 'gpt2' });
}

/** A sentence's worth of token ids, all of the vocabulary's range used (the context is 32). */
export const IDS = [5, 17, 3, 60, 0, 42, 9, 31, 12, 63, 1, 2, 7, 44, 50, 22, 38, 47, 51, 17];
