/**
 * Reading γ and β in the engine: a checkpoint by URL or file (a few KB of it), or seeded synthetic
 * weights. A checkpoint says which norm it holds (LayerNorm, or RMSNorm for a Llama-family GGUF or
 * a config.json with rms_norm_eps) and its ε; the engine runs that norm.
 */
import { FetchError, FormatError, loadNormWeights } from 'layernorm-wasm/io';
import type { WeightsInfo, WeightsRequest } from './protocol';
import { syntheticWeights } from './sample';

/** A failed load, with a message for the visitor and whether trying again could help. */
export class WeightsError extends Error {
  override name = 'WeightsError';
  constructor(
    message: string,
    readonly network: boolean,
  ) {
    super(message);
  }
}

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
      norm: 'layernorm',
      tensor: null,
      eps: null,
      architecture: null,
    };
  }
  const input = req.kind === 'url' ? req.url : req.file;
  // The size of a remote file arrives in the Content-Range header of the first range read.
  let total: number | null = req.kind === 'file' ? req.file.size : null;
  const trackingFetch: typeof fetch = async (r, init) => {
    const res = await fetch(r, init);
    const m = /\/(\d+)\s*$/.exec(res.headers.get('content-range') ?? '');
    if (m) total = Number(m[1]);
    return res;
  };
  try {
    const res = await loadNormWeights(input, { fetch: trackingFetch, signal, onProgress });
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
    };
  } catch (e) {
    if (signal.aborted) throw e;
    throw explain(e);
  }
}

function explain(e: unknown): WeightsError {
  if (e instanceof FetchError) {
    if (e.status === undefined) {
      return new WeightsError(
        'the request failed without an answer (offline, a network error, or a server that does not allow ' +
          `cross-origin range requests). Details: ${e.message}`,
        true,
      );
    }
    const what = e.status === 404 ? 'the server answered 404 Not Found' : `the server answered HTTP ${e.status}`;
    return new WeightsError(`${what}. Details: ${e.message}`, e.status >= 500);
  }
  if (e instanceof FormatError) return new WeightsError(`${e.message}.`, false);
  return new WeightsError(e instanceof Error ? `${e.message}.` : `${String(e)}.`, false);
}
