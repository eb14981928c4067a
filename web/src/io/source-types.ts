/**
 * The shapes of a byte source, apart from byte-source.ts, which reads them, so that the argument
 * checks (arguments.ts), which byte-source.ts calls, can name them without importing it back.
 */

/** Anything `openByteSource` accepts: an http(s) URL, a Blob/File, or bytes in memory. */
export type ByteSourceInput = string | URL | Blob | ArrayBuffer | ArrayBufferView;

export interface ByteSourceOptions {
  /** Cancels pending and future reads; they reject with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Called as bytes arrive. `bytesExpected` is the total that the reads issued so far will
   * transfer; it grows as a reader learns (from a header) what else it needs.
   */
  onProgress?: (bytesRead: number, bytesExpected: number) => void;
  /** Extra request headers, e.g. `Authorization` for gated repositories. */
  headers?: Record<string, string>;
  /**
   * When a server ignores `Range` and answers 200 with the whole body, the first
   * offset+length bytes of that body are used only if offset+length is at most this many bytes
   * (default 16 MiB); otherwise the response is cancelled and the read fails.
   */
  maxWholeBodyBytes?: number;
  /** A replacement for the global `fetch` (tests, proxies, custom agents). */
  fetch?: typeof fetch;
}

export interface ByteSource {
  /** Total size in bytes; for URLs it is known after the first response. */
  readonly size: number | undefined;
  /** Exactly `length` bytes starting at `offset`, or a rejection. */
  read(offset: number, length: number): Promise<Uint8Array>;
  /** Bytes actually transferred from the underlying file, network or memory so far. */
  readonly bytesRead: number;
  /** A short name for messages: the URL, the file name or the buffer type. */
  readonly describe: string;
}
