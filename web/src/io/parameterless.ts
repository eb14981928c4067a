/**
 * A final norm without parameters (OLMo 1's LayerNorm, F.layer_norm(x, shape, None, None)): γ is
 * ones of the model's width and there is no β, so no tensor is read. Loaded only for such a family.
 */

import type { ModelConfig } from './config.js';
import type { TensorIndex } from './tensors.js';

/** The model's width: its config's hidden size, a GGUF's `<arch>.embedding_length`, or its embedding's width. */
function modelWidth(index: TensorIndex, config: ModelConfig | null, architecture: string | null): number | null {
  const values = config?.values;
  const nested = values?.text_config as Record<string, unknown> | undefined;
  const given = [
    values?.hidden_size,
    values?.d_model,
    nested?.hidden_size,
    index.metadata?.get(`${architecture}.embedding_length`),
  ];
  for (const v of given) {
    const n = typeof v === 'bigint' ? Number(v) : v;
    if (typeof n === 'number' && Number.isSafeInteger(n) && n > 0) return n;
  }
  for (const name of ['model.embed_tokens.weight', 'token_embd.weight']) {
    const shape = index.tensors.get(name)?.shape;
    if (shape?.length === 2 && shape[1]! > 0) return shape[1]!;
  }
  return null;
}

/** The weights of a parameterless final norm; the caller adds its kind, ε, convention and source. */
export function parameterless(
  index: TensorIndex,
  config: ModelConfig | null,
  architecture: string | null,
  format: 'safetensors' | 'gguf',
  fail: (p: string) => Error,
) {
  const d = modelWidth(index, config, architecture);
  if (d === null) {
    throw fail(
      'the final norm has no parameters, so its width comes from the model: expected hidden_size in config.json, ' +
        '<arch>.embedding_length in the GGUF, or an embedding tensor; found none',
    );
  }
  return {
    gamma: new Float32Array(d).fill(1),
    beta: null,
    d,
    architecture,
    names: { weight: format === 'gguf' ? 'output_norm' : 'model.norm', bias: null },
    dtype: 'none',
    dtypes: { weight: 'none', bias: null },
    format,
  };
}
