/**
 * Errors raised while reading weights and activations. Both carry the pieces of the message as
 * fields so callers can react without parsing text; the message always names the file or URL,
 * what was expected and what came.
 */

export type FileFormat = 'safetensors' | 'gguf' | 'npy' | 'json' | 'text' | 'onnx';

export interface FormatErrorDetails {
  /** The file, URL or buffer the bytes came from. */
  source?: string;
  /** 1-based position, only for JSON and text input. */
  line?: number;
  column?: number;
}

/** The bytes were read but are not a valid file of the expected format. */
export class FormatError extends Error {
  override name = 'FormatError';
  readonly format: FileFormat;
  readonly source: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(format: FileFormat, problem: string, details: FormatErrorDetails = {}) {
    const where = details.source ? `${details.source}: ` : '';
    const at = details.line !== undefined ? ` (line ${details.line}, column ${details.column ?? 1})` : '';
    super(`${where}invalid ${format}: ${problem}${at}`);
    this.format = format;
    this.source = details.source;
    this.line = details.line;
    this.column = details.column;
  }
}

export interface FetchErrorDetails {
  url: string;
  /** HTTP status when a response arrived; undefined for network, CORS and abort failures. */
  status?: number;
  cause?: unknown;
}

/** An HTTP request failed or answered something other than the bytes asked for. */
export class FetchError extends Error {
  override name = 'FetchError';
  readonly url: string;
  readonly status: number | undefined;

  constructor(problem: string, details: FetchErrorDetails) {
    const status = details.status !== undefined ? ` (HTTP ${details.status})` : '';
    super(`${details.url}: ${problem}${status}`, details.cause !== undefined ? { cause: details.cause } : undefined);
    this.url = details.url;
    this.status = details.status;
  }
}
