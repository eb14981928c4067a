/**
 * Everything the page uses from the package, imported by name as any app would. The page adds no
 * arithmetic of its own to LayerNorm: outputs, statistics, stages and the reference all come from here.
 */
export {
  init,
  layerNormReference,
  compareOutputs,
  ulp32,
  loadLayerNormWeights,
  readNpy,
  writeNpy,
  parseActivationsJson,
  parseActivationsText,
  FormatError,
  FetchError,
  GPT2_SAFETENSORS_URL,
} from 'layernorm-wasm';
export type { LayerNormRuntime, LayerNormStages, LayerNormStats, Backend } from 'layernorm-wasm';
