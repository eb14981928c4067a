// captureNorms in onnxruntime-node and in onnxruntime-web (its wasm backend, in Node; Chromium:
// tests/browser/onnx.spec.ts), on every tiny model of tests/data/onnx/:
//   - the exposed model's own outputs (logits, present key values) are the original model's, bit for bit;
//   - each norm's captured input is what the kit's independent float64 forward pass of the model
//     (tests/kit/onnx/tiny-models.mjs) says it sees, within the float32 tolerance derived below;
//   - the package's norm of each captured input meets the numerics contract against the exact
//     oracle, and the runtime's own output of the norm is that norm's (within float32 error);
//   - the captured record goes into layerNorm / rmsNorm / createLayerNorm as it is.
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import { NORMS, init, type LayerNormRuntime } from '../../dist/index.js';
import {
  captureNorms,
  createNormCapture,
  readOnnxModel,
  type Capture,
  type OnnxModel,
  type OnnxRuntime,
} from '../../dist/onnx/index.js';
import { contractViolation } from '../kit/contract.mjs';
import { exactLayerNorm, exactRmsNorm } from '../kit/exact.mjs';
import { IDS, MODELS, fixture, referenceInputs, type TinyModel } from './fixtures.js';

ortWeb.env.wasm.numThreads = 1;
const RUNTIMES: [string, OnnxRuntime][] = [
  ['onnxruntime-node', ortNode],
  ['onnxruntime-web', ortWeb],
];

/**
 * How far a float32 run may be from the float64 forward pass, as a fraction of the row's largest
 * |x|. Each value a norm sees here is the end of at most 2 blocks of about 40 float32 operations
 * on any path (make-models.py), each rounded within u = 2⁻²⁴ of its result; the dot products (16
 * to 64 terms) add up to n·u of Σ|aᵢbᵢ| (Higham's γₙ), and with weights of N(0, 0.3²) and norm
 * outputs of |γ x̂ + β| ≲ 4 that sum stays within a few times the row's largest |x|, which then
 * passes through the next block's sublayers with a gain of a few. That bounds the error near 2¹⁰ u
 * of the row's largest |x| (2⁻¹⁴); measured: at most 8.2 u (llama-fused's model.norm, 6.5e-6 of 13.1).
 * What a wrong capture returns differs by far more: the input of the next norm or of the one
 * before (checked below) is 0.1 to 1 of that magnitude away.
 */
const TOLERANCE = 2 ** -14;

/** The feeds of a first step, written here independently of the package: ids, ones, 0…T−1, empty past. */
function feeds(ort: OnnxRuntime, model: OnnxModel, ids: readonly number[]) {
  const out: Record<string, unknown> = {};
  const seq = (f: (i: number) => number) =>
    new ort.Tensor(
      'int64',
      BigInt64Array.from(ids, (_, i) => BigInt(f(i))),
      [1, ids.length],
    );
  for (const input of model.inputs) {
    if (input.name === 'input_ids') out[input.name] = seq((i) => ids[i]!);
    else if (input.name === 'attention_mask') out[input.name] = seq(() => 1);
    else if (input.name === 'position_ids') out[input.name] = seq((i) => i);
    else out[input.name] = new ort.Tensor('float32', new Float32Array(0), [1, 2, 0, 8]);
  }
  return out;
}

const sessionOptions = (m: TinyModel, runtime: string) =>
  runtime === 'onnxruntime-node' && m.nodeOptimization ? { graphOptimizationLevel: m.nodeOptimization } : {};

/** The largest |a − b| over a row, and the row's largest |b|. */
function rowError(a: ArrayLike<number>, b: ArrayLike<number>, from: number, d: number): [number, number] {
  let err = 0,
    max = 0;
  for (let i = from; i < from + d; i++) {
    err = Math.max(err, Math.abs(a[i]! - b[i]!));
    max = Math.max(max, Math.abs(b[i]!));
  }
  return [err, max];
}

let rt: LayerNormRuntime;
beforeAll(async () => {
  rt = await init();
});

