/**
 * Reading γ and β in the engine: a checkpoint by URL or file (a few KB of it), or seeded synthetic
 * weights. A checkpoint says which norm it holds (LayerNorm, or RMSNorm for a Llama-family GGUF or
 * a config.json with rms_norm_eps) and its ε; the engine runs that norm.
 */
import {
  FetchError,
  FormatError,
  GPT2_SAFETENSORS_URL,
  isGguf,
  isNpy,
  loadNormWeights,
  openByteSource,
} from 'layernorm-wasm/io';
import { DEFAULT_NORM } from 'layernorm-wasm';
import { errorText } from '../ui/format';
import type { WeightsInfo, WeightsRequest } from './protocol';
import { syntheticWeights } from './sample';

/**
 * A failed load, with a message for the visitor, whether trying again could help, and for a
 * checkpoint that does not say which norm is its final one, the gains to pick from.
 */
export class WeightsError extends Error {
  override name = 'WeightsError';
  constructor(
    message: string,
    readonly network: boolean,
    readonly candidates: string[] = [],
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
    if (e instanceof FormatError && !weight) {
      const candidates = await normGains(input, trackingFetch).catch(() => []);
      if (candidates.length > 1) throw ambiguous(candidates, !!config);
    }
    throw explain(e);
  }
}

/**
 * The 1-D gains among a safetensors checkpoint's tensors whose names say norm (its header only),
 * those outside the numbered blocks first: the final norm is usually one of them.
 */
async function normGains(input: string | File, fetchImpl: typeof fetch): Promise<string[]> {
  const src = await openByteSource(input, { fetch: fetchImpl });
  const head = await src.read(0, 8);
  if (isGguf(head) || isNpy(head)) return [];
  const length = Number(new DataView(head.buffer, head.byteOffset, 8).getBigUint64(0, true));
  if (!(length > 0 && length <= 100_000_000 && length + 8 <= (src.size ?? Infinity))) return [];
  const header = JSON.parse(new TextDecoder().decode(await src.read(8, length))) as Record<string, { shape?: unknown }>;
  const inBlock = (name: string) => /\.\d+\./.test(name);
  return Object.keys(header)
    .filter((name) => {
      const shape = header[name]?.shape;
      return (
        Array.isArray(shape) && shape.length === 1 && /norm|(^|\.)ln/i.test(name) && /(weight|gamma|scale)$/.test(name)
      );
    })
    .sort((a, b) => Number(inBlock(a)) - Number(inBlock(b)) || a.localeCompare(b, 'en', { numeric: true }));
}

function ambiguous(candidates: string[], hasConfig: boolean): WeightsError {
  const shown = candidates.slice(0, 3).join(', ');
  return new WeightsError(
    `this checkpoint holds ${candidates.length} norm gains (${shown}${candidates.length > 3 ? ', …' : ''}) and does not ` +
      'say which is the final one. Pick it below' +
      (hasConfig
        ? '.'
        : ", and give the model's config.json if you have it: it says whether the norm is an RMSNorm (Llama, Qwen, Mistral: rms_norm_eps) and its ε."),
    false,
    candidates,
  );
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
  return new WeightsError(`${errorText(e)}.`, false);
}
