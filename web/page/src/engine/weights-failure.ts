/**
 * What a failed weights load tells the visitor, in a module the engine loads only when a load
 * fails: the network or format problem in words, and for a checkpoint with several norm gains
 * and no word on which is the final one, those gains to pick from.
 */
import { FetchError, FormatError, isGguf, isNpy, openByteSource } from 'layernorm-wasm/io';
import { errorText } from '../ui/format';
import { WeightsError } from './weights-error';

/**
 * The error to report for `e`. `mayPick`: no tensor was named, so the gains can be offered;
 * `hasConfig`: a config.json was given with the checkpoint.
 */
export async function failure(
  e: unknown,
  input: string | File,
  fetchImpl: typeof fetch,
  mayPick: boolean,
  hasConfig: boolean,
): Promise<WeightsError> {
  if (e instanceof FormatError && mayPick) {
    const candidates = await normGains(input, fetchImpl).catch(() => []);
    if (candidates.length > 1) return ambiguous(candidates, hasConfig);
  }
  return explain(e);
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
