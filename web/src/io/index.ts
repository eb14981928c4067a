/** The `layernorm-wasm/io` entry point: reading weights and activations, writing results. */

export { FormatError, FetchError, type FileFormat } from './errors.js';
export { openByteSource, type ByteSource, type ByteSourceInput, type ByteSourceOptions } from './byte-source.js';
export { float16ToFloat32, bfloat16ToFloat32 } from './dtype.js';
export { isGguf, isNpy } from './magic.js';
export {
  readNpy,
  readNpyHeader,
  decodeNpyData,
  writeNpy,
  writeNpyHeader,
  type NpyArray,
  type NpyDtype,
  type NpyHeader,
} from './npy.js';
export { parseActivationsJson, parseActivationsText, type Activations } from './text.js';
export {
  loadLayerNormWeights,
  loadNormWeights,
  GPT2_SAFETENSORS_URL,
  KNOWN_LAYERNORM_NAMES,
  type ConfigSource,
  type GainRule,
  type LayerNormWeights,
  type NormConvention,
  type LoadWeightsOptions,
  type NormKind,
  type NormWeights,
  type NpyPairSource,
  type WeightsSource,
} from './weights.js';
