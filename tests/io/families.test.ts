/**
 * Each model family's final norm as its own code computes it, from a checkpoint this test builds
 * the way the family's checkpoints are laid out (its final norm's name beside per-layer norms that
 * must not be taken, its config.json, and a llama.cpp GGUF where llama.cpp has the family). The
 * expectations are written here from transformers' modeling files and llama.cpp's converter, not
 * read from the loader's table, which a last test renders and finds in the README.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { init, layerNormReference, type LayerNormRuntime } from '../../dist/index.js';
import { loadLayerNormWeights, loadNormWeights, writeNpy, type NormWeights } from '../../web/src/io/index.js';
import { FAMILIES, type NormFamily } from '../../web/src/io/architectures.js';
import { NORMS, type NormKind } from '../../web/src/norms.js';
import {
  buildGguf,
  buildSafetensors,
  f32Bytes,
  phimoeCheckpoint,
  PHIMOE_EPS,
  toBytes,
  type GgufValue,
} from '../kit/checkpoints/index.mjs';

const D = 8;
/** A stored weight w with zeros and negatives, so that w and 1 + w differ everywhere. */
const W = Float32Array.of(0.5, -0.25, 0, 1, 0.125, -1, 2, 0.75);
const B = Float32Array.of(0.1, -0.2, 0.3, 0, -0.05, 0.5, -1, 0.25);
const OTHER = Float32Array.of(9, 9, 9, 9, 9, 9, 9, 9);
const ONE_PLUS_W = Float32Array.from(W, (w) => 1 + w);

interface Case {
  /** The family's name in the loader's table. */
  family: string;
  config: Record<string, unknown>;
  /** The final norm's gain in a transformers checkpoint; null for a norm without parameters. */
  weight: string | null;
  bias: boolean;
  norm: NormKind;
  gain: 'w' | '1 + w' | '1';
  eps: number;
  /**
   * llama.cpp's general.architecture and final norm's name, where llama.cpp has the family, and the
   * ε key its converter writes when it is not the norm's own.
   */
  gguf?: { arch: string; weight: string | null; epsKey?: string };
}

