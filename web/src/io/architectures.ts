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

/**
 * The families, one line each: name | config.json model_type values | GGUF general.architecture
 * values | final norm | ε in config.json | final norm's gain tensor names.
 *   final norm: L LayerNorm with β, l LayerNorm without β, 0 LayerNorm without γ or β, R RMSNorm;
 *               a trailing + means the stored w is used as 1 + w.
 *   ε: the config key (e: layer_norm_epsilon, E: layer_norm_eps, r: rms_norm_eps), or =ε fixed in
 *      the family's code.
 *   names: space-separated, in the order looked for, where the names every loader knows
 *   (ln_f.weight, transformer.ln_f.weight, output_norm.weight, and model.norm.weight for an
 *   RMSNorm) are not the family's. A family's `architectures` classes are its model types'
 *   (GemmaForCausalLM, GPT2LMHeadModel, …).
 * Checked row by row in tests/io/families.test.ts; the README shows it rendered.
 */
const TABLE = `
GPT-2|gpt2|gpt2|L|e|
GPT-J|gptj|gptj|L|e|
GPT-NeoX, Pythia|gpt_neox|gptneox|L|E|gpt_neox.final_layer_norm.weight
BLOOM|bloom|bloom|L|e|
Falcon|falcon|falcon|L|e|
OPT|opt||L|=1e-5|model.decoder.final_layer_norm.weight decoder.final_layer_norm.weight
StarCoder, GPT-BigCode|gpt_bigcode|starcoder|L|e|
MPT|mpt|mpt|l|e|transformer.norm_f.weight
Phi-1, 1.5, 2|phi|phi2|L|E|model.final_layernorm.weight
StableLM|stablelm|stablelm|L|E|model.norm.weight
Cohere (Command R)|cohere cohere2|command-r cohere2|l|E|model.norm.weight
Nemotron|nemotron|nemotron|L+|norm_eps|model.norm.weight
OLMo (1)|olmo|olmo|0|=1e-5|
BERT|bert|bert nomic-bert|L|E|
Llama|llama|llama|R|r|
Llama 4|llama4 llama4_text|llama4|R|r|language_model.model.norm.weight model.language_model.norm.weight
Mistral|mistral||R|r|
Mixtral|mixtral||R|r|
Qwen2, Qwen2.5|qwen2 qwen2_moe|qwen2 qwen2moe|R|r|
Qwen3|qwen3 qwen3_moe|qwen3 qwen3moe|R|r|
Qwen3-Next|qwen3_next|qwen3next|R+|r|
Gemma 1, 2, 3|gemma gemma2 gemma3 gemma3_text|gemma gemma2 gemma3|R+|r|language_model.model.norm.weight model.language_model.norm.weight
Gemma 3n|gemma3n gemma3n_text|gemma3n|R|r|model.language_model.norm.weight
Phi-3|phi3|phi3|R|r|
Phi-3.5-MoE|phimoe|phimoe|L|r|model.norm.weight
OLMo 2, OLMoE|olmo2 olmoe|olmo2 olmoe|R|r|
DeepSeek V2, V3|deepseek_v2 deepseek_v3|deepseek deepseek2|R|r|
InternLM2|internlm2|internlm2|R|r|
Granite|granite granitemoe|granite granitemoe|R|r|
T5, mT5, UMT5, LongT5, Switch|t5 mt5 umt5 longt5 switch_transformers|t5 t5encoder|R|e|decoder.final_layer_norm.weight dec.output_norm.weight encoder.final_layer_norm.weight enc.output_norm.weight
Mamba, Mamba-2, Falcon Mamba|mamba mamba2 falcon_mamba|mamba mamba2|R|e|backbone.norm_f.weight
`;
// T5 and Mamba call their RMSNorm's ε layer_norm_epsilon, and Phi-3.5-MoE calls its LayerNorm's
// rms_norm_eps (nn.LayerNorm with a bias, unlike Phi-3's RMSNorm; llama.cpp writes it as
// phimoe.attention.layer_norm_rms_epsilon and runs it as an RMSNorm plus β, which is not what
// the model was trained with); T5's decoder's final norm comes before the LM head (an
// encoder-only file has the encoder's); llama.cpp converts Mistral and Mixtral as "llama"; OPT
// states no ε (nn.LayerNorm's default) and OLMo 1 fixes it.

const EPS_KEYS: Record<string, string> = { e: 'layer_norm_epsilon', E: 'layer_norm_eps', r: 'rms_norm_eps' };
const words = (field: string) => field.split(' ').filter(Boolean);

function family(line: string): NormFamily {
  const [name = '', types = '', gguf = '', kind = '', eps = '', names = ''] = line.split('|');
  return {
    name,
    modelTypes: words(types),
    gguf: words(gguf),
    norm: kind[0] === 'R' ? 'rmsnorm' : 'layernorm',
    bias: kind[0] === 'L',
    gain: kind[0] === '0' ? '1' : kind.endsWith('+') ? '1 + w' : 'w',
    epsKeys: eps[0] === '=' ? [] : [EPS_KEYS[eps] ?? eps],
    ...(eps[0] === '=' ? { fixedEps: Number(eps.slice(1)) } : {}),
    finalNorm: words(names),
  };
}

/** The families, one row each. */
export const FAMILIES: readonly NormFamily[] = TABLE.trim().split('\n').map(family);

const BY_MODEL_TYPE = new Map(FAMILIES.flatMap((f) => f.modelTypes.map((t) => [t, f] as const)));
const BY_GGUF = new Map(FAMILIES.flatMap((f) => f.gguf.map((a) => [a, f] as const)));
/** Model types as a class name spells them: gpt_neox → gptneox (GPTNeoXForCausalLM). */
const BY_CLASS = new Map(
  FAMILIES.flatMap((f) => f.modelTypes.map((t) => [t.replaceAll('_', '').toLowerCase(), f] as const)),
);

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
  const stem = /^(.*?)(For[A-Z]\w*|Model|LMHeadModel)$/.exec(className)?.[1];
  return stem ? (BY_CLASS.get(stem.toLowerCase()) ?? null) : null;
}
