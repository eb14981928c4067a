// What readOnnxModel and exposeNorms refuse, each with the package's error and the message
// web/docs/errors.md quotes (rows O1–O15): bytes that are not a model or are cut short, norms in
// subgraphs, external data, weights and activations of a type they do not read, a model with no
// norm, norms whose γ, β or ε cannot be read, and wrong arguments. Each is followed by a read that
// works. Models made here come from web/bench/onnx-model.mjs, the repository's ONNX writer.
import { describe, expect, it } from 'vitest';
import { FetchError, FormatError, exposeNorms, readOnnxModel } from '../../dist/onnx/index.js';
// @ts-expect-error plain ESM module shared with the benchmark
import { layerNormalizationModelBytes, nodeModelBytes } from '../../web/bench/onnx-model.mjs';
import { sampleSafetensors } from '../kit/checkpoints/index.mjs';
import { fixture } from './fixtures.js';

const GPT2 = fixture('gpt2-opset14.onnx');
const gamma = Float32Array.from({ length: 16 }, (_, i) => 1 + i / 16);

/** The error reading `bytes` throws: its class and message. */
async function refusal(source: unknown, options?: unknown): Promise<{ name: string; message: string }> {
  try {
    await readOnnxModel(source as Uint8Array, options as undefined);
  } catch (e) {
    const error = e as Error;
    // Only the package's own classes (FormatError of format 'onnx', FetchError, TypeError).
    if (error instanceof FormatError) expect(error.format).toBe('onnx');
    return { name: error.name, message: error.message };
  } finally {
    // Whatever failed, the next model reads.
    expect((await readOnnxModel(GPT2)).norms).toHaveLength(5);
  }
  throw new Error('expected a refusal');
}

const format = (message: string) => ({ name: 'FormatError', message });

describe('bytes that are not a model, or not all of one', () => {
  it('O1: an HTML page, a safetensors file, a PNG, nothing', async () => {
    const html = new TextEncoder().encode('<!doctype html><html><body>Not found</body></html>');
    expect(await refusal(html)).toEqual(
      format(
        'Uint8Array (50 bytes): invalid onnx: expected an ONNX model (a protobuf ModelProto), but it starts with 3c 21 64 6f 63 74 79 70 ("<!doctyp"): wire type 4 (field 7) at byte 0; it looks like an HTML page, which is what many servers answer for a file they do not have',
      ),
    );
    const safetensors = sampleSafetensors();
    expect((await refusal(safetensors)).message).toMatch(
      /^Uint8Array \(\d+ bytes\): invalid onnx: expected an ONNX model \(a protobuf ModelProto\), but it starts with [0-9a-f ]+: (wire type \d|field number \d+)/,
    );
    const png = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13);
    expect(await refusal(png)).toEqual(
      format(
        'Uint8Array (12 bytes): invalid onnx: expected an ONNX model (a protobuf ModelProto), but it starts with 89 50 4e 47 0d 0a 1a 0a: field number 0 at byte 10',
      ),
    );
    expect(await refusal(new Uint8Array(0))).toEqual(
      format('Uint8Array (0 bytes): invalid onnx: expected an ONNX model (a protobuf ModelProto), but it is empty'),
    );
  });

  it('O2: a model cut short, at any byte', async () => {
    expect(await refusal(GPT2.subarray(0, 30000))).toEqual(
      format(
        'Uint8Array (30000 bytes): invalid onnx: the file is truncated: it ends at byte 30000, inside the graph of the ModelProto (from byte 19)',
      ),
    );
    // Its first two bytes are an ir_version and nothing else.
    expect(await refusal(GPT2.subarray(0, 2))).toEqual(
      format(
        'Uint8Array (2 bytes): invalid onnx: expected an ONNX model (a protobuf ModelProto), but it starts with 08 07: a protobuf message without a graph (field 7)',
      ),
    );
    // Cuts at each of the first and last 32 bytes and at 1 byte in 97 between: a FormatError,
    // never a model (the opset_import that follows the graph is required) and never another error.
    const problems = new Set<string>();
    const cuts = new Set<number>();
    for (let cut = 1; cut < GPT2.length; cut += 97) cuts.add(cut);
    for (let i = 1; i <= 32; i++) cuts.add(i).add(GPT2.length - i);
    for (const cut of cuts) {
      try {
        await readOnnxModel(GPT2.subarray(0, cut));
        problems.add(`a model at ${cut}`);
      } catch (e) {
        if (!(e instanceof FormatError)) problems.add(`${(e as Error).name} at ${cut}`);
        else
          problems.add(
            e.message
              .replace(/^Uint8Array \(\d+ bytes\): invalid onnx: /, '')
              .replace(/it starts with [0-9a-f ]+/, 'it starts with …')
              .replace(/\d+/g, 'N'),
          );
      }
    }
    const notModel = 'expected an ONNX model (a protobuf ModelProto), but it starts with …';
    const cut = (field: string) =>
      `the file is truncated: it ends at byte N, inside ${field} of the ModelProto (from byte N)`;
    expect([...problems].sort()).toEqual([
      `${notModel}: a field that runs past the end of the file at byte N`,
      `${notModel}: a protobuf message without a graph (field N)`,
      `${notModel}: a protobuf message without an opset_import (field N)`,
      cut('a field'),
      cut('an opset_import'),
      cut('producer_name'),
      cut('producer_version'),
      cut('the graph'),
    ]);
  });

  it('O3: protobuf that breaks inside the graph', async () => {
    const broken = GPT2.slice();
    // The graph's payload starts after its tag (0x3a at byte 19) and its length (a varint); its
    // first field is a node (tag 0x0a), whose first byte becomes a tag of wire type 7.
    let at = 20;
    while (broken[at]! >= 0x80) at++;
    at += 1; // the node's tag
    while (broken[at + 1]! >= 0x80) at++;
    at += 2; // its length: the node's payload starts here
    broken[at] = 0x0f;
    expect(await refusal(broken)).toEqual(
      format(
        `Uint8Array (${GPT2.length} bytes): invalid onnx: malformed protobuf at byte ${at}, in node 0 of the main graph: wire type 7 (field 1)`,
      ),
    );
  });
});

