/**
 * Checkpoints beside the fixtures' GPT-2 one, built with the shared GGUF and safetensors builders
 * (tests/io/fixtures.ts): llama.cpp GGUFs holding one final norm, and a Qwen2.5-0.5B-layout
 * safetensors whose config.json says RMSNorm.
 */
import { float32ToHalfBits, halfBitsToFloat32 } from 'layernorm-wasm';
import { buildGguf, buildSafetensors, f32Bytes, lnfValues, u16Bytes, type GgufValue } from '../io/fixtures';
import { BETA, D, GAMMA } from './fixtures';

/**
 * A GGUF holding one final norm as llama.cpp names it (`output_norm.weight`, and `.bias` for a
 * LayerNorm), with the metadata that says what it is: γ and β are the fixtures' GAMMA and BETA.
 */
export function normGguf(architecture: string, epsKey: string, eps: number): Buffer {
  const metadata: Array<[string, GgufValue]> = [
    ['general.architecture', { type: 'string', value: architecture }],
    [`${architecture}.embedding_length`, { type: 'u32', value: D }],
    [`${architecture}.attention.${epsKey}`, { type: 'f32', value: eps }],
  ];
  const tensors = [{ name: 'output_norm.weight', dims: [D], type: 0 as const, data: f32Bytes(GAMMA) }];
  if (epsKey === 'layer_norm_epsilon')
    tensors.push({ name: 'output_norm.bias', dims: [D], type: 0, data: f32Bytes(BETA) });
  return Buffer.from(buildGguf(metadata, tensors));
}

/** Qwen2.5-0.5B's hidden size and final norm's ε (its config.json: rms_norm_eps 1e-06). */
export const QWEN_D = 896;
export const QWEN_EPS = 1e-6;
export const QWEN_URL = 'https://huggingface.co/Qwen/Qwen2.5-0.5B/resolve/main/model.safetensors';
export const QWEN_CONFIG_URL = 'https://huggingface.co/Qwen/Qwen2.5-0.5B/resolve/main/config.json';

/**
 * Qwen2.5-0.5B's layout in BF16 (its embedding, 24 blocks' norms and projections, the final
 * `model.norm.weight`), real bytes only for the final norm's γ, and the config.json beside it.
 * No tensor name says RMSNorm: only the config does.
 */
export function qwenCheckpoint(): {
  file: ReturnType<typeof buildSafetensors>['file'];
  config: Uint8Array;
  gamma: Float32Array;
} {
  const bits = float32ToHalfBits(lnfValues(11, QWEN_D).gamma, 'bfloat16');
  const gamma = halfBitsToFloat32(bits, 'bfloat16');
  const d = QWEN_D;
  const tensors = [
    { name: 'model.embed_tokens.weight', shape: [151936, d] },
    { name: 'model.norm.weight', shape: [d] },
  ];
  for (let i = 0; i < 24; i++) {
    const p = `model.layers.${i}.`;
    tensors.push(
      { name: `${p}input_layernorm.weight`, shape: [d] },
      { name: `${p}post_attention_layernorm.weight`, shape: [d] },
      { name: `${p}self_attn.q_proj.weight`, shape: [d, d] },
      { name: `${p}mlp.down_proj.weight`, shape: [d, 4864] },
    );
  }
  tensors.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const built = buildSafetensors(
    tensors.map((t) => ({ ...t, dtype: 'BF16', data: t.name === 'model.norm.weight' ? u16Bytes(bits) : undefined })),
  );
  const config = {
    architectures: ['Qwen2ForCausalLM'],
    model_type: 'qwen2',
    hidden_size: d,
    num_hidden_layers: 24,
    rms_norm_eps: QWEN_EPS,
    tie_word_embeddings: true,
    torch_dtype: 'bfloat16',
  };
  return { file: built.file, config: new TextEncoder().encode(JSON.stringify(config)), gamma };
}
