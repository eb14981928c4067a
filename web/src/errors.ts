/**
 * Error types thrown by layernorm-wasm. Wrong types are TypeErrors, wrong sizes and values are
 * RangeErrors (both built-in, so `instanceof` works across bundles); conditions with no built-in
 * counterpart get a named subclass. Every message says what was expected and what came.
 *
 * May import: checks/.
 */

/** Thrown when a LayerNorm or WasmTensor is used after dispose(). */
export class DisposedError extends Error {
  override name = 'DisposedError';
}

/** Thrown by init({ backend: 'simd' }) where the engine lacks wasm SIMD128. */
export class UnsupportedError extends Error {
  override name = 'UnsupportedError';
}

export interface WasmLoadErrorDetails {
  /** The URL of the .wasm file, or what was passed in its place ("the bytes given as options.wasm.simd"). */
  source: string;
  /** HTTP status of the response, when one came. */
  status?: number;
  /** Content-Type of the response, when one came. */
  contentType?: string;
  cause?: unknown;
}

/**
 * Thrown by init() when it cannot get a working .wasm module: the URL did not answer with the
 * file, what came is not WebAssembly, or it is not this package's build for the backend.
 */
export class WasmLoadError extends Error {
  override name = 'WasmLoadError';
  readonly source: string;
  readonly status: number | undefined;
  readonly contentType: string | undefined;

  constructor(message: string, details: WasmLoadErrorDetails) {
    super(`init: ${message}`, details.cause !== undefined ? { cause: details.cause } : undefined);
    this.source = details.source;
    this.status = details.status;
    this.contentType = details.contentType;
  }
}

export { describe } from './checks/describe.js';