const ln = (key: string, eps: number) => ({ [key]: eps });
/** Written from transformers (modeling_*.py: the final norm's class, its bias, its ε key) and llama.cpp. */
// prettier-ignore
const CASES: Case[] = [
  { family: 'GPT-2', config: { model_type: 'gpt2', ...ln('layer_norm_epsilon', 1e-5) }, weight: 'ln_f.weight', bias: true, norm: 'layernorm', gain: 'w', eps: 1e-5, gguf: { arch: 'gpt2', weight: 'output_norm.weight' } },
  { family: 'GPT-J', config: { model_type: 'gptj', ...ln('layer_norm_epsilon', 1e-5) }, weight: 'transformer.ln_f.weight', bias: true, norm: 'layernorm', gain: 'w', eps: 1e-5, gguf: { arch: 'gptj', weight: 'output_norm.weight' } },
  { family: 'GPT-NeoX, Pythia', config: { model_type: 'gpt_neox', ...ln('layer_norm_eps', 1e-5) }, weight: 'gpt_neox.final_layer_norm.weight', bias: true, norm: 'layernorm', gain: 'w', eps: 1e-5, gguf: { arch: 'gptneox', weight: 'output_norm.weight' } },
  { family: 'BLOOM', config: { model_type: 'bloom', ...ln('layer_norm_epsilon', 1e-5) }, weight: 'ln_f.weight', bias: true, norm: 'layernorm', gain: 'w', eps: 1e-5, gguf: { arch: 'bloom', weight: 'output_norm.weight' } },
  { family: 'Falcon', config: { model_type: 'falcon', ...ln('layer_norm_epsilon', 1e-5) }, weight: 'transformer.ln_f.weight', bias: true, norm: 'layernorm', gain: 'w', eps: 1e-5, gguf: { arch: 'falcon', weight: 'output_norm.weight' } },
  // OPT's config states no ε: nn.LayerNorm's default, 1e-5.
  { family: 'OPT', config: { model_type: 'opt', hidden_size: D }, weight: 'model.decoder.final_layer_norm.weight', bias: true, norm: 'layernorm', gain: 'w', eps: 1e-5 },
  { family: 'StarCoder, GPT-BigCode', config: { model_type: 'gpt_bigcode', ...ln('layer_norm_epsilon', 1e-5) }, weight: 'transformer.ln_f.weight', bias: true, norm: 'layernorm', gain: 'w', eps: 1e-5, gguf: { arch: 'starcoder', weight: 'output_norm.weight' } },
  { family: 'MPT', config: { model_type: 'mpt', no_bias: true, ...ln('layer_norm_epsilon', 1e-5) }, weight: 'transformer.norm_f.weight', bias: false, norm: 'layernorm', gain: 'w', eps: 1e-5, gguf: { arch: 'mpt', weight: 'output_norm.weight' } },
  { family: 'Phi-1, 1.5, 2', config: { model_type: 'phi', ...ln('layer_norm_eps', 1e-5) }, weight: 'model.final_layernorm.weight', bias: true, norm: 'layernorm', gain: 'w', eps: 1e-5, gguf: { arch: 'phi2', weight: 'output_norm.weight' } },
  { family: 'StableLM', config: { model_type: 'stablelm', ...ln('layer_norm_eps', 1e-5) }, weight: 'model.norm.weight', bias: true, norm: 'layernorm', gain: 'w', eps: 1e-5, gguf: { arch: 'stablelm', weight: 'output_norm.weight' } },
  // CohereLayerNorm: centred, a weight and no bias.
  { family: 'Cohere (Command R)', config: { model_type: 'cohere', ...ln('layer_norm_eps', 1e-5) }, weight: 'model.norm.weight', bias: false, norm: 'layernorm', gain: 'w', eps: 1e-5, gguf: { arch: 'command-r', weight: 'output_norm.weight' } },
  // NemotronLayerNorm1P: F.layer_norm(x, …, weight + 1, bias, eps=config.norm_eps).
  { family: 'Nemotron', config: { model_type: 'nemotron', norm_eps: 1e-5 }, weight: 'model.norm.weight', bias: true, norm: 'layernorm', gain: '1 + w', eps: 1e-5, gguf: { arch: 'nemotron', weight: 'output_norm.weight' } },
  // OlmoLayerNorm: F.layer_norm(x, shape, None, None, eps=1e-5): nothing stored.
  { family: 'OLMo (1)', config: { model_type: 'olmo', hidden_size: D }, weight: null, bias: false, norm: 'layernorm', gain: '1', eps: 1e-5, gguf: { arch: 'olmo', weight: null } },
  { family: 'Llama', config: { model_type: 'llama', rms_norm_eps: 1e-5 }, weight: 'model.norm.weight', bias: false, norm: 'rmsnorm', gain: 'w', eps: 1e-5, gguf: { arch: 'llama', weight: 'output_norm.weight' } },
  { family: 'Llama 4', config: { model_type: 'llama4', text_config: { model_type: 'llama4_text', rms_norm_eps: 1e-5 } }, weight: 'language_model.model.norm.weight', bias: false, norm: 'rmsnorm', gain: 'w', eps: 1e-5, gguf: { arch: 'llama4', weight: 'output_norm.weight' } },
  { family: 'Mistral', config: { model_type: 'mistral', rms_norm_eps: 1e-5 }, weight: 'model.norm.weight', bias: false, norm: 'rmsnorm', gain: 'w', eps: 1e-5 },
  { family: 'Mixtral', config: { model_type: 'mixtral', rms_norm_eps: 1e-5 }, weight: 'model.norm.weight', bias: false, norm: 'rmsnorm', gain: 'w', eps: 1e-5 },
  { family: 'Qwen2, Qwen2.5', config: { model_type: 'qwen2', rms_norm_eps: 1e-6 }, weight: 'model.norm.weight', bias: false, norm: 'rmsnorm', gain: 'w', eps: 1e-6, gguf: { arch: 'qwen2', weight: 'output_norm.weight' } },
  { family: 'Qwen3', config: { model_type: 'qwen3', rms_norm_eps: 1e-6 }, weight: 'model.norm.weight', bias: false, norm: 'rmsnorm', gain: 'w', eps: 1e-6, gguf: { arch: 'qwen3', weight: 'output_norm.weight' } },
  // Qwen3NextRMSNorm: zeros-initialized weight, output * (1.0 + weight.float()).
  { family: 'Qwen3-Next', config: { model_type: 'qwen3_next', rms_norm_eps: 1e-6 }, weight: 'model.norm.weight', bias: false, norm: 'rmsnorm', gain: '1 + w', eps: 1e-6, gguf: { arch: 'qwen3next', weight: 'output_norm.weight' } },
  // GemmaRMSNorm: output * (1.0 + self.weight.float()); llama.cpp stores 1 + w.
  { family: 'Gemma 1, 2, 3', config: { model_type: 'gemma', rms_norm_eps: 1e-6 }, weight: 'model.norm.weight', bias: false, norm: 'rmsnorm', gain: '1 + w', eps: 1e-6, gguf: { arch: 'gemma', weight: 'output_norm.weight' } },
  { family: 'Gemma 1, 2, 3', config: { model_type: 'gemma2', rms_norm_eps: 1e-6 }, weight: 'model.norm.weight', bias: false, norm: 'rmsnorm', gain: '1 + w', eps: 1e-6, gguf: { arch: 'gemma2', weight: 'output_norm.weight' } },
  { family: 'Gemma 1, 2, 3', config: { model_type: 'gemma3_text', rms_norm_eps: 1e-6 }, weight: 'model.norm.weight', bias: false, norm: 'rmsnorm', gain: '1 + w', eps: 1e-6, gguf: { arch: 'gemma3', weight: 'output_norm.weight' } },
  // Gemma 3 with vision: the text model's settings in text_config, its norm under language_model.
  { family: 'Gemma 1, 2, 3', config: { model_type: 'gemma3', text_config: { model_type: 'gemma3_text', rms_norm_eps: 1e-6 } }, weight: 'language_model.model.norm.weight', bias: false, norm: 'rmsnorm', gain: '1 + w', eps: 1e-6 },
  // Gemma3nRMSNorm multiplies by the weight itself (initialized to ones).
  { family: 'Gemma 3n', config: { model_type: 'gemma3n', text_config: { model_type: 'gemma3n_text', rms_norm_eps: 1e-6 } }, weight: 'model.language_model.norm.weight', bias: false, norm: 'rmsnorm', gain: 'w', eps: 1e-6, gguf: { arch: 'gemma3n', weight: 'output_norm.weight' } },
  { family: 'Phi-3', config: { model_type: 'phi3', rms_norm_eps: 1e-5 }, weight: 'model.norm.weight', bias: false, norm: 'rmsnorm', gain: 'w', eps: 1e-5, gguf: { arch: 'phi3', weight: 'output_norm.weight' } },
  // PhimoeModel.norm: nn.LayerNorm(hidden_size, eps=config.rms_norm_eps), with a bias; llama.cpp
  // files that ε under layer_norm_rms_epsilon.
  { family: 'Phi-3.5-MoE', config: { model_type: 'phimoe', rms_norm_eps: 1e-5 }, weight: 'model.norm.weight', bias: true, norm: 'layernorm', gain: 'w', eps: 1e-5, gguf: { arch: 'phimoe', weight: 'output_norm.weight', epsKey: 'layer_norm_rms_epsilon' } },
  { family: 'OLMo 2, OLMoE', config: { model_type: 'olmo2', rms_norm_eps: 1e-6 }, weight: 'model.norm.weight', bias: false, norm: 'rmsnorm', gain: 'w', eps: 1e-6, gguf: { arch: 'olmo2', weight: 'output_norm.weight' } },
  { family: 'DeepSeek V2, V3', config: { model_type: 'deepseek_v3', rms_norm_eps: 1e-6 }, weight: 'model.norm.weight', bias: false, norm: 'rmsnorm', gain: 'w', eps: 1e-6, gguf: { arch: 'deepseek2', weight: 'output_norm.weight' } },
  { family: 'InternLM2', config: { model_type: 'internlm2', rms_norm_eps: 1e-5 }, weight: 'model.norm.weight', bias: false, norm: 'rmsnorm', gain: 'w', eps: 1e-5, gguf: { arch: 'internlm2', weight: 'output_norm.weight' } },
  { family: 'Granite', config: { model_type: 'granite', rms_norm_eps: 1e-5 }, weight: 'model.norm.weight', bias: false, norm: 'rmsnorm', gain: 'w', eps: 1e-5, gguf: { arch: 'granite', weight: 'output_norm.weight' } },
  // T5LayerNorm: an RMSNorm (no mean, no bias) whose ε the config calls layer_norm_epsilon.
  { family: 'T5, mT5, UMT5, LongT5, Switch', config: { model_type: 't5', ...ln('layer_norm_epsilon', 1e-6) }, weight: 'decoder.final_layer_norm.weight', bias: false, norm: 'rmsnorm', gain: 'w', eps: 1e-6, gguf: { arch: 't5', weight: 'dec.output_norm.weight' } },
  { family: 'T5, mT5, UMT5, LongT5, Switch', config: { model_type: 'umt5', ...ln('layer_norm_epsilon', 1e-6) }, weight: 'decoder.final_layer_norm.weight', bias: false, norm: 'rmsnorm', gain: 'w', eps: 1e-6 },
  { family: 'Mamba, Mamba-2, Falcon Mamba', config: { model_type: 'mamba', ...ln('layer_norm_epsilon', 1e-5) }, weight: 'backbone.norm_f.weight', bias: false, norm: 'rmsnorm', gain: 'w', eps: 1e-5, gguf: { arch: 'mamba', weight: 'output_norm.weight' } },
  // BERT has no final norm: a LayerNorm named explicitly.
  { family: 'BERT', config: { model_type: 'bert', ...ln('layer_norm_eps', 1e-12) }, weight: 'bert.embeddings.LayerNorm.weight', bias: true, norm: 'layernorm', gain: 'w', eps: 1e-12 },
];