describe('models it cannot use', () => {
  it('O4: a norm inside an If branch (decoder_model_merged) or a Loop body', async () => {
    expect(await refusal(fixture('norm-in-if.onnx'))).toEqual(
      format(
        'Uint8Array (721 bytes): invalid onnx: the norm "transformer.ln_f" (LayerNormalization) is inside the else_branch of If node "optimum::if", and a value inside a subgraph cannot be made an output of the model; use an export without If or Loop nodes (decoder_model.onnx or model.onnx rather than decoder_model_merged.onnx)',
      ),
    );
    expect(await refusal(fixture('norm-in-loop.onnx'))).toEqual(
      format(
        'Uint8Array (540 bytes): invalid onnx: the norm "loop.ln" (LayerNormalization) is inside the body of Loop node "loop", and a value inside a subgraph cannot be made an output of the model; use an export without If or Loop nodes (decoder_model.onnx or model.onnx rather than decoder_model_merged.onnx)',
      ),
    );
  });

  it('O5: external data', async () => {
    expect(await refusal(fixture('external-data.onnx'))).toEqual(
      format(
        'Uint8Array (421 bytes): invalid onnx: tensor "ln.weight" keeps its data in an external file ("external-data.onnx.data"); expected every tensor inside the model: use an export without external data, or save one with onnx.save(model, path, save_as_external_data=False)',
      ),
    );
  });

  it('O6: float16 γ and β; float16 activations under a float32 γ', async () => {
    expect(await refusal(fixture('float16.onnx'))).toEqual(
      format(
        'Uint8Array (353 bytes): invalid onnx: γ of the norm "transformer.ln_f" (LayerNormalization) ("ln.weight") is float16; expected float32: use the float32 or the quantized (q8) export, whose norms stay float32',
      ),
    );
    expect(await refusal(fixture('float16-activations.onnx'))).toEqual(
      format(
        'Uint8Array (530 bytes): invalid onnx: the input of the norm "norm" (SimplifiedLayerNormalization) is float16 (its value_info); expected float32 activations',
      ),
    );
  });

  it('O7: a model with no norm', async () => {
    expect(await refusal(fixture('no-norm.onnx'))).toEqual(
      format(
        'Uint8Array (1237 bytes): invalid onnx: found no normalization in the main graph (LayerNormalization, SkipLayerNormalization, SimplifiedLayerNormalization, SkipSimplifiedLayerNormalization, or their decomposed forms); its 2 nodes are MatMul, Relu',
      ),
    );
  });

  it('O8: γ that is not a constant, of another shape, or shorter than its dims say; β of another length; ε < 0; a norm over more than the last axis', async () => {
    const scaleInput = nodeModelBytes({
      op: 'LayerNormalization',
      inputs: { X: [2, 16], Scale: [16] },
      order: ['X', 'Scale'],
      attributes: { axis: -1, epsilon: 1e-5 },
      outputDims: [2, 16],
    });
    expect(await refusal(scaleInput)).toEqual(
      format(
        'Uint8Array (190 bytes): invalid onnx: γ of the norm "norm 0" (LayerNormalization) is "Scale", a value of the graph; expected an initializer or a Constant node, whose values can be read',
      ),
    );
    const model = (options: Record<string, unknown>) =>
      layerNormalizationModelBytes({ shape: [2, 16], scale: { data: gamma, dims: [16] }, ...options });
    expect(await refusal(model({ scale: { data: gamma, dims: [2, 8] } }))).toEqual(
      format(
        'Uint8Array (241 bytes): invalid onnx: γ of the norm "norm 0" (LayerNormalization) ("Scale") has shape [2, 8]; expected a vector of d values',
      ),
    );
    expect(await refusal(model({ scale: { data: gamma.subarray(0, 8), dims: [16] } }))).toEqual(
      format(
        'Uint8Array (207 bytes): invalid onnx: tensor "Scale" (float32 [16]) does not hold the values its shape says',
      ),
    );
    expect(await refusal(model({ bias: { data: gamma.subarray(0, 8), dims: [8] } }))).toEqual(
      format(
        'Uint8Array (285 bytes): invalid onnx: β of the norm "norm 0" (LayerNormalization) has 8 values and γ 16; expected equal lengths',
      ),
    );
    expect(await refusal(model({ epsilon: -1 }))).toEqual(
      format(
        'Uint8Array (239 bytes): invalid onnx: ε of the norm "norm 0" (LayerNormalization) is -1; expected a finite number >= 0',
      ),
    );
    expect(await refusal(model({ shape: [2, 4, 4], axis: 1, scale: { data: gamma, dims: [4, 4] } }))).toEqual(
      format(
        'Uint8Array (240 bytes): invalid onnx: the norm "norm 0" (LayerNormalization) normalizes from axis 1; expected the last axis (-1), the one a row of d values is normalized over',
      ),
    );
    // An axis counted from the front that is the last one, where the model states the rank, is the last axis.
    const last = await readOnnxModel(model({ shape: [2, 4, 16], axis: 2 }));
    expect(last.norms.map((n) => [n.d, n.eps])).toEqual([[16, Math.fround(1e-5)]]);
  });
});

