/**
 * safetensors: an 8-byte little-endian header length, a JSON header mapping tensor names to
 * { dtype, shape, data_offsets: [begin, end] } relative to the end of the header, then the data.
 */

import type { ByteSource } from './byte-source.js';
import { brief } from './brief.js';
import { formatError, type TensorIndex, type TensorInfo } from './tensors.js';

/** Refuse headers above this before allocating: real headers are tens of kilobytes. */
export const MAX_HEADER_BYTES = 100 * 1024 * 1024;

/** Element sizes by dtype name (a Map: the names come from the file, e.g. "constructor"). */
const DTYPE_SIZE: ReadonlyMap<string, number> = new Map([
  ['BOOL', 1],
  ['U8', 1],
  ['I8', 1],
  ['F8_E5M2', 1],
  ['F8_E4M3', 1],
  ['F8_E8M0', 1],
  ['I16', 2],
  ['U16', 2],
  ['F16', 2],
  ['BF16', 2],
  ['I32', 4],
  ['U32', 4],
  ['F32', 4],
  ['I64', 8],
  ['U64', 8],
  ['F64', 8],
]);

/** Parses the header; `first8` are the file's first 8 bytes when the caller already has them. */
export async function readSafetensorsIndex(source: ByteSource, first8?: Uint8Array): Promise<TensorIndex> {
  const fail = formatError('safetensors', source);
  // The loader has refused files under 8 bytes ("expected a weights file") before sniffing them.
  const head = first8 ?? (await source.read(0, 8));
  const headerLength = new DataView(head.buffer, head.byteOffset, 8).getBigUint64(0, true);
  if (headerLength > BigInt(MAX_HEADER_BYTES)) {
    throw fail(
      `header length ${headerLength} bytes exceeds the ${MAX_HEADER_BYTES}-byte limit (not a safetensors file?)`,
    );
  }
  const n = Number(headerLength);
  if (source.size !== undefined && 8 + n > source.size) {
    throw fail(`header length ${n} bytes is larger than the ${source.size - 8} bytes after the length field`);
  }
  if (n < 2) throw fail(`expected a JSON header, got a header length of ${n}`);
  const bytes = await source.read(8, n);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    const start = JSON.stringify(new TextDecoder().decode(bytes.subarray(0, 24)));
    throw fail(`expected a JSON header, got ${start}… (${(error as Error).message})`);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw fail(`expected the header to be a JSON object, got ${Array.isArray(header) ? 'an array' : typeof header}`);
  }

  const dataStart = 8 + n;
  const dataSize = source.size !== undefined ? source.size - dataStart : undefined;
  const tensors = new Map<string, TensorInfo>();
  const ranges: Array<[number, number, string]> = [];
  for (const [name, entry] of Object.entries(header as Record<string, unknown>)) {
    if (name === '__metadata__') continue;
    const e = entry as { dtype?: unknown; shape?: unknown; data_offsets?: unknown } | null;
    if (typeof e !== 'object' || e === null) throw fail(`expected tensor "${name}" to be an object, got ${brief(e)}`);
    const { dtype, shape, data_offsets: offsets } = e;
    if (typeof dtype !== 'string') throw fail(`expected tensor "${name}" to have a string dtype, got ${brief(dtype)}`);
    if (!Array.isArray(shape) || !shape.every((s) => Number.isSafeInteger(s) && s >= 0)) {
      throw fail(`expected tensor "${name}" to have a shape of non-negative integers, got ${brief(shape)}`);
    }
    if (
      !Array.isArray(offsets) ||
      offsets.length !== 2 ||
      !offsets.every((o) => Number.isSafeInteger(o) && o >= 0) ||
      offsets[0] > offsets[1]
    ) {
      throw fail(`expected tensor "${name}" to have data_offsets [begin, end] with begin ≤ end, got ${brief(offsets)}`);
    }
    const [begin, end] = offsets as [number, number];
    if (dataSize !== undefined && end > dataSize) {
      throw fail(
        `tensor "${name}" data_offsets [${begin}, ${end}] run past the end of the data section (${dataSize} bytes)`,
      );
    }
    const size = DTYPE_SIZE.get(dtype);
    // A dimension 0 makes the tensor empty whatever the others (a plain product of enough huge
    // ones is Infinity × 0 = NaN); a product past 2^53 is inexact, but then larger than any span.
    const count = shape.includes(0) ? 0 : (shape as number[]).reduce((a, b) => a * b, 1);
    if (size !== undefined && count * size !== end - begin) {
      throw fail(
        `tensor "${name}" is ${dtype} [${shape.join(', ')}] = ${count * size} bytes but data_offsets [${begin}, ${end}] span ${end - begin}`,
      );
    }
    tensors.set(name, {
      name,
      dtype,
      shape: shape as number[],
      offset: dataStart + begin,
      byteLength: size !== undefined ? end - begin : undefined,
    });
    if (end > begin) ranges.push([begin, end, name]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < ranges.length; i++) {
    const [prev, cur] = [ranges[i - 1]!, ranges[i]!];
    if (cur[0] < prev[1]) {
      throw fail(`tensors "${prev[2]}" [${prev[0]}, ${prev[1]}] and "${cur[2]}" [${cur[0]}, ${cur[1]}] overlap`);
    }
  }
  return { format: 'safetensors', tensors, headerBytes: dataStart };
}
