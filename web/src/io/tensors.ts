/** What the checkpoint readers share: a tensor table with absolute byte ranges, and decoding. */

import type { ByteSource } from './byte-source.js';
import { decodeBfloat16, decodeFloat16, decodeFloat32, decodeFloat64 } from './dtype.js';
import { FormatError, type FileFormat } from './errors.js';

export interface TensorInfo {
  name: string;
  /** The stored dtype as the format names it (safetensors "F16", GGUF type names likewise). */
  dtype: string;
  /** Outermost dimension first, as in NumPy (GGUF's innermost-first dims are reversed). */
  shape: number[];
  /** Absolute offset of the first byte in the file. */
  offset: number;
  /** Byte length, when the dtype has a fixed element size. */
  byteLength: number | undefined;
}

/** A GGUF metadata value other than an array (arrays, e.g. the vocabulary, are skipped). */
export type GgufScalar = string | number | bigint | boolean;

export interface TensorIndex {
  format: FileFormat;
  tensors: Map<string, TensorInfo>;
  /** Bytes of header that had to be read to build the table. */
  headerBytes: number;
  /** The file's first bytes as already read while parsing; tensors inside need no new read. */
  prefix?: Uint8Array;
  /** GGUF only: the scalar and string metadata, e.g. general.architecture. */
  metadata?: ReadonlyMap<string, GgufScalar>;
}

/** Element sizes of the dtypes `decodeTensor` can widen to float32 (a Map: dtype names come from files). */
export const ELEMENT_SIZE: ReadonlyMap<string, number> = new Map([
  ['F32', 4],
  ['F16', 2],
  ['BF16', 2],
  ['F64', 8],
]);

export function decodeTensor(bytes: Uint8Array, dtype: string, count: number): Float32Array {
  switch (dtype) {
    case 'F32':
      return decodeFloat32(bytes, count);
    case 'F16':
      return decodeFloat16(bytes, count);
    case 'BF16':
      return decodeBfloat16(bytes, count);
    case 'F64':
      return decodeFloat64(bytes, count);
    default:
      throw new Error(`no decoder for ${dtype}`);
  }
}

/** Reads several tensors, fetching neighbours (gap ≤ 64 KiB) in one request to save round trips. */
export async function readTensorBytes(
  source: ByteSource,
  infos: TensorInfo[],
  prefix?: Uint8Array,
): Promise<Uint8Array[]> {
  const MAX_GAP = 64 * 1024;
  const result: Uint8Array[] = new Array(infos.length);
  const inPrefix = (info: TensorInfo) => prefix !== undefined && info.offset + info.byteLength! <= prefix.length;
  infos.forEach((info, i) => {
    if (inPrefix(info)) result[i] = prefix!.subarray(info.offset, info.offset + info.byteLength!);
  });
  const order = infos
    .map((info, i) => ({ info, i }))
    .filter(({ info }) => !inPrefix(info))
    .sort((a, b) => a.info.offset - b.info.offset);
  let k = 0;
  while (k < order.length) {
    const start = order[k]!.info.offset;
    let end = start + order[k]!.info.byteLength!;
    let j = k + 1;
    while (j < order.length && order[j]!.info.offset - end <= MAX_GAP) {
      end = Math.max(end, order[j]!.info.offset + order[j]!.info.byteLength!);
      j++;
    }
    const bytes = await source.read(start, end - start);
    for (let m = k; m < j; m++) {
      const { info, i } = order[m]!;
      result[i] = bytes.subarray(info.offset - start, info.offset - start + info.byteLength!);
    }
    k = j;
  }
  return result;
}

export function formatError(format: FileFormat, source: ByteSource) {
  return (problem: string) => new FormatError(format, problem, { source: source.describe });
}
