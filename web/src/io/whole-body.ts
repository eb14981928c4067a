/**
 * Reading for a server that ignores Range and answers 200 with the whole file: only the bytes
 * needed, within a limit, and the whole file kept when it is small. Rare (the Hugging Face Hub and
 * static hosts honour Range), so byte-source.ts loads this only when it meets such a server.
 */

import type { FetchError } from './errors.js';
import { cancel, noBody, throwIfAborted } from './http-util.js';
import type { ByteSourceOptions } from './source-types.js';

const DEFAULT_MAX_WHOLE_BODY = 16 * 1024 * 1024;

/** What this reads through: byte-source.ts's HttpSource. */
export interface WholeBodyReader {
  size: number | undefined;
  whole: Uint8Array | undefined;
  readonly options: ByteSourceOptions;
  expect(n: number): void;
  received(n: number): void;
  learnSize(total: number, response: Response): Promise<void>;
  fail(problem: string, status?: number, cause?: unknown): FetchError;
  readBody(response: Response, skip: number, length: number, wanted: string, endIsShort?: boolean): Promise<Uint8Array>;
}

/** A 200 answer to a range request: the server ignored Range and sends the whole file. */
export async function readWholeBody(
  source: WholeBodyReader,
  response: Response,
  offset: number,
  length: number,
  encoding: string | null,
): Promise<Uint8Array> {
  const wanted = `bytes ${offset}-${offset + length - 1}`;
  // With Content-Encoding, Content-Length counts the compressed bytes, not the file's.
  const declared = encoding === null ? Number(response.headers.get('content-length') ?? NaN) : NaN;
  if (Number.isSafeInteger(declared)) await source.learnSize(declared, response);
  const limit = source.options.maxWholeBodyBytes ?? DEFAULT_MAX_WHOLE_BODY;
  const size = source.size;
  if (size !== undefined && offset + length > size) {
    await cancel(response);
    throw source.fail(`asked for ${wanted} but the file is only ${size} bytes`, 200);
  }
  if (offset + length > limit) {
    await cancel(response);
    throw source.fail(
      `the server ignored the Range request for ${wanted} and answered 200 with the whole ` +
        `${size !== undefined ? `${size}-byte ` : ''}file; reading up to byte ${offset + length} ` +
        `would download more than the ${limit}-byte limit (maxWholeBodyBytes)`,
      200,
    );
  }
  if (size === undefined) {
    // Size unknown (compressed, or no Content-Length): read only the bytes asked for. A body
    // that ends first is the whole file, and shorter than the request.
    source.expect(offset);
    const prefix = await source.readBody(response, 0, offset + length, wanted, true);
    if (prefix.length < offset + length) {
      source.size = prefix.length;
      throw source.fail(`asked for ${wanted} but the file is only ${prefix.length} bytes`, 200);
    }
    return prefix.subarray(offset);
  }
  // A small file from a server without range support: keep all of it when it fits, so later
  // reads do not download it again; otherwise stop as soon as the wanted bytes are in.
  if (size <= limit) {
    source.expect(size - length);
    const body = await readUpTo(source, response, limit, `the whole ${size}-byte body`);
    if (body.length <= limit) {
      // A body of another length than Content-Length said was decoded from a compressed one (a
      // browser hides Content-Encoding from cross-origin scripts unless the server exposes it):
      // the body is the file.
      source.size = body.length;
      source.whole = body;
      if (offset + length > body.length) {
        throw source.fail(`asked for ${wanted} but the file is only ${body.length} bytes`, 200);
      }
      return body.subarray(offset, offset + length);
    }
    // Longer than the limit, so Content-Length was not the file's size, which stays unknown.
    source.size = undefined;
    return body.subarray(offset, offset + length);
  }
  source.expect(offset);
  return source.readBody(response, offset, length, wanted);
}

/** The whole body when it is at most `limit` bytes; otherwise its first limit + 1 bytes (then cancelled). */
async function readUpTo(
  source: WholeBodyReader,
  response: Response,
  limit: number,
  wanted: string,
): Promise<Uint8Array> {
  const body = response.body;
  if (!body) throw source.fail(noBody(wanted), response.status);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let got = 0;
  try {
    while (got <= limit) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throwIfAborted(source.options.signal);
        throw source.fail(`connection failed after ${got} bytes of ${wanted} (truncated body)`, response.status, error);
      }
      if (chunk.done) break;
      chunks.push(chunk.value);
      got += chunk.value.length;
      source.received(chunk.value.length);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const out = new Uint8Array(Math.min(got, limit + 1));
  let at = 0;
  for (const chunk of chunks) {
    if (at >= out.length) break;
    const part = chunk.subarray(0, out.length - at);
    out.set(part, at);
    at += part.length;
  }
  return out;
}
