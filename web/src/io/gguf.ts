/**
 * GGUF (llama.cpp), versions 2 and 3. The header has no length field, so it is read in growing
 * chunks until the tensor table is complete. Tensor dims are stored innermost first and data
 * offsets are relative to the data section, which starts at the next multiple of
 * `general.alignment` (default 32) after the tensor table.
 */

import type { ByteSource } from './byte-source.js';
import { MAX_HEADER_BYTES } from './safetensors.js';
import { formatError, type GgufScalar, type TensorIndex, type TensorInfo } from './tensors.js';

const TYPE_NAMES: Record<number, string> = {
  0: 'F32',
  1: 'F16',
  2: 'Q4_0',
  3: 'Q4_1',
  6: 'Q5_0',
  7: 'Q5_1',
  8: 'Q8_0',
  9: 'Q8_1',
  10: 'Q2_K',
  11: 'Q3_K',
  12: 'Q4_K',
  13: 'Q5_K',
  14: 'Q6_K',
  15: 'Q8_K',
  24: 'I8',
  25: 'I16',
  26: 'I32',
  27: 'I64',
  28: 'F64',
  30: 'BF16',
};
const TYPE_SIZE: Record<string, number> = { F32: 4, F16: 2, BF16: 2, F64: 8, I8: 1, I16: 2, I32: 4, I64: 8 };
/** Fixed byte size of the scalar metadata value types, by type id. */
const SCALAR_SIZE: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
const FLOAT32 = 6;
const STRING = 8;
const ARRAY = 9;
const FIRST_CHUNK = 16 * 1024;
const MAX_COUNT = 1 << 26;

/** The shortest decimal that rounds to the float32 `v` (its value when none is shorter). */
function shortestFloat32(v: number): number {
  for (let digits = 1; digits < 9; digits++) {
    const candidate = Number(v.toPrecision(digits));
    if (Math.fround(candidate) === v) return candidate;
  }
  return v;
}

/** A forward reader over the file's start that fetches more bytes when it runs out. */
class GrowingCursor {
  private buf: Uint8Array;
  private view: DataView;
  pos = 0;
  constructor(
    private readonly source: ByteSource,
    first: Uint8Array,
    private readonly fail: (p: string) => Error,
  ) {
    this.buf = first;
    this.view = new DataView(first.buffer, first.byteOffset, first.byteLength);
  }
  /** Everything read so far, from byte 0. */
  get bytes(): Uint8Array {
    return this.buf;
  }

  async need(n: number, what: string): Promise<void> {
    const end = this.pos + n;
    if (end <= this.buf.length) return;
    const size = this.source.size;
    if (end > MAX_HEADER_BYTES)
      throw this.fail(`header is larger than the ${MAX_HEADER_BYTES}-byte limit while reading ${what}`);
    if (size !== undefined && end > size) {
      throw this.fail(`expected ${what} at byte ${this.pos}, but the file ends at byte ${size}`);
    }
    // Double the amount read each time: a few round trips even for multi-megabyte vocabularies.
    let want = Math.max(end, this.buf.length * 2, FIRST_CHUNK);
    if (size !== undefined) want = Math.min(want, size);
    const more = await this.source.read(this.buf.length, want - this.buf.length);
    const grown = new Uint8Array(want);
    grown.set(this.buf, 0);
    grown.set(more, this.buf.length);
    this.buf = grown;
    this.view = new DataView(grown.buffer);
  }

  async u32(what: string): Promise<number> {
    await this.need(4, what);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }
  async u64(what: string): Promise<number> {
    await this.need(8, what);
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw this.fail(`expected ${what} to fit in 53 bits, got ${v}`);
    return Number(v);
  }
  async string(what: string): Promise<string> {
    const len = await this.u64(`the length of ${what}`);
    if (len > MAX_HEADER_BYTES) throw this.fail(`${what} claims ${len} bytes, more than the header limit`);
    await this.need(len, what);
    const s = new TextDecoder().decode(this.buf.subarray(this.pos, this.pos + len));
    this.pos += len;
    return s;
  }
  async skip(n: number, what: string): Promise<void> {
    await this.need(n, what);
    this.pos += n;
  }
  async scalar(type: number, what: string): Promise<number | bigint | boolean> {
    const size = SCALAR_SIZE[type]!;
    await this.need(size, what);
    const p = this.pos;
    this.pos += size;
    const v = this.view;
    switch (type) {
      case 0:
        return v.getUint8(p);
      case 1:
        return v.getInt8(p);
      case 2:
        return v.getUint16(p, true);
      case 3:
        return v.getInt16(p, true);
      case 4:
        return v.getUint32(p, true);
      case 5:
        return v.getInt32(p, true);
      case 6:
        return v.getFloat32(p, true);
      case 7:
        return v.getUint8(p) !== 0;
      case 10:
        return v.getBigUint64(p, true);
      case 11:
        return v.getBigInt64(p, true);
      default:
        return v.getFloat64(p, true);
    }
  }
}