describe.each(RUNTIMES)('%s', (runtime, ort) => {
  describe.each(MODELS)('$file', (m) => {
    let model: OnnxModel;
    let capture: Capture;
    beforeAll(async () => {
      model = await readOnnxModel(fixture(m.file));
      capture = await captureNorms(ort, model, IDS, { sessionOptions: sessionOptions(m, runtime) });
    });

    it("runs, and the model's own outputs are the original model's, bit for bit", async () => {
      const session = await ort.InferenceSession.create(model.bytes, sessionOptions(m, runtime));
      const original = (await session.run(feeds(ort, model, IDS) as never)) as Record<
        string,
        { data: Float32Array; dims: number[] }
      >;
      await session.release();
      expect(Object.keys(capture.outputs)).toEqual(model.outputs.map((o) => o.name));
      for (const [name, t] of Object.entries(capture.outputs)) {
        expect(t.shape, name).toEqual(original[name]!.dims);
        const a = t.data as Float32Array;
        const b = original[name]!.data;
        expect(a.length, name).toBe(b.length);
        expect(
          a.every((v, i) => Object.is(v, b[i])),
          `${name} bit for bit`,
        ).toBe(true);
      }
      expect(capture.outputs.logits!.shape).toEqual([1, IDS.length, 64]);
    });

    it('captures every norm: its input and the runtime’s output, one row per token', () => {
      expect(capture.tokens).toBe(IDS.length);
      expect(capture.ids).toEqual(IDS);
      expect(capture.norms.map((n) => n.name)).toEqual(model.norms.map((n) => n.name));
      for (const n of capture.norms) {
        expect([n.input.shape, n.output.shape, n.rows]).toEqual([[1, IDS.length, 16], [1, IDS.length, 16], IDS.length]);
        expect(n.input.data).toBeInstanceOf(Float32Array);
      }
    });

    it.skipIf(m.quantized)(
      'each captured input is the independent float64 forward pass’s, within the float32 tolerance',
      () => {
        const reference = referenceInputs(m, IDS);
        capture.norms.forEach((n, k) => {
          for (let row = 0; row < n.rows; row++) {
            const [err, max] = rowError(n.input.data, reference[k]!, row * n.d, n.d);
            expect(err, `${n.name}, token ${row}: ${err} of ${max}`).toBeLessThanOrEqual(TOLERANCE * max);
            // The test can fail: a neighbour's input is far outside it.
            const other = reference[k === 0 ? 1 : k - 1]!;
            const [off] = rowError(n.input.data, other, row * n.d, n.d);
            expect(off).toBeGreaterThan(1000 * TOLERANCE * max);
          }
        });
      },
    );

    it("the package's norm of each captured input meets the numerics contract; the runtime's output is that norm", () => {
      for (const n of capture.norms) {
        const exact = NORMS[n.norm].centred
          ? exactLayerNorm(n.input.data, n.d, { gamma: n.gamma, beta: n.beta, eps: n.eps })
          : exactRmsNorm(n.input.data, n.d, { gamma: n.gamma, eps: n.eps });
        const y = rt[NORMS[n.norm].api.call as 'layerNorm'](n.input.data, n.d, n);
        expect(contractViolation(y, exact, n.beta, n.d), n.name).toBeNull();
        // The resident form, from the same record, gives the same bits.
        const resident = rt[NORMS[n.norm].api.create as 'createLayerNorm'](n.d, n);
        expect(
          resident.forward(n.input.data).every((v, i) => Object.is(v, y[i])),
          n.name,
        ).toBe(true);
        resident.dispose();
        // The runtime's own output: float32 arithmetic of its own, within a few 1e-6 of the exact answer.
        for (let i = 0; i < exact.length; i++) {
          expect(Math.abs(n.output.data[i]! - exact[i]!), `${n.name}[${i}]`).toBeLessThan(
            2e-5 * (1 + Math.abs(exact[i]!)),
          );
        }
      }
    });
  });
});

describe('a capture session', () => {
  it('runs one text after another, each as captureNorms would, and the selected norms only', async () => {
    const model = await readOnnxModel(fixture('gpt2-opset14.onnx'));
    const session = await createNormCapture(ortWeb, model, { norms: ['transformer.ln_f', 0] });
    expect(session.norms.map((n) => n.name)).toEqual(['transformer.h.0.ln_1', 'transformer.ln_f']);
    const first = await session.run(IDS.slice(0, 5));
    const second = await session.run(BigInt64Array.from(IDS, BigInt));
    await session.release();
    await session.release();
    const whole = await captureNorms(ortWeb, model, IDS);
    expect(first.norms[1]!.input.shape).toEqual([1, 5, 16]);
    expect(second.norms[1]!.input.data).toEqual(whole.norms[4]!.input.data);
    expect(second.norms[0]!.output.data).toEqual(whole.norms[0]!.output.data);
  });
});
