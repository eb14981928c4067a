/**
 * Where the activations come from: held in memory (generated, pasted, small files), or read from
 * a large .npy in slices of rows whenever they are needed, so a file of up to 1 GB is normalized
 * and checked on every row without ever being held whole.
 */
import type { ActivationSource, ActivationsInfo } from './protocol';
import { gpt2LikeActivations } from './sample';

export { MAX_FILE_BYTES, STREAM_BYTES } from './protocol';
/** Pasted or uploaded text above this is refused (a .npy of the same numbers is a quarter the size). */
export const MAX_TEXT_BYTES = 16 << 20;
/** Generated samples: at most this many rows (B·T). */
export const MAX_GENERATED_ROWS = 8192;
/** Slices read from a streamed file: about this many bytes of rows at a time. */
export const SLICE_BYTES = 4 << 20;

export class InputError extends Error {
  override name = 'InputError';
}

export interface Source {
  readonly info: ActivationsInfo;
  /** The whole input, when it is held in memory. */
  readonly data: Float32Array | null;
  /** Rows [first, first + count) as float32. */
  readRows(first: number, count: number): Promise<Float32Array>;
  /** Rows per slice when walking the whole input. */
  readonly sliceRows: number;
}

let nextId = 1;

/** The next activations id (ids increase with every set of activations read). */
export function nextActivationsId(): number {
  return nextId++;
}

export function fmtBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1e6) return `${(n / 1e3).toFixed(1)} KB`;
  if (n < 1e9) return `${(n / 1e6).toFixed(1)} MB`;
  return `${(n / 1e9).toFixed(1)} GB`;
}

export function rowsOf(shape: number[]): number {
  return shape.slice(0, -1).reduce((a, b) => a * b, 1);
}

export function memorySource(
  data: Float32Array,
  shape: number[],
  rest: Omit<ActivationsInfo, 'id' | 'shape' | 'rows' | 'd' | 'streamed'>,
): Source {
  if (shape.length === 0) throw new InputError(`${rest.label}: expected an array with a last axis d, got a scalar`);
  const d = shape[shape.length - 1]!;
  if (d === 0 || data.length === 0)
    throw new InputError(`${rest.label}: the array is empty (shape [${shape.join(', ')}])`);
  const info: ActivationsInfo = { ...rest, id: nextActivationsId(), shape, rows: rowsOf(shape), d, streamed: false };
  return {
    info,
    data,
    sliceRows: Math.max(1, Math.floor((SLICE_BYTES / 4 / d) | 0)),
    readRows: (first, count) => Promise.resolve(data.subarray(first * d, (first + count) * d)),
  };
}

function generated(src: Extract<ActivationSource, { kind: 'generate' }>): Source {
  const { B, T, seed, d } = src;
  for (const [name, v, max] of [
    ['B', B, 64],
    ['T', T, 4096],
  ] as const) {
    if (!Number.isInteger(v) || v < 1 || v > max) {
      throw new InputError(`${name} must be a whole number from 1 to ${max}, got ${v}.`);
    }
  }
  if (B * T > MAX_GENERATED_ROWS) {
    throw new InputError(
      `B·T must be at most ${MAX_GENERATED_ROWS.toLocaleString('en-US')}, got ${B}·${T} = ${B * T}.`,
    );
  }
  return memorySource(gpt2LikeActivations(B, T, d, seed), [B, T, d], {
    label: `generated GPT-2-like sample (seed ${seed})`,
    origin: 'generated',
    bytes: B * T * d * 4,
    dtype: 'float32',
    tokens: null,
    tokensNote: null,
    gen: { B, T, seed },
  });
}

/**
 * Reads activations from any source the page accepts; throws InputError or the package's
 * FormatError. Parsers for text and files load the first time they are needed.
 */
export async function openSource(src: ActivationSource): Promise<Source> {
  if (src.kind === 'generate') return generated(src);
  const files = await import('./files');
  if (src.kind === 'text') return files.fromText(src.text, src.name, 'pasted');
  return files.fromFiles(src.file, src.tokens);
}
