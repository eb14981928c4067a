// Which norm a checkpoint holds and its ε: GGUF metadata, config.json, and the Hub's config.json
// beside a Hub URL. A Llama-family final norm is an RMSNorm and must not load as a LayerNorm.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FetchError, FormatError, loadLayerNormWeights, loadNormWeights } from '../../web/src/io/index.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { rejection } from '../helpers/errors.js';
import {
  buildGguf,
  buildSafetensors,
  f32Bytes,
  gpt2Gguf,
  lnfValues,
  npy,
  toBytes,
  type GgufValue,
} from '../kit/checkpoints/index.mjs';

const SEED = 9090;
const D = 64;
const { gamma, beta } = lnfValues(SEED, D);
const layer0 = lnfValues(SEED + 1, D);

/** A llama.cpp-style GGUF: the final norm's data after a 64 KB embedding, so reading it is a separate read. */
function ggufWith(metadata: Array<[string, GgufValue]>, withBias = false): Uint8Array {
  const embedding = new Uint8Array(D * 256 * 4);
  const tensors = [
    { name: 'token_embd.weight', dims: [D, 256], type: 0 as const, data: embedding },
    { name: 'blk.0.attn_norm.weight', dims: [D], type: 0 as const, data: f32Bytes(layer0.gamma) },
    { name: 'output_norm.weight', dims: [D], type: 0 as const, data: f32Bytes(gamma) },
  ];
  if (withBias) tensors.push({ name: 'output_norm.bias', dims: [D], type: 0, data: f32Bytes(beta) });
  return buildGguf(metadata, tensors);
}

