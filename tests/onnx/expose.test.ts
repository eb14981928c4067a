// exposeNorms: the exposed model is the original with the chosen norms' values appended to the
// graph's outputs, everything else copied as bytes (the initializers byte for byte), a fused Skip
// operator's node given its sum output where it had none; read again, it has the same norms; a
// value that is already an output or an input is not added twice; and an exposed model goes to
// createNormCapture as it is.
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { captureNorms, createNormCapture, exposeNorms, readOnnxModel } from '../../dist/onnx/index.js';
// @ts-expect-error plain ESM module shared with the benchmark
import { layerNormalizationModelBytes } from '../../web/bench/onnx-model.mjs';
import { IDS, fixture } from './fixtures.js';

ort.env.wasm.numThreads = 1;

/** Where `part` first occurs in `whole`, or -1. */
function find(whole: Uint8Array, part: Uint8Array): number {
  outer: for (let i = 0; i + part.length <= whole.length; i++) {
    for (let j = 0; j < part.length; j++) if (whole[i + j] !== part[j]) continue outer;
    return i;
  }
  return -1;
}

/** The graph field's payload in a model's bytes (field 7 of the ModelProto), found with a reader of this test's own. */
function graphPayload(bytes: Uint8Array): Uint8Array {
  let at = 0;
  const varint = () => {
    let v = 0;
    for (let shift = 1; ; shift *= 128) {
      const b = bytes[at++]!;
      v += (b & 0x7f) * shift;
      if (b < 0x80) return v;
    }
  };
  while (at < bytes.length) {
    const tag = varint();
    if ((tag & 7) === 0) varint();
    else if ((tag & 7) === 2) {
      const length = varint();
      if (tag >> 3 === 7) return bytes.subarray(at, at + length);
      at += length;
    } else throw new Error(`wire type ${tag & 7} at the top level`);
  }
  throw new Error('no graph');
}

describe('exposeNorms', () => {
  it('copies the graph and appends one output per value, and reads back with the same norms', async () => {
    const original = fixture('gpt2-opset14.onnx');
    const model = await readOnnxModel(original);
    const exposed = exposeNorms(model);
    expect(find(exposed.bytes, graphPayload(original))).toBeGreaterThan(0);
    expect(exposed.bytes.length).toBeGreaterThan(original.length);
    const again = await readOnnxModel(exposed.bytes);
    const added = model.norms.flatMap((n) => [n.values.input, n.values.output]);
    expect(again.outputs.map((o) => o.name)).toEqual([...model.outputs.map((o) => o.name), ...added]);
    expect(again.norms.map((n) => [n.name, n.values, Array.from(n.gamma), n.beta && Array.from(n.beta)])).toEqual(
      model.norms.map((n) => [n.name, n.values, Array.from(n.gamma), n.beta && Array.from(n.beta)]),
    );
    expect(exposed.norms).toEqual(model.norms);
    expect(exposed.model).toBe(model);
  });

  it('gives a Skip operator without its sum that output, and copies what follows its node byte for byte', async () => {
    const original = fixture('gpt2-fused.onnx');
    const model = await readOnnxModel(original);
    const lnf = model.norms.at(-1)!;
    expect([lnf.name, lnf.op, lnf.values.input]).toEqual([
      'transformer.ln_f',
      'SkipLayerNormalization',
      '/transformer/SkipLayerNormalization_3_output_0/input_skip_bias_sum',
    ]);
    const exposed = exposeNorms(model, { norms: ['transformer.ln_f'] });
    const graph = graphPayload(original);
    // Everything from the ln_f node's end (the initializers among it) is in the exposed model as it was.
    const node = find(graph, new TextEncoder().encode('/transformer/SkipLayerNormalization_3'));
    const rest = graph.subarray(node + 200);
    expect(find(exposed.bytes, rest)).toBeGreaterThan(0);
    const again = await readOnnxModel(exposed.bytes);
    expect(again.outputs.map((o) => o.name).slice(-2)).toEqual([lnf.values.input, lnf.values.output]);
    // The node now writes its sum: read again, the norm's input is that output, not a name to add.
    expect(again.norms.at(-1)!.values.input).toBe(lnf.values.input);
  });

  it('adds nothing for values that are already the model’s outputs or inputs', async () => {
    const gamma = Float32Array.from({ length: 16 }, (_, i) => 1 + i / 32);
    const bytes = layerNormalizationModelBytes({ shape: ['N', 16], scale: { data: gamma, dims: [16] } });
    const model = await readOnnxModel(bytes);
    expect(model.norms[0]!.values).toEqual({ input: 'X', output: 'Y' });
    expect(exposeNorms(model).bytes).toEqual(bytes);
  });

  it('goes to createNormCapture as it is, with its choice of norms', async () => {
    const model = await readOnnxModel(fixture('llama-fused.onnx'));
    const exposed = exposeNorms(model, { norms: [4] });
    const session = await createNormCapture(ort, exposed);
    expect(session.norms.map((n) => n.name)).toEqual(['model.norm']);
    const capture = await session.run(IDS);
    await session.release();
    const all = await captureNorms(ort, model, IDS);
    expect(capture.norms[0]!.input.data).toEqual(all.norms[4]!.input.data);
    expect(capture.outputs.logits!.data).toEqual(all.outputs.logits!.data);
  });
});