/** Per-layer norms beside the final one, named as the final one's siblings would be. */
function distractors(c: Case): Array<{ name: string; data: Float32Array }> {
  const prefix = c.weight?.replace(/[^.]*\.weight$/, '') ?? 'model.';
  const out = [{ name: `${prefix}layers.0.input_layernorm.weight`, data: OTHER }];
  if (c.bias) out.push({ name: `${prefix}layers.0.input_layernorm.bias`, data: OTHER });
  return out;
}

function safetensorsFor(c: Case): Uint8Array {
  const tensors = [...distractors(c), { name: 'model.embed_tokens.weight', data: new Float32Array(4 * D) }];
  if (c.weight) {
    tensors.push({ name: c.weight, data: W });
    if (c.bias) tensors.push({ name: c.weight.replace(/weight$/, 'bias'), data: B });
  }
  // T5 has both stacks' final norms: the decoder's is the one before the LM head.
  if (c.weight === 'decoder.final_layer_norm.weight')
    tensors.push({ name: 'encoder.final_layer_norm.weight', data: OTHER });
  tensors.sort((a, b) => (a.name < b.name ? -1 : 1));
  return toBytes(
    buildSafetensors(
      tensors.map((t) => ({
        name: t.name,
        dtype: 'F32',
        shape: t.name === 'model.embed_tokens.weight' ? [4, D] : [D],
        data: f32Bytes(t.data),
      })),
    ).file,
  );
}

