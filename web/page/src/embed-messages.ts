/**
 * The embed's postMessage API, for an article on another origin that shows the explainer in an
 * <iframe>. The article sends its own activations, tokens and row; the embed sends back that it is
 * ready, its height whenever it changes, and the row the reader picks. Messages are plain objects
 * with a `type`; anything else is ignored, and a `set` that cannot be used is answered with an
 * `error` saying why.
 *
 *   article → embed  { type: 'layernorm-embed:set', activations?: { data, shape, tokens? }, tokens?, row?,
 *                      weights?: { gamma, beta?, eps?, norm? }, start?, view?, scale? }
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
  /** Given to the element as they come: it checks them (and says what it refuses). */
  weights?: unknown;
  start?: unknown;
  view?: unknown;
  scale?: unknown;
}

const KEYS = ['type', 'activations', 'tokens', 'row', 'weights', 'start', 'view', 'scale'];

/** A `set` message read into what the element takes; throws a TypeError saying what is wrong. */
export function readSet(message: Record<string, unknown>): SetMessage {
  const unknown = Object.keys(message).find((k) => !KEYS.includes(k));
  if (unknown !== undefined)
    throw new TypeError(`unknown key "${unknown}" in a set message; the keys are ${KEYS.slice(1).join(', ')}`);
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
  for (const key of ['weights', 'start', 'view', 'scale'] as const) if (key in message) out[key] = message[key];
  return out;
}
