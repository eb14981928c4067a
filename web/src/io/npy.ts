/**
 * NumPy .npy files: the format `np.save` writes and `np.load`/`torch` read. Only little-endian,
 * C-order float arrays are accepted; everything else fails with a message saying how to convert.
 */

import { isNpy, NPY_MAGIC as MAGIC } from './magic.js';
import { checkFloat32Array, numberError } from '../checks/validate.js';
import { checkByteSourceInput, checkByteSourceOptions, checkLive, checkName, checkString } from './arguments.js';
import { byteSourceFor, type ByteSource, type ByteSourceInput, type ByteSourceOptions } from './byte-source.js';
import { decodeFloat16, decodeFloat32, decodeFloat64, encodeFloat32 } from './dtype.js';
import { brief } from './brief.js';
import { FormatError } from './errors.js';
import { RULES } from '../checks/rules.js';

export type NpyDtype = 'float32' | 'float64' | 'float16';

export interface NpyArray {
  /** The values, widened or rounded to float32. */
  data: Float32Array;
  shape: number[];
  /** The dtype stored in the file. */
  dtype: NpyDtype;
}

export interface NpyHeader {
  /** The dtype stored in the file. */
  dtype: NpyDtype;
  shape: number[];
  /** Byte offset of the first element. */
  dataOffset: number;
  /** Bytes per element: 4, 8 or 2. */
  itemSize: number;
  /** Number of elements, the product of the shape. */
  count: number;
}

const DTYPES = new Map<string, [NpyDtype, number]>([
  ['<f4', ['float32', 4]],
  ['<f8', ['float64', 8]],
  ['<f2', ['float16', 2]],
]);
const ITEM_SIZE: ReadonlyMap<NpyDtype, number> = new Map([
  ['float32', 4],
  ['float64', 8],
  ['float16', 2],
]);
const NPY_DTYPES = [...ITEM_SIZE.keys()];
/** A name or an integer in the header dict (sticky: matched where the parser stands). */
const WORD = /[A-Za-z_]\w*|-?\d+L?/y;
/** A header bigger than this is not a real .npy header (NumPy itself caps it far lower). */
const MAX_HEADER = 1 << 20;

/**
 * Length of the preamble plus header given the first 12 bytes of a file, so a ranged reader knows
 * how much to fetch before `parseNpyHeader`.
 */