/** A llama.cpp GGUF of the family: what its converter writes, 1 + w included where it adds it. */
function ggufFor(c: Case): Uint8Array {
  const { arch, weight } = c.gguf!;
  const key = c.gguf!.epsKey ?? (c.norm === 'rmsnorm' ? 'layer_norm_rms_epsilon' : 'layer_norm_epsilon');
  const metadata: Array<[string, GgufValue]> = [
    ['general.architecture', { type: 'string', value: arch }],
    [`${arch}.embedding_length`, { type: 'u32', value: D }],
    [`${arch}.attention.${key}`, { type: 'f32', value: c.eps }],
  ];
  const stored = c.gain === '1 + w' ? ONE_PLUS_W : W;
  const tensors = [{ name: 'blk.0.attn_norm.weight', dims: [D], type: 0 as const, data: f32Bytes(OTHER) }];
  if (weight) {
    tensors.push({ name: weight, dims: [D], type: 0, data: f32Bytes(stored) });
    if (c.bias) tensors.push({ name: weight.replace(/weight$/, 'bias'), dims: [D], type: 0, data: f32Bytes(B) });
  }
  if (weight === 'dec.output_norm.weight')
    tensors.push({ name: 'enc.output_norm.weight', dims: [D], type: 0, data: f32Bytes(OTHER) });
  return buildGguf(metadata, tensors);
}

