/**
 * Which final norm each model family computes, and how its checkpoints store it: the one table
 * the loaders decide from, and that the README shows (a test renders this table and compares).
 * A checkpoint names its family in config.json (`model_type`, also under `text_config`, or the
 * class names in `architectures`) or in a GGUF's `general.architecture`; tensor names cannot
 * tell (llama.cpp calls every final norm `output_norm.weight`, a LayerNorm gain for GPT-2 and an
 * RMSNorm gain for Llama).
 *
 * Checked against transformers' modeling files and llama.cpp's convert_hf_to_gguf.py. Two
 * conventions matter beyond the kind of norm: some families store w and multiply by 1 + w
 * (GemmaRMSNorm, NemotronLayerNorm1P, Qwen3NextRMSNorm), which llama.cpp bakes in when it converts
 * (a GGUF holds 1 + w); and OLMo 1's LayerNorm has no parameters at all. The kinds themselves are
 * norms.ts's.
 */

import type { NormKind } from '../norms.js';

/** How the γ the kernel multiplies by follows from the stored weight w. */
export type GainRule = 'w' | '1 + w' | '1';

export interface NormFamily {
  /** As the README table and the result's `convention.family` name it. */
  readonly name: string;
  /** config.json `model_type` values. */
  readonly modelTypes: readonly string[];
  /** config.json `architectures` class-name stems: "GPT2" is GPT2LMHeadModel, GPT2Model, … */
  readonly classes: readonly string[];
  /** GGUF `general.architecture` values that are this family alone (llama.cpp converts Mistral and Mixtral as "llama"). */
  readonly gguf: readonly string[];
  readonly norm: NormKind;
  /** The final norm adds a bias β. */
  readonly bias: boolean;
  /** γ from the weight stored in transformers' checkpoints. A GGUF holds the γ llama.cpp multiplies by. */
  readonly gain: GainRule;
  /** config.json keys that hold the final norm's ε, in the order looked for. */
  readonly epsKeys: readonly string[];
  /** ε fixed in the family's code, for configs that state none. */
  readonly fixedEps?: number;
  /** The final norm's gain tensor, in transformers' checkpoints and llama.cpp's (its bias is the sibling `.bias`). */
  readonly finalNorm: readonly string[];
}

const LN_EPS = ['layer_norm_epsilon'];
const LN_EPS2 = ['layer_norm_eps'];
const RMS_EPS = ['rms_norm_eps'];
const MODEL_NORM = ['model.norm.weight'];