export function npyHeaderLength(first: Uint8Array, source = 'npy data'): number {
  const fail = (problem: string) => new FormatError('npy', problem, { source });
  if (!isNpy(first)) {
    const got = Array.from(first.subarray(0, 6), (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw fail(`expected the magic bytes 93 4e 55 4d 50 59 ("\\x93NUMPY"), got ${got || 'an empty file'}`);
  }
  if (first.length < 10) throw fail(`expected a 10-byte preamble, got ${first.length} bytes`);
  const major = first[6]!;
  let preamble: number;
  let len: number;
  if (major === 1) {
    preamble = 10;
    len = first[8]! | (first[9]! << 8);
  } else if (major === 2 || major === 3) {
    if (first.length < 12) throw fail(`expected a 12-byte preamble for version ${major}, got ${first.length} bytes`);
    preamble = 12;
    len = new DataView(first.buffer, first.byteOffset + 8, 4).getUint32(0, true);
    if (len > MAX_HEADER) throw fail(`header length ${len} exceeds the ${MAX_HEADER}-byte limit`);
  } else {
    throw fail(`expected format version 1, 2 or 3, got ${major}.${first[7]}`);
  }
  // "{}" is the shortest dict; NumPy's own headers are at least 64 bytes with their padding.
  if (len < 2) throw fail(`expected a header dict after the ${preamble}-byte preamble, got a header length of ${len}`);
  return preamble + len;
}

type PyValue = string | number | boolean | null | PyValue[] | { [key: string]: PyValue };

interface OpenContainer {
  close: '}' | ')' | ']';
  items: PyValue[];
  /** Set for a dict; a prototype-free object, so a '__proto__' key is just a key. */
  dict: { [key: string]: PyValue } | null;
  key: string | undefined;
}

/**
 * Parses the Python dict literal NumPy writes, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
 * Nesting is tracked on an explicit stack, so a header of a million brackets is an error, not a
 * stack overflow.
 */
function parsePyLiteral(text: string, fail: (problem: string) => FormatError): PyValue {
  let i = 0;
  const skip = () => {
    for (let c = text.charCodeAt(i); c === 32 || c === 10 || c === 9 || c === 13; c = text.charCodeAt(++i));
  };
  const atom = (): PyValue => {
    const c = text[i];
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) throw fail('unterminated string in the header');
      const s = text.slice(i + 1, end);
      i = end + 1;
      return s;
    }
    WORD.lastIndex = i;
    const word = WORD.exec(text);
    if (!word) throw fail(`unexpected ${JSON.stringify(text[i] ?? 'end')} in the header at offset ${i}`);
    i += word[0].length;
    if (word[0] === 'True') return true;
    if (word[0] === 'False') return false;
    if (word[0] === 'None') return null;
    const n = Number(word[0].replace(/L$/, ''));
    if (!Number.isNaN(n)) return n;
    throw fail(`unexpected ${JSON.stringify(word[0])} in the header`);
  };
  const stack: OpenContainer[] = [];
  for (;;) {
    // Read one value, or open a container and go read its first element.
    skip();
    if (i >= text.length) throw fail('the header ends before its dict is closed');
    const c = text[i];
    let value: PyValue;
    if (c === '{' || c === '(' || c === '[') {
      const open: OpenContainer = {
        close: c === '{' ? '}' : c === '(' ? ')' : ']',
        items: [],
        dict: c === '{' ? (Object.create(null) as { [key: string]: PyValue }) : null,
        key: undefined,
      };
      i++;
      skip();
      if (text[i] !== open.close) {
        stack.push(open);
        continue;
      }
      i++;
      value = open.dict ?? open.items;
    } else {
      value = atom();
    }
    // Hand the value to the innermost open container, closing every container that ends here.
    for (;;) {
      const top = stack[stack.length - 1];
      if (!top) {
        skip();
        if (i < text.length) throw fail(`unexpected ${JSON.stringify(text.slice(i, i + 10))} after the header dict`);
        return value;
      }
      if (top.dict && top.key === undefined) {
        skip();
        if (text[i] !== ':' || typeof value !== 'string')
          throw fail(`expected "key: value" in the header dict at offset ${i}`);
        i++;
        top.key = value;
        break;
      }
      if (top.dict) {
        top.dict[top.key!] = value;
        top.key = undefined;
      } else top.items.push(value);
      skip();
      if (text[i] === ',') {
        i++;
        skip();
        if (text[i] !== top.close) break;
      } else if (text[i] !== top.close) {
        throw fail(
          `expected "," or "${top.close}" in the header at offset ${i}, got ${JSON.stringify(text[i] ?? 'end')}`,
        );
      }
      i++;
      stack.pop();
      value = top.dict ?? top.items;
    }
  }
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
      `expected a simple float dtype ('<f4', '<f8' or '<f2'), got a structured dtype ${descr === undefined ? 'undefined' : brief(descr)}`,
    );
  }
  const dtype = DTYPES.get(descr);
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
      `expected C order (fortran_order: False), got fortran_order: ${fortran === undefined ? 'undefined' : brief(fortran)}; save np.ascontiguousarray(a)`,
    );
  }
  if (!Array.isArray(shape) || !shape.every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0)) {
    throw fail(
      `expected the shape to be a tuple of non-negative integers, got ${shape === undefined ? 'undefined' : brief(shape)}`,
    );
  }
  const dims = shape as number[];
  // A dimension 0 empties the shape whatever the others (not Infinity × 0 = NaN).
  const count = dims.includes(0) ? 0 : dims.reduce((a, b) => a * b, 1);
  if (!Number.isSafeInteger(count)) throw fail(`shape (${dims.join(', ')}) has too many elements`);
  return { dtype: dtype[0], itemSize: dtype[1], shape: dims, dataOffset: end, count };
}

/**
 * Decodes `count` little-endian elements of `dtype` (as a .npy header gives it) into float32:
 * float64 rounded once, float16 widened exactly. `bytes` may start at any offset.
 */
export function decodeNpyData(bytes: Uint8Array, dtype: NpyDtype, count: number): Float32Array {
  const fn = 'decodeNpyData';
  if (!(bytes instanceof Uint8Array)) throw new TypeError(RULES.mustBe(fn, 'bytes', 'a Uint8Array', bytes));
  checkLive(fn, 'bytes', bytes);
  const itemSize = ITEM_SIZE.get(checkName(fn, 'dtype', dtype, NPY_DTYPES))!;
  const most = Math.floor(bytes.length / itemSize);
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0 || count > most) {
    throw numberError(
      fn,
      'count',
      `an integer from 0 to ${most} (the ${dtype} values in ${bytes.length} bytes)`,
      count,
    );
  }
  if (dtype === 'float32') return decodeFloat32(bytes, count);
  if (dtype === 'float64') return decodeFloat64(bytes, count);
  return decodeFloat16(bytes, count);
}

function asBytes(input: unknown, fn: string): Uint8Array {
  checkLive(fn, 'input', input);
  if (input instanceof Uint8Array) return input;
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeError(RULES.mustBe(fn, 'input', 'a Uint8Array or ArrayBuffer', input));
}

