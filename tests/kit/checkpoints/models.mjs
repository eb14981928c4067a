// Checkpoints laid out as real models publish them, with seeded final-norm values and zeros (holes)
// elsewhere: GPT-2 small as safetensors and as a llama.cpp GGUF, a GGUF holding one final norm of
// any architecture, Qwen2.5-0.5B's BF16 safetensors beside its config.json, and the small valid
// files the fuzzer mutates.
import { bfloat16Bits, bfloat16Values } from '../halves.mjs';
import { rng } from '../random.mjs';
import { f32Bytes, u16Bytes, utf8 } from './bytes.mjs';
import { buildGguf } from './gguf.mjs';
import { npy } from './npy.mjs';
import { buildSafetensors } from './safetensors.mjs';

/** The seed of the GPT-2-like ln_f that the page's suites and the README's examples serve. */
export const LN_F_SEED = 7;
export const GPT2_D = 768;

/** Seeded ln_f-like values: gains in [0.5, 2), biases in [-0.1, 0.1). */
export function lnfValues(seed, d = GPT2_D) {
  const r = rng(seed);
  const gamma = new Float32Array(d);
  const beta = new Float32Array(d);
  for (let i = 0; i < d; i++) {
    gamma[i] = 0.5 + 1.5 * r();
    beta[i] = 0.2 * (r() - 0.5);
  }
  return { gamma, beta };
}

/** config.json as a file's bytes. */
export const configJson = (config) => utf8(JSON.stringify(config));

/** GPT-2 small's config.json as the Hub serves it (the fields the loaders read). */
export const gpt2Config = () => ({
  model_type: 'gpt2',
  architectures: ['GPT2LMHeadModel'],
  layer_norm_epsilon: 1e-5,
  n_embd: GPT2_D,
});

