// readOnnxModel on the tiny models torch.onnx.export wrote (tests/data/onnx/make-models.py), in
// every graph form a norm takes: every norm is found, in graph order, with its name, kind, form,
// ε, γ and β as the weights file holds them (bit for bit), the model's inputs, vocabulary and
// context; and the same model read from bytes, a Blob and a URL (range requests, a redirect) is
// the same model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOnnxModel, type OnnxModel } from '../../dist/onnx/index.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { MODELS, fixture, namesOf, paramsOf } from './fixtures.js';

const sameBits = (a: Float32Array | null, b: Float32Array | null) =>
  a === null || b === null ? a === b : a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

describe.each(MODELS)('$file', (m) => {
  let model: OnnxModel;
  beforeAll(async () => {
    model = await readOnnxModel(fixture(m.file));
  });

  it('finds its five norms in graph order, named as the modules that hold them', () => {
    expect(model.norms.map((n) => n.name)).toEqual(namesOf(m));
    expect(model.norms.map((n) => n.index)).toEqual([0, 1, 2, 3, 4]);
    expect(model.norms.map((n) => n.op)).toEqual(m.ops);
  });

  it('gives each its kind, form, d and ε', () => {
    for (const n of model.norms) {
      expect({ norm: n.norm, form: n.form, d: n.d, eps: n.eps }).toEqual({
        norm: m.norm,
        form: m.form,
        d: 16,
        eps: m.eps,
      });
    }
  });

  it('reads γ and β bit for bit as the weights file holds them', () => {
    for (const n of model.norms) {
      const expected = paramsOf(m, n.name);
      expect(sameBits(n.gamma, expected.gamma), `${n.name} γ`).toBe(true);
      expect(sameBits(n.beta, m.form === 'layernorm' ? expected.beta : null), `${n.name} β`).toBe(true);
    }
  });

  it('names the values each norm reads and writes, all distinct', () => {
    const values = model.norms.flatMap((n) => [n.values.input, n.values.output]);
    expect(new Set(values).size).toBe(10);
    expect(values.every((v) => v.length > 0)).toBe(true);
  });

  it('declares the inputs optimum exports, and knows its vocabulary and context', () => {
    const past = (i: number, kv: string) => ({
      name: `past_key_values.${i}.${kv}`,
      type: 'float32',
      shape: ['batch_size', 2, 'past_sequence_length', 8],
    });
    const ids = { name: 'input_ids', type: 'int64', shape: ['batch_size', 'sequence_length'] };
    const mask = {
      name: 'attention_mask',
      type: 'int64',
      shape: ['batch_size', 'past_sequence_length + sequence_length'],
    };
    const positions = m.file.includes('nopos')
      ? []
      : [{ name: 'position_ids', type: 'int64', shape: ['batch_size', 'sequence_length'] }];
    expect(model.inputs).toEqual([
      ids,
      mask,
      ...positions,
      past(0, 'key'),
      past(0, 'value'),
      past(1, 'key'),
      past(1, 'value'),
    ]);
    expect(model.outputs.map((o) => o.name)).toEqual([
      'logits',
      'present.0.key',
      'present.0.value',
      'present.1.key',
      'present.1.value',
    ]);
    expect(model.vocabulary?.size).toBe(64);
    expect(model.context?.size).toBe(32);
    expect(model.irVersion).toBeGreaterThanOrEqual(7);
    expect(model.opset).toBe(m.file.includes('opset14') ? 14 : 17);
  });
});

describe('the tables token ids are checked against', () => {
  it('are the token embedding and the position table, named', async () => {
    const tables = async (file: string) => {
      const model = await readOnnxModel(fixture(file));
      return [model.vocabulary?.tensor, model.context?.tensor];
    };
    expect(await tables('gpt2-opset14.onnx')).toEqual(['transformer.wte.weight', 'transformer.wpe.weight']);
    // Without position_ids, the positions the graph counts itself (Range) lead to the table.
    expect(await tables('gpt2-nopos-opset14.onnx')).toEqual(['transformer.wte.weight', 'transformer.wpe.weight']);
    // Quantized: the int8 table a Gather reads, before its DequantizeLinear.
    expect(await tables('gpt2-q8-opset14.onnx')).toEqual([
      'transformer.wte.weight_quantized',
      'transformer.wpe.weight',
    ]);
    // Llama: the rotary tables position_ids index (the smaller of cos and sin, both 32 rows).
    expect(await tables('llama-opset14.onnx')).toEqual(['model.embed_tokens.weight', 'model.cos_cached']);
  });
});

describe('sources', () => {
  let server: FixtureServer;
  const bytes = fixture('gpt2-opset14.onnx');
  beforeAll(async () => {
    server = await startFixtureServer({ files: { 'models/gpt2.onnx': bytes } });
  });
  afterAll(() => server.close());

  const summary = (model: OnnxModel) => ({
    norms: model.norms.map((n) => [n.name, n.form, n.eps, Array.from(n.gamma), n.beta && Array.from(n.beta)]),
    inputs: model.inputs,
    size: model.bytes.length,
  });

  it('bytes, an ArrayBuffer, a Blob and a URL give the same model, the whole file read once', async () => {
    const fromBytes = summary(await readOnnxModel(bytes));
    const fromBuffer = summary(await readOnnxModel(bytes.slice().buffer));
    const fromBlob = await readOnnxModel(new Blob([bytes.slice()]));
    expect(fromBlob.source).toBe(`Blob (${bytes.length} bytes)`);
    const progress: [number, number][] = [];
    server.reset();
    const fromUrl = await readOnnxModel(server.url('models/gpt2.onnx'), {
      onProgress: (read, expected) => progress.push([read, expected]),
    });
    expect(fromUrl.source).toBe(server.url('models/gpt2.onnx'));
    for (const other of [fromBuffer, summary(fromBlob), summary(fromUrl)]) expect(other).toEqual(fromBytes);
    expect(fromUrl.bytes).toEqual(bytes);
    // Its first byte (which tells a model from anything else), then the file.
    expect(server.requests.map((r) => r.range)).toEqual(['bytes=0-0', `bytes=0-${bytes.length - 1}`]);
    expect(progress.at(-1)).toEqual([bytes.length + 1, bytes.length + 1]);
  });

  it('follows a redirect, as the Hub answers resolve/main/ URLs', async () => {
    const model = await readOnnxModel(server.url('models/gpt2.onnx', 'redirect'));
    expect(model.norms.map((n) => n.name).at(-1)).toBe('transformer.ln_f');
  });

  it('a file that cannot be a model costs one byte and then its first 64, not the download', async () => {
    server.addFile('page.html', new TextEncoder().encode(`<!doctype html><html>${'x'.repeat(5000)}</html>`));
    server.reset();
    await expect(readOnnxModel(server.url('page.html'))).rejects.toThrow(/invalid onnx: expected an ONNX model/);
    expect(server.requests.map((r) => r.range)).toEqual(['bytes=0-0', 'bytes=0-63']);
  });
});
