/**
 * What the weight loaders take, apart from weights.ts, so that their argument checks
 * (load-arguments.ts), which weights.ts calls, can name it without importing it back.
 */

import type { ByteSourceInput, ByteSourceOptions } from './source-types.js';
import type { ConfigSource } from './config.js';

/** Two separate .npy files, e.g. exported with np.save('gamma.npy', ln.weight.detach().numpy()). */
export interface NpyPairSource {
  gamma: ByteSourceInput;
  /** null or omitted: no bias. */
  beta?: ByteSourceInput | null;
}

export type WeightsSource = ByteSourceInput | NpyPairSource;

export interface LoadWeightsOptions extends ByteSourceOptions {
  /** Name of the gain tensor in the checkpoint. */
  weight?: string;
  /** Name of the bias tensor; null loads the gain only. Omitted: the gain's sibling, if any. */
  bias?: string | null;
  /** Skip detection by magic bytes. */
  format?: 'safetensors' | 'gguf' | 'npy';
  /**
   * The model's config.json (a URL, Blob/File, its bytes, or the parsed object), which says
   * whether the norms are LayerNorms or RMSNorms and their ε. Omitted: for a file on the Hugging
   * Face Hub (https://huggingface.co/…/resolve/…), the config.json beside it is fetched, and its
   * absence is not an error. null: read none. A GGUF describes itself; its metadata comes first.
   */
  config?: ConfigSource | null;
}