const llamaGguf = ggufWith([
  ['general.architecture', { type: 'string', value: 'llama' }],
  ['llama.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-5 }],
]);

/** A Hugging Face Llama checkpoint: many RMSNorm gains, the final one is model.norm.weight. */
const llamaSafetensors = toBytes(
  buildSafetensors([
    { name: 'model.layers.0.input_layernorm.weight', dtype: 'F32', shape: [D], data: f32Bytes(layer0.gamma) },
    { name: 'model.layers.0.post_attention_layernorm.weight', dtype: 'F32', shape: [D], data: f32Bytes(layer0.beta) },
    { name: 'model.norm.weight', dtype: 'F32', shape: [D], data: f32Bytes(gamma) },
  ]).file,
);
const gpt2Safetensors = toBytes(
  buildSafetensors([
    { name: 'ln_f.bias', dtype: 'F32', shape: [D], data: f32Bytes(beta) },
    { name: 'ln_f.weight', dtype: 'F32', shape: [D], data: f32Bytes(gamma) },
  ]).file,
);
const llamaConfig = { model_type: 'llama', rms_norm_eps: 1e-6, hidden_size: D };
const gpt2Config = { model_type: 'gpt2', layer_norm_epsilon: 1e-5, n_embd: D };
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

describe('GGUF metadata', () => {
  it('refuses a Llama GGUF in loadLayerNormWeights, naming what it holds, before reading the tensor', async () => {
    let read = 0;
    const error = await rejection(loadLayerNormWeights(llamaGguf, { onProgress: (r) => (read = r) }));
    expect(error).toBeInstanceOf(FormatError);
    expect(error.message).toBe(
      `Uint8Array (${llamaGguf.length} bytes): invalid gguf: expected a LayerNorm, got an RMSNorm: ` +
        '"output_norm.weight" is the gain of an RMSNorm (general.architecture "llama", ' +
        'llama.attention.layer_norm_rms_epsilon = 0.00001); load it with loadNormWeights, which returns either kind',
    );
    expect(read).toBeLessThan(D * 256 * 4);
  });

  it('loadNormWeights returns it as an RMSNorm with its ε and no bias', async () => {
    const r = await loadNormWeights(llamaGguf);
    expect([r.norm, r.eps, r.architecture, r.format]).toEqual(['rmsnorm', 1e-5, 'llama', 'gguf']);
    expect(r.names).toEqual({ weight: 'output_norm.weight', bias: null });
    expect(r.gamma).toEqual(gamma);
    expect(r.beta).toBeNull();
  });

  it('reports a GPT-2 GGUF as a LayerNorm with the ε it states, as the shortest decimal of the float32', async () => {
    const { bytes, gamma: g } = gpt2Gguf(SEED);
    const r = await loadLayerNormWeights(bytes);
    expect([r.norm, r.eps, r.architecture]).toEqual(['layernorm', 1e-5, 'gpt2']);
    expect(r.gamma).toEqual(g);
    const eps6 = ggufWith([
      ['general.architecture', { type: 'string', value: 'qwen2' }],
      ['qwen2.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-6 }],
    ]);
    expect((await loadNormWeights(eps6)).eps).toBe(1e-6);
  });

  it('says nothing it does not know: no ε key means a LayerNorm of unknown ε', async () => {
    const r = await loadLayerNormWeights(
      ggufWith([['general.architecture', { type: 'string', value: 'mystery' }]], true),
    );
    expect([r.norm, r.eps, r.architecture]).toEqual(['layernorm', null, 'mystery']);
    expect(r.beta).toEqual(beta);
  });

  it('without an ε key, a known RMSNorm architecture is refused as a LayerNorm and loads as an RMSNorm', async () => {
    for (const architecture of ['llama', 'qwen2', 'gemma', 'qwen3', 'phi3']) {
      const file = ggufWith([['general.architecture', { type: 'string', value: architecture }]]);
      const error = await rejection(loadLayerNormWeights(file));
      expect(error).toBeInstanceOf(FormatError);
      expect(error.message).toBe(
        `Uint8Array (${file.length} bytes): invalid gguf: expected a LayerNorm, got an RMSNorm: ` +
          `"output_norm.weight" is the gain of an RMSNorm (general.architecture "${architecture}", which uses RMSNorm; ` +
          'the file states no ε); load it with loadNormWeights, which returns either kind',
      );
      const r = await loadNormWeights(file);
      expect([r.norm, r.eps, r.architecture, r.beta], architecture).toEqual(['rmsnorm', null, architecture, null]);
      expect(r.gamma).toEqual(gamma);
    }
  });

  it('without an ε key, a known LayerNorm architecture loads as a LayerNorm of unknown ε, bias and all', async () => {
    for (const architecture of ['gpt2', 'bloom', 'falcon', 'gptneox', 'starcoder', 'phi2', 'mpt', 'bert']) {
      const r = await loadNormWeights(
        ggufWith([['general.architecture', { type: 'string', value: architecture }]], true),
      );
      expect([r.norm, r.eps, r.architecture], architecture).toEqual(['layernorm', null, architecture]);
      expect(r.beta).toEqual(beta);
    }
  });

  it('a known architecture decides the kind, whatever its ε key is called: the key gives ε only', async () => {
    // llama.cpp files Phi-3.5-MoE's LayerNorm ε under layer_norm_rms_epsilon.
    const phimoe = await loadLayerNormWeights(
      ggufWith(
        [
          ['general.architecture', { type: 'string', value: 'phimoe' }],
          ['phimoe.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-5 }],
        ],
        true,
      ),
    );
    expect([phimoe.norm, phimoe.eps, phimoe.beta]).toEqual(['layernorm', 1e-5, beta]);
    const llama = ggufWith(
      [
        ['general.architecture', { type: 'string', value: 'llama' }],
        ['llama.attention.layer_norm_epsilon', { type: 'f32', value: 1e-5 }],
      ],
      true,
    );
    const error = await rejection(loadLayerNormWeights(llama));
    expect(error.message).toBe(
      `Uint8Array (${llama.length} bytes): invalid gguf: expected a LayerNorm, got an RMSNorm: ` +
        '"output_norm.weight" is the gain of an RMSNorm (general.architecture "llama", ' +
        "llama.attention.layer_norm_epsilon = 0.00001, the ε of Llama's RMSNorm); load it with loadNormWeights, " +
        'which returns either kind',
    );
    const r = await loadNormWeights(llama);
    expect([r.norm, r.eps, r.beta]).toEqual(['rmsnorm', 1e-5, null]);
  });

  it('when a file states both, a bias beside the gain means LayerNorm', async () => {
    const both: Array<[string, GgufValue]> = [
      ['general.architecture', { type: 'string', value: 'odd' }],
      ['odd.attention.layer_norm_epsilon', { type: 'f32', value: 1e-5 }],
      ['odd.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-6 }],
    ];
    expect((await loadNormWeights(ggufWith(both, true))).norm).toBe('layernorm');
    const r = await loadNormWeights(ggufWith(both, false));
    expect([r.norm, r.eps]).toEqual(['rmsnorm', 1e-6]);
  });
});

describe('config.json', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer({
      files: {
        'hub/org/llama/resolve/main/model.safetensors': llamaSafetensors,
        'hub/org/llama/resolve/main/config.json': json(llamaConfig),
        'hub/org/gpt2/resolve/main/model.safetensors': gpt2Safetensors,
        'hub/org/gpt2/resolve/main/config.json': json(gpt2Config),
        'hub/org/noconfig/resolve/main/model.safetensors': gpt2Safetensors,
        'config.json': json(llamaConfig),
        'broken.json': new TextEncoder().encode('{"model_type": "llama",'),
      },
    });
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  /** fetch() as if huggingface.co were the local fixture server. */
  const hubFetch: typeof fetch = (input, init) =>
    fetch(String(input).replace('https://huggingface.co/', `${server.origin}/range/hub/`), init);

  it('a GPT-2 config gives LayerNorm and its ε, from an object, bytes, a File or a URL', async () => {
    for (const config of [
      gpt2Config,
      json(gpt2Config),
      new File([json(gpt2Config)], 'config.json'),
      server.url('hub/org/gpt2/resolve/main/config.json'),
    ]) {
      const r = await loadLayerNormWeights(gpt2Safetensors, { config });
      expect([r.norm, r.eps, r.architecture]).toEqual(['layernorm', 1e-5, 'gpt2']);
      expect(r.beta).toEqual(beta);
    }
  });

  it('a Llama config makes model.norm.weight an RMSNorm: refused as a LayerNorm, loaded by loadNormWeights', async () => {
    const error = await rejection(loadLayerNormWeights(llamaSafetensors, { config: llamaConfig }));
    expect(error).toBeInstanceOf(FormatError);
    expect(error.message).toBe(
      `Uint8Array (${llamaSafetensors.length} bytes): invalid safetensors: expected a LayerNorm, got an RMSNorm: ` +
        '"model.norm.weight" is the gain of an RMSNorm (the config object (model_type "llama"): rms_norm_eps = 0.000001); ' +
        'load it with loadNormWeights, which returns either kind',
    );
    const r = await loadNormWeights(llamaSafetensors, { config: llamaConfig });
    expect([r.norm, r.eps, r.architecture]).toEqual(['rmsnorm', 1e-6, 'llama']);
    expect(r.names).toEqual({ weight: 'model.norm.weight', bias: null });
    expect(r.gamma).toEqual(gamma);
    // Without a config the file does not say, and there are three candidates.
    await expect(loadNormWeights(llamaSafetensors)).rejects.toThrow('cannot tell which LayerNorm to load');
  });

  it('T5 and Mamba call their RMSNorm ε layer_norm_epsilon; model_type tells', async () => {
    for (const model_type of ['t5', 'mamba']) {
      const r = await loadNormWeights(gpt2Safetensors, { config: { model_type, layer_norm_epsilon: 1e-6 } });
      expect([r.norm, r.eps, r.names.bias, r.beta]).toEqual(['rmsnorm', 1e-6, null, null]);
    }
    const bert = await loadNormWeights(gpt2Safetensors, { config: { model_type: 'bert', layer_norm_eps: 1e-12 } });
    expect([bert.norm, bert.eps]).toEqual(['layernorm', 1e-12]);
    const llava = await loadNormWeights(llamaSafetensors, {
      config: { model_type: 'llava', text_config: { model_type: 'llama', rms_norm_eps: 1e-5 } },
      weight: 'model.norm.weight',
    });
    expect([llava.norm, llava.eps, llava.architecture]).toEqual(['rmsnorm', 1e-5, 'llava']);
  });

  it('refuses a bias named for an RMSNorm, and a beta .npy with an RMSNorm config', async () => {
    const named = await rejection(
      loadNormWeights(gpt2Safetensors, { config: { model_type: 't5', layer_norm_epsilon: 1e-6 }, bias: 'ln_f.bias' }),
    );
    expect(named).toBeInstanceOf(FormatError);
    expect(named.message).toContain(
      'expected a bias beside "ln_f.weight", but it is the gain of an RMSNorm (the config object (model_type "t5"): layer_norm_epsilon = 0.000001), which has none; leave out options.bias',
    );
    const pair = await rejection(
      loadNormWeights({ gamma: npy(gamma, [D]), beta: npy(beta, [D]) }, { config: llamaConfig }),
    );
    expect(pair).toBeInstanceOf(FormatError);
    expect(pair.message).toContain('expected a gain only: the config says RMSNorm');
    const lone = await loadNormWeights({ gamma: npy(gamma, [D]) }, { config: llamaConfig });
    expect([lone.norm, lone.eps, lone.format]).toEqual(['rmsnorm', 1e-6, 'npy']);
  });

  it('a config that is not JSON, not there, or states a bad ε is an error naming it', async () => {
    const broken = await rejection(loadLayerNormWeights(gpt2Safetensors, { config: server.url('broken.json') }));
    expect(broken).toBeInstanceOf(FormatError);
    expect(broken.message).toMatch(
      new RegExp(
        `^${server.url('broken.json').replace(/[.]/g, '\\.')}: invalid json: expected config\\.json to be JSON \\(`,
      ),
    );
    const missing = await rejection(loadLayerNormWeights(gpt2Safetensors, { config: server.url('none.json') }));
    expect(missing).toBeInstanceOf(FetchError);
    expect(missing.message).toBe(`${server.url('none.json')}: not found; expected 200 with config.json (HTTP 404)`);
    const eps = await rejection(loadLayerNormWeights(gpt2Safetensors, { config: { layer_norm_epsilon: '1e-5' } }));
    expect(eps).toBeInstanceOf(FormatError);
    expect(eps.message).toContain(
      'expected layer_norm_epsilon in the config object to be a finite number >= 0, got "1e-5"',
    );
    const array = await rejection(loadLayerNormWeights(gpt2Safetensors, { config: json([1, 2]) }));
    expect(array.message).toBe(
      'Uint8Array (5 bytes): invalid json: expected config.json to hold a JSON object, got an array',
    );
    const type = await rejection(loadLayerNormWeights(gpt2Safetensors, { config: 5 as unknown as object }));
    expect(type).toBeInstanceOf(TypeError);
  });

  it('for a Hub URL, reads the config.json beside the file', async () => {
    const url = 'https://huggingface.co/org/gpt2/resolve/main/model.safetensors';
    const r = await loadLayerNormWeights(url, { fetch: hubFetch });
    expect([r.norm, r.eps, r.architecture]).toEqual(['layernorm', 1e-5, 'gpt2']);
    expect(server.requests.map((q) => q.file)).toContain('hub/org/gpt2/resolve/main/config.json');
    const llama = await rejection(
      loadLayerNormWeights('https://huggingface.co/org/llama/resolve/main/model.safetensors', { fetch: hubFetch }),
    );
    expect(llama.message).toContain(
      'is the gain of an RMSNorm (https://huggingface.co/org/llama/resolve/main/config.json (model_type "llama"): rms_norm_eps = 0.000001)',
    );
  });

  it('a Hub file without config.json, or config: null, loads with ε unknown', async () => {
    const r = await loadLayerNormWeights('https://huggingface.co/org/noconfig/resolve/main/model.safetensors', {
      fetch: hubFetch,
    });
    expect([r.norm, r.eps, r.architecture]).toEqual(['layernorm', null, null]);
    server.reset();
    const off = await loadLayerNormWeights('https://huggingface.co/org/gpt2/resolve/main/model.safetensors', {
      fetch: hubFetch,
      config: null,
    });
    expect(off.eps).toBeNull();
    expect(server.requests.map((q) => q.file).some((f) => f.endsWith('config.json'))).toBe(false);
  });

  it('other URLs get no config.json unless it is given', async () => {
    const r = await loadLayerNormWeights(server.url('hub/org/gpt2/resolve/main/model.safetensors'));
    expect(r.eps).toBeNull();
    expect(server.requests.map((q) => q.file).some((f) => f.endsWith('config.json'))).toBe(false);
  });
});
