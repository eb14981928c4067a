/**
 * Turns whatever names a .wasm file (a URL, its bytes, a fetch Response, a compiled module) into a
 * compiled WebAssembly.Module. Every failure is a WasmLoadError naming where the bytes came from,
 * what came and what was expected: a server's HTML fallback page must never reach the compiler
 * as "expected magic word 00 61 73 6d".
 */
import { looksLikeHtml, preview } from './bytes-preview.js';
import { WasmLoadError } from '../errors.js';

/** Where bytes came from, for error messages. */
export interface Origin {
  source: string;
  status?: number;
  contentType?: string;
}

/** The first stage failed: no .wasm bytes came from the source (nothing answered, not 200, not wasm). */
export class NoWasmBytesError extends WasmLoadError {}

const MAGIC = [0x00, 0x61, 0x73, 0x6d];

export async function readUrl(url: URL): Promise<{ bytes: Uint8Array; origin: Origin }> {
  if (url.protocol === 'file:') {
    const bytes = await readFileUrl(url);
    const origin = { source: url.href };
    checkMagic(bytes, origin);
    return { bytes, origin };
  }
  let response: Response;
  try {
    response = await fetch(url);
  } catch (cause) {
    throw new NoWasmBytesError(`could not fetch ${url.href}: ${errorDetail(cause)}`, { source: url.href, cause });
  }
  return readResponse(response, url.href);
}

export async function readResponse(response: Response, source: string): Promise<{ bytes: Uint8Array; origin: Origin }> {
  const origin: Origin = {
    source,
    status: response.status,
    contentType: response.headers.get('content-type') ?? undefined,
  };
  if (!response.ok) {
    // Nobody will read this body: release the connection instead of leaving the stream pending.
    response.body?.cancel().catch(() => {});
    throw new NoWasmBytesError(
      `fetching ${source} answered HTTP ${response.status}${contentTypeText(origin)}, expected 200 with the .wasm file`,
      origin,
    );
  }
  if (response.bodyUsed) {
    throw new NoWasmBytesError(`the body of ${source} was already read; pass a fresh Response`, origin);
  }
  let buffer: ArrayBuffer;
  try {
    buffer = await response.arrayBuffer();
  } catch (cause) {
    throw new NoWasmBytesError(`reading the body of ${source} failed: ${errorDetail(cause)}`, { ...origin, cause });
  }
  const bytes = new Uint8Array(buffer);
  checkMagic(bytes, origin);
  return { bytes, origin };
}

export function checkMagic(bytes: Uint8Array, origin: Origin): void {
  if (bytes.length >= 8 && MAGIC.every((b, i) => bytes[i] === b)) return;
  const answered =
    origin.status !== undefined ? ` (HTTP ${origin.status}${contentTypeText(origin)}, ${bytes.length} bytes)` : '';
  const html = looksLikeHtml(bytes)
    ? '; it looks like an HTML page, which is what many servers answer for a file they do not have: check the URL, or tell init() where the .wasm is with options.wasm'
    : '';
  throw new NoWasmBytesError(
    `${origin.source}${answered} is not a WebAssembly module: ${preview(bytes)} instead of the wasm magic bytes 00 61 73 6d${html}`,
    origin,
  );
}

export async function compileBytes(bytes: Uint8Array, origin: Origin): Promise<WebAssembly.Module> {
  try {
    // A view of a SharedArrayBuffer compiles too; TypeScript's BufferSource type only lists ArrayBuffer.
    return await WebAssembly.compile(bytes as BufferSource);
  } catch (cause) {
    const text = errorDetail(cause);
    if (/unsafe-eval|Content.Security.Policy/i.test(text)) {
      throw new WasmLoadError(
        `this page's Content-Security-Policy does not allow compiling WebAssembly: add 'wasm-unsafe-eval' to script-src (${text})`,
        { ...origin, cause },
      );
    }
    throw new WasmLoadError(`${origin.source} is not a valid WebAssembly module: ${text}`, { ...origin, cause });
  }
}

/** A Uint8Array over the bytes of an ArrayBuffer or any view, without copying. */
export function asBytes(data: ArrayBuffer | ArrayBufferView): Uint8Array {
  return data instanceof ArrayBuffer
    ? new Uint8Array(data)
    : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

export function decodeBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * An error's type, message and cause ("TypeError: fetch failed (getaddrinfo ENOTFOUND cdn.example)"):
 * a load fails somewhere below the package, and the type says which layer gave up. A message that
 * only needs the error's own words takes errorText (checks/error-text.ts).
 */
export function errorDetail(e: unknown): string {
  if (e instanceof Error) {
    // undici's "fetch failed" hides the reason in its cause.
    const cause = e.cause instanceof Error ? ` (${e.cause.message})` : '';
    return `${e.name}: ${e.message}${cause}`;
  }
  return String(e);
}

async function readFileUrl(url: URL): Promise<Uint8Array> {
  let reader: { readFileBytes(url: URL): Promise<Uint8Array> };
  try {
    reader = await import('#file-reader');
  } catch (cause) {
    throw new NoWasmBytesError(`cannot read ${url.href}: this runtime has no file reader (${errorDetail(cause)})`, {
      source: url.href,
      cause,
    });
  }
  try {
    return await reader.readFileBytes(url);
  } catch (cause) {
    throw new NoWasmBytesError(`could not read ${url.href}: ${errorDetail(cause)}`, { source: url.href, cause });
  }
}

function contentTypeText(origin: Origin): string {
  return origin.contentType ? `, Content-Type ${origin.contentType}` : ', no Content-Type';
}