/** Reads a whole .npy file. float64 is rounded to float32 once; float16 widens exactly. */
export function readNpy(input: Uint8Array | ArrayBuffer, source = 'npy data'): NpyArray {
  const bytes = asBytes(input, 'readNpy');
  checkString('readNpy', 'source', source);
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

/** A shape as Python prints the tuple: (8,) or (2, 3). */
function pyShape(shape: number[]): string {
  return shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
}

/**
 * Reads the preamble and header through a byte source (two small reads), and checks that the
 * file holds exactly the data the header promises when the size is known.
 */
export async function readNpyHeaderFrom(source: ByteSource): Promise<NpyHeader> {
  const fail = (problem: string) => new FormatError('npy', problem, { source: source.describe });
  const size = source.size;
  if (size !== undefined && size < 10) throw fail(`expected a .npy file, got ${size} bytes`);
  const first = await source.read(0, Math.min(12, size ?? 12));
  const headerEnd = npyHeaderLength(first, source.describe);
  if (size !== undefined && headerEnd > size) {
    throw fail(`header length ${headerEnd} is larger than the ${size}-byte file`);
  }
  let headerBytes = first.subarray(0, headerEnd);
  if (headerEnd > first.length) {
    headerBytes = new Uint8Array(headerEnd);
    headerBytes.set(first, 0);
    headerBytes.set(await source.read(first.length, headerEnd - first.length), first.length);
  }
  const header = parseNpyHeader(headerBytes, source.describe);
  const byteLength = header.count * header.itemSize;
  if (size !== undefined && size !== header.dataOffset + byteLength) {
    throw fail(
      `shape ${pyShape(header.shape)} of ${header.dtype} needs ${byteLength} data bytes, the file has ${size - header.dataOffset}`,
    );
  }
  return header;
}

/**
 * The header of a .npy file — dtype, shape, where the data starts — read without reading the data,
 * so a file of any size can be processed in slices (`decodeNpyData` turns each slice into float32).
 * `source` is anything `openByteSource` takes: a Blob/File, bytes in memory, or an http(s) URL.
 */
export async function readNpyHeader(source: ByteSourceInput, options: ByteSourceOptions = {}): Promise<NpyHeader> {
  const fn = 'readNpyHeader';
  return readNpyHeaderFrom(
    byteSourceFor(checkByteSourceInput(fn, 'source', source), checkByteSourceOptions(fn, options)),
  );
}

/**
 * The preamble and header of a float32 ('<f4'), C-order, version 1.0 .npy of this shape: followed
 * by the data, it is the file. Lets a writer stream data it never holds as one array.
 */
export function writeNpyHeader(shape: number[]): Uint8Array {
  return npyHeader(shape, 'writeNpyHeader');
}

function npyHeader(shape: unknown, fn: string): Uint8Array {
  checkShape(fn, shape);
  let dict = `{'descr': '<f4', 'fortran_order': False, 'shape': ${pyShape(shape)}, }`;
  // NumPy aligns the data to 64 bytes: pad with spaces, end with a newline.
  const total = Math.ceil((10 + dict.length + 1) / 64) * 64;
  dict = dict.padEnd(total - 10 - 1, ' ') + '\n';
  if (dict.length > 0xffff) {
    throw new RangeError(
      `${fn}: shape must fit in a version 1.0 header (at most 65535 bytes), got ${shape.length} dimensions, a ${dict.length}-byte header`,
    );
  }
  const out = new Uint8Array(total);
  out.set(MAGIC, 0);
  out[6] = 1;
  out[7] = 0;
  out[8] = dict.length & 0xff;
  out[9] = dict.length >>> 8;
  for (let i = 0; i < dict.length; i++) out[10 + i] = dict.charCodeAt(i);
  return out;
}

/** A shape: an array of whole, non-negative element counts. */
function checkShape(fn: string, shape: unknown): asserts shape is number[] {
  if (!Array.isArray(shape)) {
    throw new TypeError(RULES.mustBe(fn, 'shape', 'an array of integers >= 0', shape));
  }
  for (let i = 0; i < shape.length; i++) {
    const n: unknown = shape[i];
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
      throw numberError(fn, `shape[${i}]`, 'an integer >= 0', n);
  }
}

/** A float32 ('<f4'), C-order, version 1.0 .npy file that np.load and torch read. */
export function writeNpy(data: Float32Array, shape: number[]): Uint8Array {
  checkFloat32Array('writeNpy', 'data', data);
  const header = npyHeader(shape, 'writeNpy');
  // A dimension 0 empties the shape whatever the others (not Infinity × 0 = NaN); past 2^53 the
  // product is not exact, and more than any array holds.
  const count = shape.includes(0) ? 0 : shape.reduce((a, b) => a * b, 1);
  if (count !== data.length) {
    const values = Number.isSafeInteger(count) ? count : 'more than 2^53';
    throw new RangeError(
      `writeNpy: data must have ${values} values (the product of shape [${shape.join(', ')}]), got ${data.length}`,
    );
  }
  const out = new Uint8Array(header.length + data.length * 4);
  out.set(header, 0);
  out.set(encodeFloat32(data), header.length);
  return out;
}
