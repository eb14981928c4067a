/**
 * The `layernorm-wasm/onnx` entry point: the normalizations of an ONNX model, found, exposed as
 * graph outputs and captured from a run in the caller's own onnxruntime, ready for the package's
 * norms and `<layernorm-explainer>`. Pure TypeScript with no dependency; `layernorm-wasm` does not
 * load it.
 *
 *   const model = await readOnnxModel(url);            // model.norms: kind, ε, γ, β, names
 *   const capture = await captureNorms(ort, model, ids); // capture.norms[i].input: { data, shape }
 */
export { readOnnxModel } from './reader.js';
export { exposeNorms } from './expose.js';
export {
  captureNorms,
  createNormCapture,
  type CaptureOptions,
  type CaptureRunOptions,
  type NormCapture,
} from './capture.js';
export type { OnnxRuntime, OrtSession, OrtTensor, OrtTensorConstructor } from './runtime-types.js';
export type {
  Capture,
  CapturedNorm,
  CapturedTensor,
  Dim,
  ExposeOptions,
  ExposedModel,
  NormOp,
  NormSelection,
  OnnxModel,
  OnnxNorm,
  OnnxValue,
  OutputTensor,
  TableSize,
} from './types.js';
export { FormatError, FetchError } from '../io/errors.js';
export { DisposedError } from '../errors.js';