/** GPT-2 small as published on the Hub: 160 tensors, names sorted as the safetensors writer does. */
export function gpt2Layout() {
  const d = GPT2_D;
  const t = [
    { name: 'wte.weight', shape: [50257, d] },
    { name: 'wpe.weight', shape: [1024, d] },
    { name: 'ln_f.weight', shape: [d] },
    { name: 'ln_f.bias', shape: [d] },
  ];
  for (let i = 0; i < 12; i++) {
    const p = `h.${i}.`;
    t.push(
      { name: `${p}ln_1.weight`, shape: [d] },
      { name: `${p}ln_1.bias`, shape: [d] },
      { name: `${p}attn.bias`, shape: [1, 1, 1024, 1024] },
      { name: `${p}attn.c_attn.weight`, shape: [d, 3 * d] },
      { name: `${p}attn.c_attn.bias`, shape: [3 * d] },
      { name: `${p}attn.c_proj.weight`, shape: [d, d] },
      { name: `${p}attn.c_proj.bias`, shape: [d] },
      { name: `${p}ln_2.weight`, shape: [d] },
      { name: `${p}ln_2.bias`, shape: [d] },
      { name: `${p}mlp.c_fc.weight`, shape: [d, 4 * d] },
      { name: `${p}mlp.c_fc.bias`, shape: [4 * d] },
      { name: `${p}mlp.c_proj.weight`, shape: [4 * d, d] },
      { name: `${p}mlp.c_proj.bias`, shape: [d] },
    );
  }
  return t.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The GPT-2 layout with seeded ln_f values and zeros elsewhere, 548 MB as served. */
export function gpt2Safetensors(seed, prefix = '') {
  const { gamma, beta } = lnfValues(seed);
  const tensors = gpt2Layout().map((t) => {
    const data = t.name === 'ln_f.weight' ? f32Bytes(gamma) : t.name === 'ln_f.bias' ? f32Bytes(beta) : undefined;
    return { ...t, name: prefix + t.name, dtype: 'F32', data };
  });
  return { ...buildSafetensors(tensors), gamma, beta };
}

/** A GPT-2-style GGUF: llama.cpp's names, a vocabulary big enough that the header needs several reads. */
export function gpt2Gguf(seed, { alignment = 32, vocab = 4000, version = 3 } = {}) {
  const { gamma, beta } = lnfValues(seed);
  const r = rng(seed + 1);
  const tokens = Array.from({ length: vocab }, (_, i) => `tok${i}_${Math.floor(r() * 1e6)}`);
  const small = (n) => f32Bytes(Float32Array.from({ length: n }, () => r()));
  const metadata = [
    ['general.architecture', { type: 'string', value: 'gpt2' }],
    ['gpt2.embedding_length', { type: 'u32', value: GPT2_D }],
    ['gpt2.attention.layer_norm_epsilon', { type: 'f32', value: 1e-5 }],
    ['tokenizer.ggml.tokens', { type: 'strings', value: tokens }],
    ['tokenizer.ggml.token_type', { type: 'i32s', value: tokens.map(() => 1) }],
  ];
  if (alignment !== 32) metadata.push(['general.alignment', { type: 'u32', value: alignment }]);
  const tensors = [
    { name: 'token_embd.weight', dims: [GPT2_D, 256], type: 0, data: small(GPT2_D * 256) },
    { name: 'blk.0.attn_norm.weight', dims: [GPT2_D], type: 0, data: small(GPT2_D) },
    { name: 'blk.0.attn_norm.bias', dims: [GPT2_D], type: 0, data: small(GPT2_D) },
    { name: 'output_norm.weight', dims: [GPT2_D], type: 0, data: f32Bytes(gamma) },
    { name: 'output_norm.bias', dims: [GPT2_D], type: 0, data: f32Bytes(beta) },
  ];
  return { bytes: buildGguf(metadata, tensors, { alignment, version }), gamma, beta };
}

/**
 * A GGUF holding one final norm as llama.cpp names it (`output_norm.weight`, and `.bias` when the
 * ε key is a LayerNorm's), with the metadata that says what it is; γ and β are the seeded ln_f
 * values (LN_F_SEED: the page suites' GAMMA and BETA). A Buffer, which Playwright's
 * setInputFiles takes as well.
 */
export function normGguf(architecture, epsKey, eps, { d = GPT2_D, seed = LN_F_SEED } = {}) {
  const { gamma, beta } = lnfValues(seed, d);
  const metadata = [
    ['general.architecture', { type: 'string', value: architecture }],
    [`${architecture}.embedding_length`, { type: 'u32', value: d }],
    [`${architecture}.attention.${epsKey}`, { type: 'f32', value: eps }],
  ];
  const tensors = [{ name: 'output_norm.weight', dims: [d], type: 0, data: f32Bytes(gamma) }];
  if (epsKey === 'layer_norm_epsilon')
    tensors.push({ name: 'output_norm.bias', dims: [d], type: 0, data: f32Bytes(beta) });
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
export function qwenCheckpoint() {
  const d = QWEN_D;
  const bits = bfloat16Bits(lnfValues(11, d).gamma);
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
  const config = configJson({
    architectures: ['Qwen2ForCausalLM'],
    model_type: 'qwen2',
    hidden_size: d,
    num_hidden_layers: 24,
    rms_norm_eps: QWEN_EPS,
    tie_word_embeddings: true,
    torch_dtype: 'bfloat16',
  });
  return { file: built.file, config, gamma: bfloat16Values(bits) };
}

/** Phi-3.5-MoE's ε (its config.json: rms_norm_eps 1e-05, which its code gives nn.LayerNorm). */
export const PHIMOE_EPS = 1e-5;

/**
 * Phi-3.5-MoE-instruct (`phimoe`) laid out as published, scaled down to width d = gamma.length (2
 * blocks of 2 experts, a vocabulary of 8) and in F32: every norm a LayerNorm with a bias, the final
 * one `model.norm.weight` / `model.norm.bias` holding `gamma` / `beta`, the blocks' norms other
 * values. As safetensors with its config.json, and as llama.cpp converts it: `output_norm.*`, with ε
 * filed under `phimoe.attention.layer_norm_rms_epsilon`.
 */
export function phimoeCheckpoint(gamma, beta) {
  const d = gamma.length;
  const other = new Float32Array(d).fill(9);
  const vector = (name, data) => ({ name, shape: [d], data });
  const tensors = [
    { name: 'model.embed_tokens.weight', shape: [8, d] },
    vector('model.norm.weight', gamma),
    vector('model.norm.bias', beta),
    { name: 'lm_head.weight', shape: [8, d] },
    { name: 'lm_head.bias', shape: [8] },
  ];
  const ggufTensors = [
    { name: 'token_embd.weight', dims: [d, 8], type: 0, data: new Uint8Array(32 * d) },
    { name: 'output_norm.weight', dims: [d], type: 0, data: f32Bytes(gamma) },
    { name: 'output_norm.bias', dims: [d], type: 0, data: f32Bytes(beta) },
  ];
  for (let i = 0; i < 2; i++) {
    const p = `model.layers.${i}.`;
    for (const norm of ['input_layernorm', 'post_attention_layernorm']) {
      tensors.push(vector(`${p}${norm}.weight`, other), vector(`${p}${norm}.bias`, other));
    }
    for (const proj of ['q_proj', 'k_proj', 'v_proj', 'o_proj']) {
      tensors.push(
        { name: `${p}self_attn.${proj}.weight`, shape: [d, d] },
        { name: `${p}self_attn.${proj}.bias`, shape: [d] },
      );
    }
    tensors.push({ name: `${p}block_sparse_moe.gate.weight`, shape: [2, d] });
    for (let e = 0; e < 2; e++) {
      for (const w of ['w1', 'w2', 'w3'])
        tensors.push({ name: `${p}block_sparse_moe.experts.${e}.${w}.weight`, shape: [d, d] });
    }
    for (const norm of ['attn_norm', 'ffn_norm']) {
      ggufTensors.push(
        { name: `blk.${i}.${norm}.weight`, dims: [d], type: 0, data: f32Bytes(other) },
        { name: `blk.${i}.${norm}.bias`, dims: [d], type: 0, data: f32Bytes(other) },
      );
    }
  }
  tensors.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const built = buildSafetensors(
    tensors.map((t) => ({ name: t.name, shape: t.shape, dtype: 'F32', data: t.data ? f32Bytes(t.data) : undefined })),
  );
  const config = configJson({
    architectures: ['PhiMoEForCausalLM'],
    model_type: 'phimoe',
    hidden_size: d,
    num_hidden_layers: 2,
    num_local_experts: 2,
    rms_norm_eps: PHIMOE_EPS,
    torch_dtype: 'bfloat16',
  });
  const gguf = buildGguf(
    [
      ['general.architecture', { type: 'string', value: 'phimoe' }],
      ['phimoe.embedding_length', { type: 'u32', value: d }],
      ['phimoe.attention.layer_norm_rms_epsilon', { type: 'f32', value: PHIMOE_EPS }],
    ],
    ggufTensors,
  );
  return { file: built.file, config, gguf };
}

// The fuzzer's starting points: small valid files of each format, which its I/O targets mutate.

/** ln_f.weight and ln_f.bias (F32, d = 4) and one F16 tensor more. */
export function sampleSafetensors() {
  const gamma = Float32Array.of(1, 2, 3, 4);
  const beta = Float32Array.of(0.1, 0.2, 0.3, 0.4);
  const { file } = buildSafetensors([
    { name: 'h.0.attn.bias', dtype: 'F16', shape: [2, 2], data: new Uint8Array(8) },
    { name: 'ln_f.bias', dtype: 'F32', shape: [4], data: f32Bytes(beta) },
    { name: 'ln_f.weight', dtype: 'F32', shape: [4], data: f32Bytes(gamma) },
  ]);
  return file.slice(0, file.size);
}

/** A GGUF v3 holding output_norm.weight and output_norm.bias (F32, d = 4), alignment 32. */
export function sampleGguf() {
  return buildGguf(
    [['general.architecture', { type: 'string', value: 'gpt2' }]],
    [
      { name: 'output_norm.weight', dims: [4], type: 0, data: f32Bytes(Float32Array.of(1, 2, 3, 4)) },
      { name: 'output_norm.bias', dims: [4], type: 0, data: f32Bytes(Float32Array.of(0.1, 0.2, 0.3, 0.4)) },
    ],
  );
}

/** A float32 .npy of 1, 2, 3, … in `shape`. */
export function sampleNpy(shape = [2, 3]) {
  const n = shape.reduce((a, b) => a * b, 1);
  return npy(
    new Float32Array(n).map((_, i) => i + 1),
    shape,
  );
}
