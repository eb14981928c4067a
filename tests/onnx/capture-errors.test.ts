// What capture refuses (web/docs/errors.md rows O12–O16), in onnxruntime-node and onnxruntime-web:
// token ids out of the vocabulary, empty, longer than the context or not integers, before the
// model runs; arguments of the wrong type; an input it cannot fill from token ids (until the
// caller gives it); activations the model does not type and the runtime returns as float16; a
// released session. After each, the same session (or a new capture) answers correctly.
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DisposedError,
  FormatError,
  captureNorms,
  createNormCapture,
  readOnnxModel,
  type NormCapture,
  type OnnxModel,
  type OnnxRuntime,
} from '../../dist/onnx/index.js';
// @ts-expect-error plain ESM module shared with the benchmark
import { layerNormalizationModelBytes } from '../../web/bench/onnx-model.mjs';
import { IDS, fixture } from './fixtures.js';

ortWeb.env.wasm.numThreads = 1;

const VOCABULARY = '(the vocabulary: the rows of transformer.wte.weight)';

/** The class and message of what `f` rejects with. */
async function rejection(f: () => Promise<unknown>): Promise<[string, string]> {
  try {
    await f();
  } catch (e) {
    return [(e as Error).name, (e as Error).message];
  }
  throw new Error('expected a rejection');
}

