/**
 * Reading γ and β in the engine: a checkpoint by URL or file (a few KB of it), or seeded synthetic
 * weights. A checkpoint says which norm it holds (LayerNorm, or RMSNorm for a Llama-family GGUF or
 * a config.json with rms_norm_eps) and its ε; the engine runs that norm.
 */
import { GPT2_SAFETENSORS_URL, loadNormWeights } from 'layernorm-wasm/io';
import { DEFAULT_NORM } from 'layernorm-wasm';
import type { WeightsInfo, WeightsRequest } from './protocol';
import { syntheticWeights } from './sample';

let nextId = 1;

export async function readWeights(
  req: WeightsRequest,
  signal: AbortSignal,
  onProgress: (bytesRead: number) => void,
): Promise<WeightsInfo> {
  if (req.kind === 'synthetic') {
    const { gamma, beta } = syntheticWeights(req.d, req.seed);
    return {
      id: nextId++,
      gamma,
      beta,
      d: req.d,
      dtype: 'F32',
      bytesRead: 0,
      total: null,
      norm: DEFAULT_NORM,
      tensor: null,
      eps: null,
      architecture: null,
      warnings: [],
    };
  }
  const input = req.kind === 'gpt2' ? GPT2_SAFETENSORS_URL : req.kind === 'url' ? req.url : req.file;
  // The size of a remote file arrives in the Content-Range header of the first range read.
  let total: number | null = req.kind === 'file' ? req.file.size : null;
  const trackingFetch: typeof fetch = async (r, init) => {
    const res = await fetch(r, init);
    const m = /\/(\d+)\s*$/.exec(res.headers.get('content-range') ?? '');
    if (m) total = Number(m[1]);
    return res;
  };
  const given = req.kind === 'gpt2' ? undefined : req.config;
  const config = given && (given.kind === 'url' ? given.url : given.file);
  const weight = req.kind === 'gpt2' ? undefined : req.weight;
  try {
    const res = await loadNormWeights(input, {
      fetch: trackingFetch,
      signal,
      onProgress,
      ...(config ? { config } : {}),
      ...(weight ? { weight } : {}),
    });
    return {
      id: nextId++,
      gamma: res.gamma,
      beta: res.beta ?? null,
      d: res.d,
      dtype: res.dtype,
      bytesRead: res.bytesRead,
      total,
      norm: res.norm,
      tensor: res.names.weight,
      eps: res.eps,
      architecture: res.architecture,
      warnings: res.warnings,
    };
  } catch (e) {
    if (signal.aborted) throw e;
    // What a failure says is loaded only when a load fails.
    throw await (await import('./weights-failure')).failure(e, input, trackingFetch, !weight, !!config);
  }
}
