/**
 * Random access to bytes that may live far away. Weight files are hundreds of megabytes while the
 * tensors we need are a few kilobytes, so every reader in this package asks for exact byte ranges
 * and never for a whole file.
 */

import { numberError } from '../checks/validate.js';
import { checkByteSourceInput, checkByteSourceOptions, isBlob } from './arguments.js';
import { FetchError } from './errors.js';
import { fetchFunction, type FetchFunction } from './fetch.js';
import { cancel, noBody, throwIfAborted } from './http-util.js';
import type { ByteSource, ByteSourceInput, ByteSourceOptions } from './source-types.js';

export type { ByteSource, ByteSourceInput, ByteSourceOptions } from './source-types.js';

/** ByteSource.read's arguments: whole byte counts, inside the file when its size is known. */
function checkRange(offset: unknown, length: unknown, size: number | undefined, what: string): void {
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
    throw numberError('ByteSource.read', 'offset', 'an integer >= 0', offset);
  }
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
    throw numberError('ByteSource.read', 'length', 'an integer >= 0', length);
  }
  if (size !== undefined && offset + length > size) {
    throw new RangeError(`${what}: bytes ${offset}..${offset + length} requested but the file is only ${size} bytes`);
  }
}

abstract class BaseSource implements ByteSource {
  bytesRead = 0;
  protected bytesExpected = 0;
  abstract readonly size: number | undefined;
  abstract readonly describe: string;
  constructor(readonly options: ByteSourceOptions) {}

  /** The two counters below are public for whole-body.ts, which reads for an HttpSource. */
  expect(n: number): void {
    this.bytesExpected += n;
  }
  received(n: number): void {
    this.bytesRead += n;
    // The expectation can be exceeded when a server sends more than asked; keep it honest.
    if (this.bytesRead > this.bytesExpected) this.bytesExpected = this.bytesRead;
    this.options.onProgress?.(this.bytesRead, this.bytesExpected);
  }
  abstract read(offset: number, length: number): Promise<Uint8Array>;
}

class MemorySource extends BaseSource {
  readonly size: number;
  readonly describe: string;
  constructor(
    private readonly bytes: Uint8Array,
    options: ByteSourceOptions,
    label: string,
  ) {
    super(options);
    this.size = bytes.length;
    this.describe = `${label} (${bytes.length} bytes)`;
  }
  async read(offset: number, length: number): Promise<Uint8Array> {
    throwIfAborted(this.options.signal);
    checkRange(offset, length, this.size, this.describe);
    this.expect(length);
    this.received(length);
    return this.bytes.subarray(offset, offset + length);
  }
}

class BlobSource extends BaseSource {
  readonly size: number;
  readonly describe: string;
  constructor(
    private readonly blob: Blob,
    options: ByteSourceOptions,
  ) {
    super(options);
    this.size = blob.size;
    const name = (blob as { name?: unknown }).name;
    this.describe = typeof name === 'string' && name ? `${name} (${blob.size} bytes)` : `Blob (${blob.size} bytes)`;
  }
  async read(offset: number, length: number): Promise<Uint8Array> {
    throwIfAborted(this.options.signal);
    checkRange(offset, length, this.size, this.describe);
    this.expect(length);
    const bytes = new Uint8Array(await this.blob.slice(offset, offset + length).arrayBuffer());
    throwIfAborted(this.options.signal);
    this.received(bytes.length);
    if (bytes.length !== length) {
      throw new RangeError(`${this.describe}: expected ${length} bytes at offset ${offset}, got ${bytes.length}`);
    }
    return bytes;
  }
}

const CONTENT_RANGE = /^\s*bytes\s+(\d+)-(\d+)\/(\d+|\*)\s*$/i;

class HttpSource extends BaseSource {
  size: number | undefined;
  readonly describe: string;
  /** The whole file, when a server without range support sent it and it was small (whole-body.ts). */
  whole: Uint8Array | undefined;
  private readonly fetchImpl: FetchFunction;

  constructor(
    private readonly url: string,
    options: ByteSourceOptions,
  ) {
    super(options);
    this.describe = url;
    this.fetchImpl = fetchFunction(options.fetch);
  }

  fail(problem: string, status?: number, cause?: unknown): FetchError {
    return new FetchError(problem, { url: this.url, status, cause });
  }

