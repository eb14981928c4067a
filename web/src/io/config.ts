/**
 * A model's config.json (Hugging Face transformers), read for what it says about the model's
 * norms: `model_type`, `layer_norm_epsilon` / `layer_norm_eps` and `rms_norm_eps`.
 */

import { isBlob } from './arguments.js';
import { parseHttpUrl, type ByteSourceInput, type ByteSourceOptions } from './byte-source.js';
import { brief } from './brief.js';
import { FetchError, FormatError } from './errors.js';
import { fetchFunction } from './fetch.js';

/** config.json as a URL, a Blob/File, its bytes, or the object it parses to. */
export type ConfigSource = ByteSourceInput | Record<string, unknown>;

/** Real config.json files are a few kilobytes; refuse anything this large before reading it. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

export interface ModelConfig {
  values: Record<string, unknown>;
  /** The URL, file name or "config object", for messages. */
  describe: string;
}

function describeBytes(value: ArrayBuffer | ArrayBufferView): string {
  return `${value.constructor.name} (${value.byteLength} bytes)`;
}

/** For a file on the Hugging Face Hub (…/resolve/<revision>/<path>), the config.json beside it. */
export function hubSiblingConfigUrl(source: unknown): string | null {
  if (typeof source !== 'string' && !(source instanceof URL)) return null;
  let url: URL;
  try {
    url = new URL(String(source));
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || (url.hostname !== 'huggingface.co' && url.hostname !== 'hf.co')) return null;
  // /<owner>/<repo>/resolve/<revision>/<file> (owner-less repos: /<repo>/resolve/…)
  const parts = url.pathname.split('/');
  const resolve = parts.indexOf('resolve');
  if (resolve < 2 || parts.length < resolve + 3 || parts[parts.length - 1] === 'config.json') return null;
  parts[parts.length - 1] = 'config.json';
  return `${url.origin}${parts.join('/')}`;
}

async function readLimitedText(response: Response, url: string): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > MAX_CONFIG_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw new FormatError('json', `expected a config.json of at most ${MAX_CONFIG_BYTES} bytes, got ${declared}`, {
      source: url,
    });
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > MAX_CONFIG_BYTES) {
        throw new FormatError('json', `expected a config.json of at most ${MAX_CONFIG_BYTES} bytes, got more`, {
          source: url,
        });
      }
      chunks.push(value);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(bytes);
}

async function fetchConfigText(url: string, options: ByteSourceOptions): Promise<string> {
  const fetchImpl = fetchFunction(options.fetch);
  let response: Response;
  try {
    response = await fetchImpl(url, { headers: { ...options.headers }, signal: options.signal });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    throw new FetchError('network error or CORS refusal while requesting config.json', { url, cause: error });
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    const reason = response.status === 404 ? 'not found' : `unexpected response ${response.statusText || ''}`.trim();
    throw new FetchError(`${reason}; expected 200 with config.json`, { url, status: response.status });
  }
  return readLimitedText(response, url);
}

/** Reads and parses a config.json given in any of the forms `ConfigSource` allows. */
export async function readModelConfig(source: ConfigSource, options: ByteSourceOptions = {}): Promise<ModelConfig> {
  let text: string;
  let describe: string;
  if (typeof source === 'string' || source instanceof URL) {
    describe = parseHttpUrl(source);
    text = await fetchConfigText(describe, options);
  } else if (isBlob(source)) {
    const name = (source as { name?: unknown }).name;
    describe = typeof name === 'string' && name ? name : `Blob (${source.size} bytes)`;
    if (source.size > MAX_CONFIG_BYTES) {
      throw new FormatError('json', `expected a config.json of at most ${MAX_CONFIG_BYTES} bytes, got ${source.size}`, {
        source: describe,
      });
    }
    text = await source.text();
  } else if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    describe = describeBytes(source);
    const bytes = source instanceof ArrayBuffer ? new Uint8Array(source) : source;
    text = new TextDecoder().decode(bytes);
  } else {
    // Anything else is the parsed object: the loaders checked options.config before calling.
    return { values: source, describe: 'the config object' };
  }
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch (error) {
    throw new FormatError('json', `expected config.json to be JSON (${(error as Error).message})`, {
      source: describe,
    });
  }
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    throw new FormatError(
      'json',
      `expected config.json to hold a JSON object, got ${Array.isArray(values) ? 'an array' : brief(values)}`,
      { source: describe },
    );
  }
  return { values: values as Record<string, unknown>, describe };
}

/**
 * The Hub's config.json beside `source`, or null when there is none to be had (not a Hub URL,
 * 404, no network, refused by CORS). Aborts and malformed files still throw.
 */
export async function readSiblingConfig(source: unknown, options: ByteSourceOptions): Promise<ModelConfig | null> {
  const url = hubSiblingConfigUrl(source);
  if (!url) return null;
  try {
    return await readModelConfig(url, options);
  } catch (error) {
    if (error instanceof FetchError) return null;
    throw error;
  }
}
