/** The package's functions the text chunk takes bundled whole (plugins/onnx-bundle.ts). */
declare module 'bundled:layernorm-wasm' {
  export { compareOutputs, normReference, NORMS } from 'layernorm-wasm';
  export { explainRow } from 'layernorm-wasm/explainer/compute';
}
