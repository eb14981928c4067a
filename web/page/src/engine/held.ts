/**
 * Activations as the engine holds them: a Source gives their description and their rows, held in
 * memory (generated, pasted, small files) or read from a large .npy in slices (files.ts), so a
 * file of up to 1 GB is normalized and checked on every row without ever being held whole.
 */
import type { ActivationsInfo } from './protocol';

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
