/**
 * The embed's postMessage API, for an article on another origin that shows the explainer in an
 * <iframe>. The article sends its own activations, tokens and row; the embed sends back that it is
 * ready, its height whenever it changes, and the row the reader picks. Messages are plain objects
 * with a `type`; anything else is ignored, and a `set` that cannot be used is answered with an
 * `error` saying why.
 *
 *   article → embed  { type: 'layernorm-embed:set', activations?: { data, shape, tokens? }, tokens?, row? }
 *   embed → article  { type: 'layernorm-embed:ready' }
 *                    { type: 'layernorm-embed:height', height }
 *                    { type: 'layernorm-embed:rowchange', row, token }
 *                    { type: 'layernorm-embed:error', message }
 */

export const PREFIX = 'layernorm-embed:';

export interface SetMessage {
  activations?: { data: Float32Array; shape: number[]; tokens: string[] | null };
  tokens?: string[];
  row?: number;
}

/** A `set` message read into what the element takes; throws a TypeError saying what is wrong. */
export function readSet(message: Record<string, unknown>): SetMessage {
  const out: SetMessage = {};
  const a = message.activations;
  if (a !== undefined) {
    if (typeof a !== 'object' || a === null)
      throw new TypeError('activations must be an object { data, shape, tokens? }');
    const { data, shape, tokens } = a as Record<string, unknown>;
    const values =
      data instanceof Float32Array
        ? data
        : ArrayBuffer.isView(data) || Array.isArray(data)
          ? Float32Array.from(data as ArrayLike<number>)
          : null;
    if (!values) throw new TypeError('activations.data must be a Float32Array or an array of numbers');
    if (!Array.isArray(shape)) throw new TypeError('activations.shape must be an array of whole numbers');
    out.activations = { data: values, shape: shape as number[], tokens: (tokens as string[] | undefined) ?? null };
  }
  if (message.tokens !== undefined) {
    if (!Array.isArray(message.tokens)) throw new TypeError('tokens must be an array of strings');
    out.tokens = message.tokens as string[];
  }
  if (message.row !== undefined) out.row = message.row as number;
  return out;
}