describe.each([
  ['onnxruntime-node', ortNode as OnnxRuntime],
  ['onnxruntime-web', ortWeb as OnnxRuntime],
])('%s', (_, ort) => {
  let model: OnnxModel;
  let session: NormCapture;
  let expected: Float32Array;
  beforeAll(async () => {
    model = await readOnnxModel(fixture('gpt2-opset14.onnx'));
    session = await createNormCapture(ort, model);
    expected = (await session.run(IDS)).norms[4]!.input.data;
  });
  /** The session still answers, and as before. */
  const answers = async () => expect((await session.run(IDS)).norms[4]!.input.data).toEqual(expected);

  it('O12: token ids outside the vocabulary, not integers, none, or more than the context, before anything runs', async () => {
    const bad: [unknown, string, string][] = [
      [[1, 64], 'RangeError', `NormCapture.run: tokens[1] must be an integer in [0, 64) ${VOCABULARY}, got number 64`],
      [[1, -1], 'RangeError', `NormCapture.run: tokens[1] must be an integer in [0, 64) ${VOCABULARY}, got number -1`],
      [[1.5], 'RangeError', `NormCapture.run: tokens[0] must be an integer in [0, 64) ${VOCABULARY}, got number 1.5`],
      [
        [3n, 2n ** 70n],
        'RangeError',
        `NormCapture.run: tokens[1] must be an integer in [0, 64) ${VOCABULARY}, got bigint 1180591620717411303424n`,
      ],
      [['3'], 'TypeError', `NormCapture.run: tokens[0] must be an integer in [0, 64) ${VOCABULARY}, got string "3"`],
      [[], 'RangeError', 'NormCapture.run: tokens must hold at least one token id, got length 0'],
      [
        new Array(33).fill(1),
        'RangeError',
        "NormCapture.run: tokens must hold at most 32 token ids (the model's context: the rows of transformer.wpe.weight), got length 33",
      ],
      [
        'hello',
        'TypeError',
        'NormCapture.run: tokens must be an array or typed array of token ids, got string "hello"',
      ],
    ];
    for (const [tokens, name, message] of bad) {
      expect(await rejection(() => session.run(tokens as number[]))).toEqual([name, message]);
      await answers();
    }
    // captureNorms checks them before it loads the model.
    expect(await rejection(() => captureNorms(ort, model, [70]))).toEqual([
      'RangeError',
      `captureNorms: tokens[0] must be an integer in [0, 64) ${VOCABULARY}, got number 70`,
    ]);
    // 32 ids (the whole context), bigints and typed arrays are ids.
    expect((await session.run(new Array(32).fill(63))).tokens).toBe(32);
    expect((await session.run(BigInt64Array.from(IDS, BigInt))).norms[4]!.input.data).toEqual(expected);
    expect((await session.run(Uint16Array.from(IDS))).norms[4]!.input.data).toEqual(expected);
  });

  it('O13: arguments of the wrong type', async () => {
    expect(await rejection(() => captureNorms({} as OnnxRuntime, model, IDS))).toEqual([
      'TypeError',
      'captureNorms: ort must be the onnxruntime-web or onnxruntime-node module, as import * as ort gives it, got Object',
    ]);
    expect(await rejection(() => captureNorms(ort, {} as OnnxModel, IDS))).toEqual([
      'TypeError',
      'captureNorms: model must be a model from readOnnxModel() or exposeNorms(), got Object',
    ]);
    expect(await rejection(() => createNormCapture(ort, null as never))).toEqual([
      'TypeError',
      'createNormCapture: model must be a model from readOnnxModel() or exposeNorms(), got null',
    ]);
    expect(await rejection(() => createNormCapture(ort, model, { norms: ['transformer.h.2.ln_1'] }))).toEqual([
      'RangeError',
      "createNormCapture: norms[0] must be a norm's name or index ('transformer.h.0.ln_1', 'transformer.h.0.ln_2', 'transformer.h.1.ln_1', …, or an index from 0 to 4), got string \"transformer.h.2.ln_1\"",
    ]);
    expect(await rejection(() => captureNorms(ort, model, IDS, 5 as never))).toEqual([
      'TypeError',
      'captureNorms: options must be an object, got number 5',
    ]);
    expect(await rejection(() => captureNorms(ort, model, IDS, { sessionOptions: 'wasm' as never }))).toEqual([
      'TypeError',
      'captureNorms: sessionOptions must be an object (InferenceSession.create\'s options), got string "wasm"',
    ]);
    expect(await rejection(() => session.run(IDS, { feeds: 5 as never }))).toEqual([
      'TypeError',
      "NormCapture.run: feeds must be an object of the runtime's tensors by input name, got number 5",
    ]);
    await answers();
  });

  it('O14: an input capture cannot fill from token ids, until the caller gives it', async () => {
    const gamma = Float32Array.from({ length: 16 }, (_, i) => 1 + i / 32);
    const bytes = layerNormalizationModelBytes({ shape: ['N', 16], scale: { data: gamma, dims: [16] } });
    const hidden = await readOnnxModel(bytes);
    const error = await rejection(() => captureNorms(ort, hidden, [1]));
    expect(error).toEqual([
      'FormatError',
      'Uint8Array (241 bytes): invalid onnx: the model declares an input "X" (float32 [N, 16]) that capture cannot fill from token ids; pass it in options.feeds',
    ]);
    const x = Float32Array.from({ length: 32 }, (_, i) => Math.sin(i) * 3);
    const capture = await captureNorms(ort, hidden, [1], { feeds: { X: new ort.Tensor('float32', x, [2, 16]) } });
    expect(capture.norms[0]!.input).toEqual({ data: x, shape: [2, 16] });
    expect(capture.norms[0]!.rows).toBe(2);
  });

  it('O15: float16 activations the model does not type, as the runtime returns them', async () => {
    const mixed = await readOnnxModel(fixture('float16-activations-untyped.onnx'));
    const x = new ort.Tensor(
      'float32',
      new Float32Array(16).map((_, i) => i),
      [1, 1, 16],
    );
    const error = await rejection(() => captureNorms(ort, mixed, [1], { feeds: { x } }));
    expect(error).toEqual([
      'FormatError',
      'Uint8Array (426 bytes): invalid onnx: the runtime returned a float16 tensor for "x16", whose type the model does not state; expected float32 activations',
    ]);
    await answers();
  });

  it('O16: a released capture', async () => {
    const released = await createNormCapture(ort, model);
    await released.release();
    const error = await rejection(() => released.run(IDS));
    expect(error).toEqual([
      'DisposedError',
      'NormCapture.run: this capture was released; create a new one with createNormCapture()',
    ]);
    await answers();
  });

  it('the errors are the package’s classes', async () => {
    const released = await createNormCapture(ort, model);
    await released.release();
    await expect(released.run(IDS)).rejects.toBeInstanceOf(DisposedError);
    const hidden = await readOnnxModel(
      layerNormalizationModelBytes({ shape: [2, 16], scale: { data: new Float32Array(16), dims: [16] } }),
    );
    await expect(captureNorms(ort, hidden, [1])).rejects.toBeInstanceOf(FormatError);
  });
});