function expectLoaded(r: NormWeights, c: Case, gamma: Float32Array, eps: number, gain: Case['gain']) {
  expect([r.norm, r.d, r.eps, r.convention]).toEqual([c.norm, D, eps, { family: c.family, gain }]);
  expect(r.gamma).toEqual(gamma);
  expect(r.beta).toEqual(c.bias ? B : null);
}

const ones = new Float32Array(D).fill(1);

describe('each family’s final norm, as its code computes it', () => {
  for (const c of CASES) {
    const what = `${c.family} (${String(c.config.model_type)})`;
    it(`${what}: safetensors and config.json give ${c.norm === 'rmsnorm' ? 'RMSNorm' : 'LayerNorm'}, ${c.bias ? 'β' : 'no β'}, γ = ${c.gain}`, async () => {
      const options = c.family === 'BERT' ? { weight: c.weight!, config: c.config } : { config: c.config };
      const r = await loadNormWeights(safetensorsFor(c), options);
      expectLoaded(r, c, c.gain === '1' ? ones : c.gain === '1 + w' ? ONE_PLUS_W : W, c.eps, c.gain);
      expect(r.names.weight).toBe(c.weight ?? 'model.norm');
      // A LayerNorm loads through loadLayerNormWeights too; an RMSNorm is refused there.
      if (c.norm === 'layernorm')
        expect((await loadLayerNormWeights(safetensorsFor(c), options)).gamma).toEqual(r.gamma);
      else
        await expect(loadLayerNormWeights(safetensorsFor(c), options)).rejects.toThrow(
          'expected a LayerNorm, got an RMSNorm',
        );
    });
    if (c.gguf) {
      it(`${what}: llama.cpp's GGUF (${c.gguf.arch}) is taken as stored`, async () => {
        const r = await loadNormWeights(ggufFor(c));
        const stored = c.gain === '1' ? ones : c.gain === '1 + w' ? ONE_PLUS_W : W;
        // GGUF keeps ε as float32; the loader reports the shortest decimal that rounds to it.
        expectLoaded(r, c, stored, c.eps, c.gain === '1' ? '1' : 'w');
      });
    }
  }

  it('a config that names its family only by class (architectures) is read the same', async () => {
    const c = CASES.find((x) => x.config.model_type === 'gemma')!;
    const r = await loadNormWeights(safetensorsFor(c), {
      config: { architectures: ['GemmaForCausalLM'], rms_norm_eps: 1e-6 },
    });
    expect([r.norm, r.convention]).toEqual(['rmsnorm', { family: 'Gemma 1, 2, 3', gain: '1 + w' }]);
    expect(r.gamma).toEqual(ONE_PLUS_W);
    const gpt2 = await loadNormWeights(safetensorsFor(CASES[0]!), { config: { architectures: ['GPT2LMHeadModel'] } });
    expect([gpt2.norm, gpt2.convention.family]).toEqual(['layernorm', 'GPT-2']);
  });

  it('a checkpoint that names no family it knows is taken as stored, by its ε keys', async () => {
    const c = CASES.find((x) => x.config.model_type === 'llama')!;
    const r = await loadNormWeights(safetensorsFor(c), { config: { model_type: 'somethingnew', rms_norm_eps: 1e-6 } });
    expect([r.norm, r.eps, r.convention]).toEqual(['rmsnorm', 1e-6, { family: null, gain: 'w' }]);
    expect(r.gamma).toEqual(W);
  });

  it('every family in the table loads without a warning', async () => {
    for (const c of CASES) {
      const options = c.family === 'BERT' ? { weight: c.weight!, config: c.config } : { config: c.config };
      expect((await loadNormWeights(safetensorsFor(c), options)).warnings, c.family).toEqual([]);
      if (c.gguf) expect((await loadNormWeights(ggufFor(c))).warnings, c.family).toEqual([]);
    }
  });
});

