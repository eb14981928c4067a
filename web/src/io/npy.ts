/**
 * NumPy .npy files: the format `np.save` writes and `np.load`/`torch` read. Only little-endian,
 * C-order float arrays are accepted; everything else fails with a message saying how to convert.
 */

import { decodeFloat16, decodeFloat32, decodeFloat64, encodeFloat32 } from './dtype.js';
import { FormatError } from './errors.js';

export type NpyDtype = 'float32' | 'float64' | 'float16';

export interface NpyArray {
  /** The values, widened or rounded to float32. */
  data: Float32Array;
  shape: number[];
  /** The dtype stored in the file. */
  dtype: NpyDtype;
}

export interface NpyHeader {
  dtype: NpyDtype;
  shape: number[];
  /** Byte offset of the first element. */
  dataOffset: number;
  itemSize: number;
  /** Number of elements, the product of the shape. */
  count: number;
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // "\x93NUMPY"
const DTYPES: Record<string, [NpyDtype, number]> = {
  '<f4': ['float32', 4],
  '<f8': ['float64', 8],
  '<f2': ['float16', 2],
};
/** A header bigger than this is not a real .npy header (NumPy itself caps it far lower). */
const MAX_HEADER = 1 << 20;

export function isNpy(bytes: Uint8Array): boolean {
  return MAGIC.every((b, i) => bytes[i] === b);
}

/**
 * Length of the preamble plus header given the first 12 bytes of a file, so a ranged reader knows
 * how much to fetch before `parseNpyHeader`.
 */
export function npyHeaderLength(first: Uint8Array, source = 'npy data'): number {
  const fail = (problem: string) => new FormatError('npy', problem, { source });
  if (first.length < 10 || !isNpy(first)) {
    const got = Array.from(first.subarray(0, 6), (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw fail(`expected the magic bytes 93 4e 55 4d 50 59 ("\\x93NUMPY"), got ${got || 'an empty file'}`);
  }
  const major = first[6]!;
  if (major === 1) return 10 + (first[8]! | (first[9]! << 8));
  if (major === 2 || major === 3) {
    if (first.length < 12) throw fail(`expected a 12-byte preamble for version ${major}, got ${first.length} bytes`);
    const len = new DataView(first.buffer, first.byteOffset + 8, 4).getUint32(0, true);
    if (len > MAX_HEADER) throw fail(`header length ${len} exceeds the ${MAX_HEADER}-byte limit`);
    return 12 + len;
  }
  throw fail(`expected format version 1, 2 or 3, got ${major}.${first[7]}`);
}

type PyValue = string | number | boolean | null | PyValue[] | { [key: string]: PyValue };

/** Parses the Python dict literal NumPy writes, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }. */
function parsePyLiteral(text: string, fail: (problem: string) => FormatError): PyValue {
  let i = 0;
  const skip = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const value = (): PyValue => {
    skip();
    if (i >= text.length) throw fail('the header ends before its dict is closed');
    const c = text[i];
    if (c === '{' || c === '(' || c === '[') {
      const close = c === '{' ? '}' : c === '(' ? ')' : ']';
      i++;
      const items: PyValue[] = [];
      const dict: Record<string, PyValue> = {};
      for (;;) {
        skip();
        if (text[i] === close) {
          i++;
          return c === '{' ? dict : items;
        }
        const item = value();
        if (c === '{') {
          skip();
          if (text[i] !== ':' || typeof item !== 'string')
            throw fail(`expected "key: value" in the header dict at offset ${i}`);
          i++;
          dict[item] = value();
        } else items.push(item);
        skip();
        if (text[i] === ',') i++;
        else if (text[i] !== close)
          throw fail(
            `expected "," or "${close}" in the header at offset ${i}, got ${JSON.stringify(text[i] ?? 'end')}`,
          );
      }
    }
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) throw fail('unterminated string in the header');
      const s = text.slice(i + 1, end);
      i = end + 1;
      return s;
    }
    const word = /^[A-Za-z_]\w*|^-?\d+L?/.exec(text.slice(i));
    if (!word) throw fail(`unexpected ${JSON.stringify(text[i] ?? 'end')} in the header at offset ${i}`);
    i += word[0].length;
    if (word[0] === 'True') return true;
    if (word[0] === 'False') return false;
    if (word[0] === 'None') return null;
    const n = Number(word[0].replace(/L$/, ''));
    if (!Number.isNaN(n)) return n;
    throw fail(`unexpected ${JSON.stringify(word[0])} in the header`);
  };
  const result = value();
  skip();
  if (i < text.length) throw fail(`unexpected ${JSON.stringify(text.slice(i, i + 10))} after the header dict`);
  return result;
}

/** Parses the preamble and header; `bytes` must hold at least `npyHeaderLength` bytes. */
export function parseNpyHeader(bytes: Uint8Array, source = 'npy data'): NpyHeader {
  const fail = (problem: string) => new FormatError('npy', problem, { source });
  const end = npyHeaderLength(bytes, source);
  if (bytes.length < end) throw fail(`expected a ${end}-byte header, the file has ${bytes.length} bytes`);
  const start = bytes[6] === 1 ? 10 : 12;
  const text = new TextDecoder(bytes[6] === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(start, end));
  const header = parsePyLiteral(text, fail);
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw fail(`expected the header to be a dict, got ${JSON.stringify(text.slice(0, 40))}`);
  }
  const { descr, fortran_order: fortran, shape } = header;
  if (typeof descr !== 'string') {
    throw fail(
      `expected a simple float dtype ('<f4', '<f8' or '<f2'), got a structured dtype ${JSON.stringify(descr)}`,
    );
  }
  const dtype = DTYPES[descr];
  if (!dtype) {
    if (descr[0] === '>') {
      throw fail(
        `expected little-endian data ('<f4', '<f8' or '<f2'), got big-endian '${descr}'; convert with a.astype('<f4')`,
      );
    }
    if (descr.includes('O')) {
      throw fail(`expected a float dtype ('<f4', '<f8' or '<f2'), got object dtype '${descr}'; save a numeric array`);
    }
    throw fail(`expected dtype '<f4', '<f8' or '<f2', got '${descr}'; convert with a.astype('<f4')`);
  }
  if (fortran !== false) {
    throw fail(
      `expected C order (fortran_order: False), got fortran_order: ${String(fortran)}; save np.ascontiguousarray(a)`,
    );
  }
  if (!Array.isArray(shape) || !shape.every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0)) {
    throw fail(`expected the shape to be a tuple of non-negative integers, got ${JSON.stringify(shape)}`);
  }
  const dims = shape as number[];
  const count = dims.reduce((a, b) => a * b, 1);
  if (!Number.isSafeInteger(count)) throw fail(`shape (${dims.join(', ')}) has too many elements`);
  return { dtype: dtype[0], itemSize: dtype[1], shape: dims, dataOffset: end, count };
}

