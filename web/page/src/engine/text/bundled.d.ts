/** The package's functions the text chunk takes bundled whole (plugins/onnx-bundle.ts). */
declare module 'bundled:layernorm-wasm' {
  export { compareOutputs, explainRow, normReference, NORMS } from 'layernorm-wasm';
}