  /**
   * Records the file size a response states; a size that differs from an earlier response's means
   * the file changed between requests, and then this response's body is cancelled too.
   */
  async learnSize(total: number, response: Response): Promise<void> {
    if (this.size !== undefined && this.size !== total) {
      await cancel(response);
      throw this.fail(`the file changed size between requests (${this.size} bytes, now ${total})`, response.status);
    }
    this.size = total;
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    const signal = this.options.signal;
    throwIfAborted(signal);
    checkRange(offset, length, this.size, this.describe);
    if (length === 0) return new Uint8Array(0);
    if (this.whole) return this.whole.subarray(offset, offset + length);
    const last = offset + length - 1;
    const wanted = `bytes ${offset}-${last}`;
    this.expect(length);

    let response: Response;
    try {
      response = await this.fetchImpl(this.url, {
        // Ask for the bytes as stored: a compressed body has no byte ranges of the file. (Browsers
        // manage Accept-Encoding themselves and ignore this; Node's fetch honours it.)
        headers: { 'Accept-Encoding': 'identity', ...this.options.headers, Range: `bytes=${offset}-${last}` },
        signal,
      });
    } catch (error) {
      throwIfAborted(signal);
      throw this.fail(
        `network error or CORS refusal while requesting ${wanted} (a cross-origin server must allow the Range header)`,
        undefined,
        error,
      );
    }
    const encoding = contentEncoding(response);

    if (response.status === 206) {
      if (encoding !== null) {
        await cancel(response);
        throw this.fail(
          `asked for ${wanted}, got 206 with Content-Encoding "${encoding}", whose byte range counts compressed ` +
            "bytes, not the file's; the server must send ranges of the file as stored",
          206,
        );
      }
      const header = response.headers.get('content-range');
      const match = header ? CONTENT_RANGE.exec(header) : null;
      if (!match) {
        await cancel(response);
        throw this.fail(
          header
            ? `asked for ${wanted}, got 206 with an unreadable Content-Range "${header}"`
            : `asked for ${wanted}, got 206 without a readable Content-Range header ` +
                '(a cross-origin server must send Access-Control-Expose-Headers: Content-Range)',
          206,
        );
      }
      const [start, end] = [Number(match[1]), Number(match[2])];
      if (match[3] !== '*') {
        // A size past 2^53 is no file's, and a double would hold it only rounded.
        const total = Number(match[3]);
        if (!Number.isSafeInteger(total)) {
          await cancel(response);
          throw this.fail(
            `asked for ${wanted}, got Content-Range "${header}": a size past 2^53 bytes, which no file has`,
            206,
          );
        }
        await this.learnSize(total, response);
      }
      if (start === offset && end < last && this.size === end + 1) {
        await cancel(response);
        throw this.fail(`asked for ${wanted} but the file is only ${this.size} bytes`, 206);
      }
      if (start !== offset || end !== last) {
        await cancel(response);
        throw this.fail(`asked for ${wanted}, got Content-Range "${header}"`, 206);
      }
      return this.readBody(response, 0, length, wanted);
    }

    if (response.status === 200) {
      // A server that ignores Range is rare (the Hub and static hosts honour it): its code is
      // loaded only then.
      const { readWholeBody } = await import('./whole-body.js');
      return readWholeBody(this, response, offset, length, encoding);
    }

    await cancel(response);
    if (response.status === 416) {
      throw this.fail(`${wanted} lies beyond the end of the file (416 Range Not Satisfiable)`, 416);
    }
    const reason = response.status === 404 ? 'not found' : `unexpected response ${response.statusText || ''}`.trim();
    throw this.fail(`${reason}; expected 206 Partial Content for ${wanted}`, response.status);
  }

  /**
   * Reads `skip + length` body bytes, keeps the last `length`, and cancels the rest of the stream.
   * With `endIsShort`, a body that ends early is returned as it is (the caller knows the file
   * may be shorter); otherwise that is a truncated body.
   */
  async readBody(
    response: Response,
    skip: number,
    length: number,
    wanted: string,
    endIsShort = false,
  ): Promise<Uint8Array> {
    const out = new Uint8Array(length);
    const need = skip + length;
    let got = 0;
    const body = response.body;
    if (!body) throw this.fail(noBody(wanted), response.status);
    const reader = body.getReader();
    try {
      while (got < need) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (error) {
          throwIfAborted(this.options.signal);
          throw this.fail(
            `connection failed after ${got} of ${need} bytes for ${wanted} (truncated body)`,
            response.status,
            error,
          );
        }
        if (chunk.done) {
          if (endIsShort) return out.subarray(0, Math.max(0, got - skip));
          throw this.fail(`body ended after ${got} of ${need} bytes for ${wanted} (truncated body)`, response.status);
        }
        const bytes = chunk.value;
        const from = Math.max(0, skip - got);
        const to = Math.min(bytes.length, need - got);
        if (to > from) out.set(bytes.subarray(from, to), got + from - skip);
        got += bytes.length;
        this.received(bytes.length);
      }
    } finally {
      // Stops the transfer of anything beyond what we need (e.g. a 200 for a whole file).
      await reader.cancel().catch(() => undefined);
    }
    return out;
  }
}

/** The response's Content-Encoding, or null for none or "identity". */
function contentEncoding(response: Response): string | null {
  const value = response.headers.get('content-encoding')?.trim().toLowerCase();
  return value && value !== 'identity' ? value : null;
}

/** Resolves a URL string against the page's location in a browser; http(s) only. */
export function parseHttpUrl(input: string | URL): string {
  let url: URL;
  try {
    const base = (globalThis as { location?: { href?: string } }).location?.href;
    url = typeof input === 'string' ? new URL(input, base) : input;
  } catch {
    throw new TypeError(`expected an http: or https: URL, got ${JSON.stringify(String(input))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(
      `expected an http: or https: URL, got ${JSON.stringify(url.href)} ` +
        '(for a local file pass a Blob/File; in Node use await fs.openAsBlob(path))',
    );
  }
  return url.href;
}

/** Wraps a URL, Blob/File or in-memory bytes as a ByteSource. Nothing is read until `read`. */
export function openByteSource(source: ByteSourceInput, options: ByteSourceOptions = {}): ByteSource {
  return byteSourceFor(
    checkByteSourceInput('openByteSource', 'source', source),
    checkByteSourceOptions('openByteSource', options),
  );
}

/** openByteSource for callers that checked the source and options themselves, naming their own function. */
export function byteSourceFor(source: ByteSourceInput, options: ByteSourceOptions): ByteSource {
  if (typeof source === 'string' || source instanceof URL) return new HttpSource(parseHttpUrl(source), options);
  if (isBlob(source)) return new BlobSource(source, options);
  if (source instanceof ArrayBuffer) return new MemorySource(new Uint8Array(source), options, 'ArrayBuffer');
  const bytes = new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  return new MemorySource(bytes, options, source.constructor.name);
}