describe('a family outside the table is named, with what the loader assumed', () => {
  // RecurrentGemma (transformers' recurrent_gemma) computes its RMSNorm with 1 + w, as Gemma does,
  // and is not in the table: the loader cannot know, and says so.
  const w = toBytes(
    buildSafetensors([{ name: 'model.final_norm.weight', dtype: 'F32', shape: [D], data: f32Bytes(W) }]).file,
  );
  const assumed =
    ' is not a family the loader\'s table knows (README "Which norm, γ and ε"), so it assumed RMSNorm (the config object (model_type "recurrent_gemma"): rms_norm_eps = 0.000001) and γ = w, the weight as stored (if its code computes with 1 + w, as Gemma’s does, γ is off by 1)';

  it('RecurrentGemma by its model_type: RMSNorm from rms_norm_eps, γ as stored, and a warning saying so', async () => {
    const r = await loadNormWeights(w, { config: { model_type: 'recurrent_gemma', rms_norm_eps: 1e-6 } });
    expect([r.norm, r.eps, r.convention]).toEqual(['rmsnorm', 1e-6, { family: null, gain: 'w' }]);
    expect(r.gamma).toEqual(W);
    expect(r.warnings).toEqual([`model_type "recurrent_gemma" in the config object${assumed}`]);
  });

  it('by its class alone (architectures), and through .npy files', async () => {
    const byClass = await loadNormWeights(w, {
      config: { architectures: ['RecurrentGemmaForCausalLM'], rms_norm_eps: 1e-6 },
    });
    expect(byClass.warnings).toEqual([
      'architectures ["RecurrentGemmaForCausalLM"] in the config object is not a family the loader\'s table knows ' +
        '(README "Which norm, γ and ε"), so it assumed RMSNorm (the config object: rms_norm_eps = 0.000001) and γ = w, ' +
        'the weight as stored (if its code computes with 1 + w, as Gemma’s does, γ is off by 1)',
    ]);
    const npy = await loadNormWeights(
      { gamma: writeNpy(W, [D]) },
      { config: { model_type: 'recurrent_gemma', rms_norm_eps: 1e-6 } },
    );
    expect(npy.warnings).toEqual([`model_type "recurrent_gemma" in the config object${assumed}`]);
  });

  it('a GGUF of an architecture outside the table: the kind its ε key says, γ as stored, and a warning', async () => {
    const r = await loadNormWeights(
      buildGguf(
        [
          ['general.architecture', { type: 'string', value: 'exaone' }],
          ['exaone.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-5 }],
        ],
        [{ name: 'output_norm.weight', dims: [D], type: 0, data: f32Bytes(W) }],
      ),
    );
    expect([r.norm, r.eps, r.convention, r.gamma]).toEqual(['rmsnorm', 1e-5, { family: null, gain: 'w' }, W]);
    expect(r.warnings).toEqual([
      'general.architecture "exaone" is not a family the loader\'s table knows (README "Which norm, γ and ε"), so it ' +
        'assumed RMSNorm (general.architecture "exaone", exaone.attention.layer_norm_rms_epsilon = 0.00001) and γ as ' +
        'stored (a GGUF holds the γ llama.cpp multiplies by)',
    ]);
  });

  it('a checkpoint that names no model says nothing: there is no family to place', async () => {
    const c = CASES[0]!;
    expect((await loadNormWeights(safetensorsFor(c), { config: null })).warnings).toEqual([]);
    expect((await loadNormWeights(safetensorsFor(c), { config: { layer_norm_epsilon: 1e-5 } })).warnings).toEqual([]);
  });
});

describe('Gemma computes with 1 + w', () => {
  let rt: LayerNormRuntime;
  beforeAll(async () => {
    rt = await init();
  });

  it('x = [1, 2, 3, 4] with w = [0.5, −0.25, 0, 1] gives [0.55, 0.55, 1.10, 2.92], from safetensors and from GGUF', async () => {
    const w = Float32Array.of(0.5, -0.25, 0, 1);
    const file = toBytes(
      buildSafetensors([{ name: 'model.norm.weight', dtype: 'F32', shape: [4], data: f32Bytes(w) }]).file,
    );
    const hf = await loadNormWeights(file, { config: { model_type: 'gemma', rms_norm_eps: 1e-6 } });
    const gguf = await loadNormWeights(
      buildGguf(
        [
          ['general.architecture', { type: 'string', value: 'gemma' }],
          ['gemma.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-6 }],
        ],
        [{ name: 'output_norm.weight', dims: [4], type: 0, data: f32Bytes(Float32Array.from(w, (v) => 1 + v)) }],
      ),
    );
    const x = Float32Array.of(1, 2, 3, 4);
    for (const loaded of [hf, gguf]) {
      const y = Array.from(rt.rmsNorm(x, 4, { gamma: loaded.gamma, eps: loaded.eps! }), (v) => Number(v.toFixed(2)));
      expect(y).toEqual([0.55, 0.55, 1.1, 2.92]);
    }
  });
});

describe('Phi-3.5-MoE computes a LayerNorm with a bias', () => {
  let rt: LayerNormRuntime;
  beforeAll(async () => {
    rt = await init();
  });
  const gamma = Float32Array.of(0.5, -0.25, 0, 1);
  const beta = Float32Array.of(0.1, 0.2, 0.3, 0.4);
  const x = Float32Array.of(1, 2, 3, 4);
  const rounded = (y: Float32Array) => Array.from(y, (v) => Number(v.toFixed(3)));

  it('x = [1, 2, 3, 4] gives [−0.571, 0.312, 0.300, 1.742], from safetensors with its config.json and from GGUF', async () => {
    const phimoe = phimoeCheckpoint(gamma, beta);
    const hf = await loadNormWeights(toBytes(phimoe.file), { config: phimoe.config });
    const gguf = await loadNormWeights(phimoe.gguf);
    for (const loaded of [hf, gguf]) {
      expect([loaded.norm, loaded.eps, loaded.convention, loaded.warnings]).toEqual([
        'layernorm',
        PHIMOE_EPS,
        { family: 'Phi-3.5-MoE', gain: 'w' },
        [],
      ]);
      expect([loaded.gamma, loaded.beta]).toEqual([gamma, beta]);
      const y = rt.layerNorm(x, 4, { gamma: loaded.gamma, beta: loaded.beta, eps: loaded.eps! });
      expect(rounded(y)).toEqual([-0.571, 0.312, 0.3, 1.742]);
      expect(y).toEqual(layerNormReference(x, 4, { gamma, beta, eps: PHIMOE_EPS }));
    }
    expect([hf.names, gguf.names]).toEqual([
      { weight: 'model.norm.weight', bias: 'model.norm.bias' },
      { weight: 'output_norm.weight', bias: 'output_norm.bias' },
    ]);
    // A LayerNorm, so loadLayerNormWeights takes it; read as an RMSNorm without β, as it was, it gives another answer.
    expect((await loadLayerNormWeights(phimoe.gguf)).beta).toEqual(beta);
    expect(rounded(rt.rmsNorm(x, 4, { gamma, eps: PHIMOE_EPS }))).toEqual([0.183, -0.183, 0, 1.461]);
  });
});

describe('the README shows the loader’s table', () => {
  const code = (values: readonly string[]) => (values.length ? values.map((v) => `\`${v}\``).join(', ') : '—');
  const finalNorm = (f: NormFamily) =>
    f.gain === '1'
      ? `${NORMS[f.norm].name} without γ or β`
      : `${NORMS[f.norm].name}${NORMS[f.norm].bias ? (f.bias ? ' with β' : ' without β') : ''}`;
  const eps = (f: NormFamily) =>
    f.epsKeys.length ? code(f.epsKeys) : `— (${f.fixedEps!.toExponential()} in its code)`;
  const row = (f: NormFamily) =>
    `| ${f.name} | ${code(f.modelTypes)} | ${code(f.gguf)} | ${finalNorm(f)} | ${f.gain === '1' ? '1 (nothing stored)' : f.gain} | ${eps(f)} |`;

  it('every family has a case above', () => {
    expect(FAMILIES.filter((f) => !CASES.some((c) => c.family === f.name)).map((f) => f.name)).toEqual([]);
  });

  it('README.md holds the table rendered from web/src/io/architectures.ts, row for row', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const table = [
      '| family | config.json `model_type` | GGUF `general.architecture` | final norm | γ from the stored w | ε in config.json |',
      '| --- | --- | --- | --- | --- | --- |',
      ...FAMILIES.map(row),
    ].join('\n');
    expect(readme).toContain(table);
  });
});
