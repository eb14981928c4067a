/**
 * A model or tokenizer file fetched whole, once: kept in the browser's Cache Storage under its URL,
 * so a second visit reads it from there and downloads nothing. The size is asked first (a HEAD,
 * redirects followed as the Hub's CDN needs), so the page can say it before the first byte; the
 * body then streams with progress (a cut connection resumes by a range request for the rest), and
 * a cancel aborts it and keeps nothing.
 */
import { MODEL_CACHE } from './hub';

/** A file the page could not download, with the HTTP status or network failure that stopped it. */
export class DownloadError extends Error {
  override name = 'DownloadError';
  constructor(
    message: string,
    /** No HTTP answer at all: trying again may help. */
    readonly network: boolean,
  ) {
    super(message);
  }
}

export interface Downloaded {
  bytes: Uint8Array;
  /** Read from Cache Storage: nothing was downloaded. */
  cached: boolean;
}

export type OnBytes = (done: number, total: number) => void;

async function openCache(): Promise<Cache | null> {
  // Cache Storage exists only in a secure context (https, or a page from localhost / 127.0.0.1).
  if (typeof caches === 'undefined') return null;
  try {
    return await caches.open(MODEL_CACHE);
  } catch {
    return null;
  }
}

async function request(url: string, init: RequestInit, what: string): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (e) {
    if (init.signal?.aborted) throw init.signal.reason;
    throw new DownloadError(
      `Could not download ${what} from ${url}: the network request failed (${(e as Error).message}). Check the address and your connection, then try again.`,
      true,
    );
  }
  if (!res.ok) {
    const hint = res.status === 404 ? ' The file is not there: check the address.' : '';
    throw new DownloadError(
      `Could not download ${what} from ${url}: HTTP ${res.status} ${res.statusText}.${hint}`,
      false,
    );
  }
  return res;
}

const lengthOf = (res: Response): number => {
  const n = Number(res.headers.get('Content-Length'));
  return Number.isSafeInteger(n) && n > 0 && !res.headers.get('Content-Encoding') ? n : 0;
};

/** The file's size from a HEAD (0 when the server does not say). */
export async function sizeOf(url: string, signal: AbortSignal, what: string): Promise<number> {
  const res = await request(url, { method: 'HEAD', signal }, what);
  return lengthOf(res);
}

/**
 * The file at `url`, from Cache Storage when a visit kept it, else downloaded: its size first
 * (`onBytes(0, total)`), then the bytes as they come.
 */
export async function download(url: string, what: string, signal: AbortSignal, onBytes: OnBytes): Promise<Downloaded> {
  const cache = await openCache();
  const hit = await cache?.match(url);
  if (hit) {
    const bytes = new Uint8Array(await hit.arrayBuffer());
    onBytes(bytes.length, bytes.length);
    return { bytes, cached: true };
  }
  const announced = await sizeOf(url, signal, what);
  onBytes(0, announced);
  let res = await request(url, { signal }, what);
  const total = lengthOf(res) || announced;
  const chunks: Uint8Array[] = [];
  let done = 0;
  let told = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      const reader = res.body!.getReader();
      for (;;) {
        const { done: end, value } = await reader.read();
        if (end) break;
        chunks.push(value);
        done += value.length;
        // About 200 reports over the file (every 64 KB when its size is unknown), at least 1 KB apart.
        if (done - told >= Math.max(1024, total ? total / 200 : 65536)) {
          told = done;
          onBytes(done, total);
        }
      }
      if (!total || done === total) break;
      throw new Error(`the body ended after ${done} of ${total} bytes`);
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      if (attempt === 3 || !total) {
        throw new DownloadError(
          `The download of ${what} from ${url} stopped after ${done} of ${total || 'an unknown number of'} bytes (${(e as Error).message}). Try again.`,
          true,
        );
      }
    }
    // A cut connection: the rest by a range request, or the whole file again where the server
    // answers a range with the whole file.
    res = await request(url, { signal, headers: { Range: `bytes=${done}-` } }, what);
    const resumed = res.status === 206 && res.headers.get('Content-Range')?.startsWith(`bytes ${done}-`);
    if (!resumed) {
      chunks.length = 0;
      done = 0;
    }
  }
  const bytes = new Uint8Array(done);
  let at = 0;
  for (const c of chunks) bytes.set(c, (at += c.length) - c.length);
  onBytes(done, done);
  // A full cache (quota) only costs the next visit a download.
  await cache?.put(url, new Response(bytes, { headers: { 'Content-Length': String(done) } })).catch(() => undefined);
  return { bytes, cached: false };
}