describe('arguments', () => {
  it('O9: a source or an option of the wrong type is a TypeError, before anything is read', async () => {
    expect(await refusal(5)).toEqual({
      name: 'TypeError',
      message:
        'readOnnxModel: source must be an http(s) URL, a Blob/File, an ArrayBuffer or a typed array, got number 5',
    });
    expect(await refusal(GPT2, { onProgress: 'log' })).toEqual({
      name: 'TypeError',
      message: 'readOnnxModel: onProgress must be a function, got string "log"',
    });
    expect(await refusal('ftp://example.com/model.onnx')).toEqual({
      name: 'TypeError',
      message:
        'expected an http: or https: URL, got "ftp://example.com/model.onnx" (for a local file pass a Blob/File; in Node use await fs.openAsBlob(path))',
    });
  });

  it('O10: a server that does not say how large the file is', async () => {
    const fetch = async () =>
      new Response(Uint8Array.of(8), { status: 206, headers: { 'Content-Range': 'bytes 0-0/*' } });
    const error = await refusal('https://example.com/model.onnx', { fetch });
    expect(error).toEqual({
      name: 'FetchError',
      message:
        'https://example.com/model.onnx: answered without the size of the file; expected one, to read the whole model',
    });
  });

  it('O11: exposeNorms of something else than a model, or of norms the model does not have', async () => {
    const model = await readOnnxModel(GPT2);
    expect(() => exposeNorms({ norms: [] } as never)).toThrow(
      new TypeError('exposeNorms: model must be a model from readOnnxModel(), got Object'),
    );
    const names = "'transformer.h.0.ln_1', 'transformer.h.0.ln_2', 'transformer.h.1.ln_1', …, or an index from 0 to 4";
    expect(() => exposeNorms(model, { norms: ['transformer.h.9.ln_1'] })).toThrow(
      new RangeError(
        `exposeNorms: norms[0] must be a norm's name or index (${names}), got string "transformer.h.9.ln_1"`,
      ),
    );
    expect(() => exposeNorms(model, { norms: [0, 5] })).toThrow(
      new RangeError(`exposeNorms: norms[1] must be a norm's name or index (${names}), got number 5`),
    );
    expect(() => exposeNorms(model, { norms: [true] as never })).toThrow(
      new TypeError(`exposeNorms: norms[0] must be a norm's name or index (${names}), got boolean`),
    );
    expect(() => exposeNorms(model, { norms: 'transformer.ln_f' as never })).toThrow(
      new TypeError('exposeNorms: norms must be an array of norm names or indices, got string "transformer.ln_f"'),
    );
    expect(() => exposeNorms(model, 5 as never)).toThrow(
      new TypeError('exposeNorms: options must be an object, got number 5'),
    );
    expect(exposeNorms(model, { norms: [4, 'transformer.h.0.ln_1'] }).norms.map((n) => n.name)).toEqual([
      'transformer.h.0.ln_1',
      'transformer.ln_f',
    ]);
  });
});

it('FetchError and FormatError are the I/O module’s own classes', async () => {
  const io = await import('../../dist/io/index.js');
  expect(FormatError).toBe(io.FormatError);
  expect(FetchError).toBe(io.FetchError);
});