export async function readGgufIndex(source: ByteSource, first?: Uint8Array): Promise<TensorIndex> {
  const fail = formatError('gguf', source);
  // Before the first response a URL's size is unknown, so start with the fixed 24-byte preamble.
  const c = new GrowingCursor(source, first ?? (await source.read(0, Math.min(24, source.size ?? 24))), fail);
  await c.need(4, 'the magic "GGUF"');
  const magic = await c.u32('the magic');
  if (magic !== 0x46554747) throw fail(`expected the magic "GGUF", got 0x${magic.toString(16).padStart(8, '0')}`);
  const version = await c.u32('the version');
  if (version !== 2 && version !== 3) {
    if (version === 0x03000000 || version === 0x02000000)
      throw fail('expected a little-endian GGUF, got a big-endian one');
    throw fail(`expected GGUF version 2 or 3, got ${version}`);
  }
  const tensorCount = await c.u64('the tensor count');
  const kvCount = await c.u64('the metadata count');
  if (tensorCount > MAX_COUNT || kvCount > MAX_COUNT) {
    throw fail(`implausible counts: ${tensorCount} tensors, ${kvCount} metadata entries`);
  }

  let alignment = 32;
  const metadata = new Map<string, GgufScalar>();
  for (let k = 0; k < kvCount; k++) {
    const key = await c.string(`metadata key ${k}`);
    const type = await c.u32(`the type of "${key}"`);
    if (type === STRING) {
      metadata.set(key, await c.string(`the value of "${key}"`));
    } else if (type === ARRAY) {
      const elemType = await c.u32(`the element type of "${key}"`);
      const count = await c.u64(`the length of "${key}"`);
      if (count > MAX_COUNT) throw fail(`metadata "${key}" claims ${count} elements`);
      if (elemType === STRING) {
        for (let i = 0; i < count; i++) await c.string(`element ${i} of "${key}"`);
      } else if (SCALAR_SIZE[elemType] !== undefined) {
        await c.skip(count * SCALAR_SIZE[elemType]!, `the values of "${key}"`);
      } else {
        throw fail(`metadata "${key}" is an array of unsupported type ${elemType}`);
      }
    } else if (SCALAR_SIZE[type] !== undefined) {
      const value = await c.scalar(type, `the value of "${key}"`);
      // float32 values (ε is one) as the shortest decimal that rounds to them: 1e-5, not 9.99999974737875e-6.
      metadata.set(key, type === FLOAT32 ? shortestFloat32(value as number) : value);
      if (key === 'general.alignment') {
        const a = Number(value);
        if (!Number.isSafeInteger(a) || a <= 0 || (a & (a - 1)) !== 0) {
          throw fail(`expected general.alignment to be a power of two, got ${String(value)}`);
        }
        alignment = a;
      }
    } else {
      throw fail(`metadata "${key}" has unknown value type ${type}`);
    }
  }

  const infos: Array<{ name: string; type: number; dims: number[]; offset: number }> = [];
  for (let t = 0; t < tensorCount; t++) {
    const name = await c.string(`the name of tensor ${t}`);
    const nDims = await c.u32(`the rank of "${name}"`);
    if (nDims > 8) throw fail(`tensor "${name}" claims ${nDims} dimensions`);
    const dims: number[] = [];
    for (let i = 0; i < nDims; i++) dims.push(await c.u64(`dimension ${i} of "${name}"`));
    const type = await c.u32(`the type of "${name}"`);
    const offset = await c.u64(`the offset of "${name}"`);
    infos.push({ name, type, dims, offset });
  }
  const dataStart = Math.ceil(c.pos / alignment) * alignment;

  const tensors = new Map<string, TensorInfo>();
  for (const { name, type, dims, offset } of infos) {
    const dtype = TYPE_NAMES[type] ?? `type ${type}`;
    const size = TYPE_SIZE[dtype];
    const count = dims.reduce((a, b) => a * b, 1);
    const byteLength = size !== undefined ? count * size : undefined;
    if (offset % alignment !== 0) {
      throw fail(`tensor "${name}" offset ${offset} is not a multiple of the alignment ${alignment}`);
    }
    // Each dimension fits in 53 bits, their product need not: past 2^53 bytes a double no longer
    // counts exactly, and no file (nor a source of unknown size) holds that much.
    const end = dataStart + offset + (byteLength ?? 0);
    if (!Number.isSafeInteger(end)) {
      const where = source.size !== undefined ? `the ${source.size}-byte file` : 'any file';
      throw fail(`tensor "${name}" (bytes ${dataStart + offset}..more than 2^53) runs past the end of ${where}`);
    }
    if (source.size !== undefined && end > source.size) {
      throw fail(
        `tensor "${name}" (bytes ${dataStart + offset}..${end}) runs past the end of the ${source.size}-byte file`,
      );
    }
    tensors.set(name, { name, dtype, shape: [...dims].reverse(), offset: dataStart + offset, byteLength });
  }
  return { format: 'gguf', tensors, headerBytes: c.pos, prefix: c.bytes, metadata };
}