/** Decodes `count` elements of `dtype` into float32. */
export function decodeNpyData(bytes: Uint8Array, dtype: NpyDtype, count: number): Float32Array {
  if (dtype === 'float32') return decodeFloat32(bytes, count);
  if (dtype === 'float64') return decodeFloat64(bytes, count);
  return decodeFloat16(bytes, count);
}

/** Reads a whole .npy file. float64 is rounded to float32 once; float16 widens exactly. */
export function readNpy(input: Uint8Array | ArrayBuffer, source = 'npy data'): NpyArray {
  const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
  const header = parseNpyHeader(bytes, source);
  const expected = header.count * header.itemSize;
  const actual = bytes.length - header.dataOffset;
  if (actual !== expected) {
    throw new FormatError(
      'npy',
      `shape (${header.shape.join(', ')}) of ${header.dtype} needs ${expected} data bytes, the file has ${actual}`,
      { source },
    );
  }
  const data = decodeNpyData(bytes.subarray(header.dataOffset), header.dtype, header.count);
  return { data, shape: header.shape, dtype: header.dtype };
}

/** A float32 ('<f4'), C-order, version 1.0 .npy file that np.load and torch read. */
export function writeNpy(data: Float32Array, shape: number[]): Uint8Array {
  if (!(data instanceof Float32Array)) throw new TypeError('writeNpy: expected data to be a Float32Array');
  if (!Array.isArray(shape) || !shape.every((n) => Number.isSafeInteger(n) && n >= 0)) {
    throw new TypeError(
      `writeNpy: expected shape to be an array of non-negative integers, got ${JSON.stringify(shape)}`,
    );
  }
  const count = shape.reduce((a, b) => a * b, 1);
  if (count !== data.length) {
    throw new RangeError(`writeNpy: shape [${shape.join(', ')}] holds ${count} values, data has ${data.length}`);
  }
  // A 1-tuple needs its trailing comma in Python syntax.
  const tuple = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let dict = `{'descr': '<f4', 'fortran_order': False, 'shape': ${tuple}, }`;
  // NumPy aligns the data to 64 bytes: pad with spaces, end with a newline.
  const total = Math.ceil((10 + dict.length + 1) / 64) * 64;
  dict = dict.padEnd(total - 10 - 1, ' ') + '\n';
  if (dict.length > 0xffff) throw new RangeError('writeNpy: shape too long for a version 1.0 header');
  const out = new Uint8Array(total + data.length * 4);
  out.set(MAGIC, 0);
  out[6] = 1;
  out[7] = 0;
  out[8] = dict.length & 0xff;
  out[9] = dict.length >>> 8;
  for (let i = 0; i < dict.length; i++) out[10 + i] = dict.charCodeAt(i);
  out.set(encodeFloat32(data), total);
  return out;
}