/** The families, one row each. */
export const FAMILIES: readonly NormFamily[] = [
  {
    name: 'GPT-2',
    modelTypes: ['gpt2'],
    classes: ['GPT2'],
    gguf: ['gpt2'],
    norm: 'layernorm',
    bias: true,
    gain: 'w',
    epsKeys: LN_EPS,
    finalNorm: ['ln_f.weight', 'transformer.ln_f.weight'],
  },
  {
    name: 'GPT-J',
    modelTypes: ['gptj'],
    classes: ['GPTJ'],
    gguf: ['gptj'],
    norm: 'layernorm',
    bias: true,
    gain: 'w',
    epsKeys: LN_EPS,
    finalNorm: ['transformer.ln_f.weight'],
  },
  {
    name: 'GPT-NeoX, Pythia',
    modelTypes: ['gpt_neox'],
    classes: ['GPTNeoX'],
    gguf: ['gptneox'],
    norm: 'layernorm',
    bias: true,
    gain: 'w',
    epsKeys: LN_EPS2,
    finalNorm: ['gpt_neox.final_layer_norm.weight'],
  },
  {
    name: 'BLOOM',
    modelTypes: ['bloom'],
    classes: ['Bloom'],
    gguf: ['bloom'],
    norm: 'layernorm',
    bias: true,
    gain: 'w',
    epsKeys: LN_EPS,
    finalNorm: ['ln_f.weight', 'transformer.ln_f.weight'],
  },
  {
    name: 'Falcon',
    modelTypes: ['falcon', 'RefinedWeb', 'RefinedWebModel'],
    classes: ['Falcon', 'RW'],
    gguf: ['falcon'],
    norm: 'layernorm',
    bias: true,
    gain: 'w',
    epsKeys: LN_EPS,
    finalNorm: ['transformer.ln_f.weight'],
  },
  {
    name: 'OPT',
    modelTypes: ['opt'],
    classes: ['OPT'],
    gguf: [],
    norm: 'layernorm',
    bias: true,
    gain: 'w',
    epsKeys: [],
    fixedEps: 1e-5,
    finalNorm: ['model.decoder.final_layer_norm.weight', 'decoder.final_layer_norm.weight'],
  },
  {
    name: 'StarCoder, GPT-BigCode',
    modelTypes: ['gpt_bigcode'],
    classes: ['GPTBigCode'],
    gguf: ['starcoder'],
    norm: 'layernorm',
    bias: true,
    gain: 'w',
    epsKeys: LN_EPS,
    finalNorm: ['transformer.ln_f.weight'],
  },
  {
    name: 'MPT',
    modelTypes: ['mpt'],
    classes: ['Mpt', 'MPT'],
    gguf: ['mpt'],
    norm: 'layernorm',
    bias: false,
    gain: 'w',
    epsKeys: LN_EPS,
    finalNorm: ['transformer.norm_f.weight'],
  },
  {
    name: 'Phi-1, 1.5, 2',
    modelTypes: ['phi'],
    classes: ['Phi'],
    gguf: ['phi2'],
    norm: 'layernorm',
    bias: true,
    gain: 'w',
    epsKeys: LN_EPS2,
    finalNorm: ['model.final_layernorm.weight'],
  },
  {
    name: 'StableLM',
    modelTypes: ['stablelm'],
    classes: ['StableLm'],
    gguf: ['stablelm'],
    norm: 'layernorm',
    bias: true,
    gain: 'w',
    epsKeys: LN_EPS2,
    finalNorm: MODEL_NORM,
  },
  {
    name: 'Cohere (Command R)',
    modelTypes: ['cohere', 'cohere2'],
    classes: ['Cohere', 'Cohere2'],
    gguf: ['command-r', 'cohere2'],
    norm: 'layernorm',
    bias: false,
    gain: 'w',
    epsKeys: LN_EPS2,
    finalNorm: MODEL_NORM,
  },
  {
    name: 'Nemotron',
    modelTypes: ['nemotron'],
    classes: ['Nemotron'],
    gguf: ['nemotron'],
    norm: 'layernorm',
    bias: true,
    gain: '1 + w',
    epsKeys: ['norm_eps'],
    finalNorm: MODEL_NORM,
  },
  {
    name: 'OLMo (1)',
    modelTypes: ['olmo'],
    classes: ['Olmo'],
    gguf: ['olmo'],
    norm: 'layernorm',
    bias: false,
    gain: '1',
    epsKeys: [],
    fixedEps: 1e-5,
    finalNorm: [],
  },
  {
    name: 'BERT',
    modelTypes: ['bert'],
    classes: ['Bert'],
    gguf: ['bert', 'nomic-bert'],
    norm: 'layernorm',
    bias: true,
    gain: 'w',
    epsKeys: LN_EPS2,
    finalNorm: [],
  },
  {
    name: 'Llama',
    modelTypes: ['llama'],
    classes: ['Llama'],
    gguf: ['llama'],
    norm: 'rmsnorm',
    bias: false,
    gain: 'w',
    epsKeys: RMS_EPS,
    finalNorm: MODEL_NORM,
  },
  {
    name: 'Llama 4',
    modelTypes: ['llama4', 'llama4_text'],
    classes: ['Llama4'],
    gguf: ['llama4'],
    norm: 'rmsnorm',
    bias: false,
    gain: 'w',
    epsKeys: RMS_EPS,
    finalNorm: ['language_model.model.norm.weight', 'model.language_model.norm.weight', 'model.norm.weight'],
  },
  {
    name: 'Mistral',
    modelTypes: ['mistral'],
    classes: ['Mistral'],
    gguf: [],
    norm: 'rmsnorm',
    bias: false,
    gain: 'w',
    epsKeys: RMS_EPS,
    finalNorm: MODEL_NORM,
  },
  {
    name: 'Mixtral',
    modelTypes: ['mixtral'],
    classes: ['Mixtral'],
    gguf: [],
    norm: 'rmsnorm',
    bias: false,
    gain: 'w',
    epsKeys: RMS_EPS,
    finalNorm: MODEL_NORM,
  },
  {
    name: 'Qwen2, Qwen2.5',
    modelTypes: ['qwen2', 'qwen2_moe'],
    classes: ['Qwen2', 'Qwen2Moe'],
    gguf: ['qwen2', 'qwen2moe'],
    norm: 'rmsnorm',
    bias: false,
    gain: 'w',
    epsKeys: RMS_EPS,
    finalNorm: MODEL_NORM,
  },
  {
    name: 'Qwen3',
    modelTypes: ['qwen3', 'qwen3_moe'],
    classes: ['Qwen3', 'Qwen3Moe'],
    gguf: ['qwen3', 'qwen3moe'],
    norm: 'rmsnorm',
    bias: false,
    gain: 'w',
    epsKeys: RMS_EPS,
    finalNorm: MODEL_NORM,
  },
  {
    name: 'Qwen3-Next',
    modelTypes: ['qwen3_next'],
    classes: ['Qwen3Next'],
    gguf: ['qwen3next'],
    norm: 'rmsnorm',
    bias: false,
    gain: '1 + w',
    epsKeys: RMS_EPS,
    finalNorm: MODEL_NORM,
  },
  {
    name: 'Gemma 1, 2, 3',
    modelTypes: ['gemma', 'gemma2', 'gemma3', 'gemma3_text'],
    classes: ['Gemma', 'Gemma2', 'Gemma3'],
    gguf: ['gemma', 'gemma2', 'gemma3'],
    norm: 'rmsnorm',
    bias: false,
    gain: '1 + w',
    epsKeys: RMS_EPS,
    finalNorm: ['model.norm.weight', 'language_model.model.norm.weight', 'model.language_model.norm.weight'],
  },
  {
    name: 'Gemma 3n',
    modelTypes: ['gemma3n', 'gemma3n_text'],
    classes: ['Gemma3n'],
    gguf: ['gemma3n'],
    norm: 'rmsnorm',
    bias: false,
    gain: 'w',
    epsKeys: RMS_EPS,
    finalNorm: ['model.language_model.norm.weight', 'model.norm.weight'],
  },
  {
    name: 'Phi-3',
    modelTypes: ['phi3', 'phimoe'],
    classes: ['Phi3', 'PhiMoE'],
    gguf: ['phi3'],
    norm: 'rmsnorm',
    bias: false,
    gain: 'w',
    epsKeys: RMS_EPS,
    finalNorm: MODEL_NORM,
  },
  {
    name: 'OLMo 2, OLMoE',
    modelTypes: ['olmo2', 'olmoe'],
    classes: ['Olmo2', 'Olmoe', 'OlmoE'],
    gguf: ['olmo2', 'olmoe'],
    norm: 'rmsnorm',
    bias: false,
    gain: 'w',
    epsKeys: RMS_EPS,
    finalNorm: MODEL_NORM,
  },
  {
    name: 'DeepSeek V2, V3',
    modelTypes: ['deepseek_v2', 'deepseek_v3'],
    classes: ['DeepseekV2', 'DeepseekV3'],
    gguf: ['deepseek', 'deepseek2'],
    norm: 'rmsnorm',
    bias: false,
    gain: 'w',
    epsKeys: RMS_EPS,
    finalNorm: MODEL_NORM,
  },
  {
    name: 'InternLM2',
    modelTypes: ['internlm2'],
    classes: ['InternLM2'],
    gguf: ['internlm2'],
    norm: 'rmsnorm',
    bias: false,
    gain: 'w',
    epsKeys: RMS_EPS,
    finalNorm: MODEL_NORM,
  },
  {
    name: 'Granite',
    modelTypes: ['granite', 'granitemoe'],
    classes: ['Granite', 'GraniteMoe'],
    gguf: ['granite', 'granitemoe'],
    norm: 'rmsnorm',
    bias: false,
    gain: 'w',
    epsKeys: RMS_EPS,
    finalNorm: MODEL_NORM,
  },
  {
    name: 'T5, mT5, UMT5, LongT5, Switch',
    modelTypes: ['t5', 'mt5', 'umt5', 'longt5', 'switch_transformers'],
    classes: ['T5', 'MT5', 'UMT5', 'LongT5', 'SwitchTransformers'],
    gguf: ['t5', 't5encoder'],
    norm: 'rmsnorm',
    bias: false,
    gain: 'w',
    // T5's config calls its RMSNorm's ε layer_norm_epsilon.
    epsKeys: LN_EPS,
    // The decoder's final norm comes before the LM head; an encoder-only file has the encoder's.
    finalNorm: [
      'decoder.final_layer_norm.weight',
      'dec.output_norm.weight',
      'encoder.final_layer_norm.weight',
      'enc.output_norm.weight',
    ],
  },
  {
    name: 'Mamba, Mamba-2, Falcon Mamba',
    modelTypes: ['mamba', 'mamba2', 'falcon_mamba'],
    classes: ['Mamba', 'Mamba2', 'FalconMamba'],
    gguf: ['mamba', 'mamba2'],
    norm: 'rmsnorm',
    bias: false,
    gain: 'w',
    // Mamba's config calls its RMSNorm's ε layer_norm_epsilon too.
    epsKeys: LN_EPS,
    finalNorm: ['backbone.norm_f.weight'],
  },
];

const BY_MODEL_TYPE = new Map(FAMILIES.flatMap((f) => f.modelTypes.map((t) => [t, f] as const)));
const BY_GGUF = new Map(FAMILIES.flatMap((f) => f.gguf.map((a) => [a, f] as const)));
const CLASS = /^(.*?)(For[A-Z]\w*|Model|LMHeadModel)$/;
const BY_CLASS = new Map(FAMILIES.flatMap((f) => f.classes.map((c) => [c, f] as const)));

/** The family of a GGUF `general.architecture`, or null. */
export function ggufFamily(architecture: string | null): NormFamily | null {
  return architecture === null ? null : (BY_GGUF.get(architecture) ?? null);
}

/** The family of a config.json `model_type`, or null. */
export function modelTypeFamily(modelType: string | null): NormFamily | null {
  return modelType === null ? null : (BY_MODEL_TYPE.get(modelType) ?? null);
}

/** The family of a class name in config.json `architectures` (GemmaForCausalLM, GPT2LMHeadModel), or null. */
export function classFamily(className: string): NormFamily | null {
  const stem = CLASS.exec(className)?.[1];
  return stem ? (BY_CLASS.get(stem) ?? null) : null;
}
