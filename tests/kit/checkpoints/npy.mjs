// .npy files as NumPy's np.save writes them (format version 1.0): the magic, the version, the
// header length, a Python dict literal padded with spaces to a multiple of 64 bytes and ended by
// a newline, then the data in C order. Written here, not with the package's writeNpy, so that the
// package's reader is judged by files it did not write.
import { bytesOf, concat, le16, le32, utf8 } from './bytes.mjs';

export const NPY_MAGIC = Uint8Array.of(0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59);

const DESCR = { Float32Array: '<f4', Float64Array: '<f8', Uint16Array: '<f2' };

/** Python's repr of a shape tuple: (4,), (2, 3), (). */
const tuple = (shape) => (shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`);

/** The header (preamble and dict) of an array of `shape`: what precedes the data of np.save's file. */
export function npyHeader(shape, descr = '<f4') {
  return rawNpy(`{'descr': '${descr}', 'fortran_order': False, 'shape': ${tuple(shape)}, }`, new Uint8Array(0));
}

/** np.save of `data` (a Float32Array, Float64Array, or Uint16Array of float16 bits) with `shape`. */
export function npy(data, shape = [data.length]) {
  const descr = DESCR[data.constructor.name];
  if (!descr) throw new TypeError(`npy: no .npy dtype for ${data.constructor.name}`);
  if (shape.reduce((a, b) => a * b, 1) !== data.length)
    throw new RangeError(`npy: shape [${shape}] for ${data.length} values`);
  return concat([npyHeader(shape, descr), bytesOf(data)]);
}

/** A .npy with any header dict, padded as np.save pads it (version 1: 2-byte length; 2: 4-byte), then `data`. */
export function rawNpy(dict, data, version = 1) {
  const preamble = version === 1 ? 10 : 12;
  const total = Math.ceil((preamble + dict.length + 1) / 64) * 64;
  const header = utf8(dict.padEnd(total - preamble - 1, ' ') + '\n');
  const length = version === 1 ? le16(header.length) : le32(header.length);
  return concat([NPY_MAGIC, Uint8Array.of(version, 0), length, header, data]);
}

/** A version 1.0 .npy whose header is exactly `header` (no padding, no newline), then `data`. */
export function npyExact(header, data = new Uint8Array(0)) {
  return concat([NPY_MAGIC, Uint8Array.of(1, 0), le16(utf8(header).length), utf8(header), data]);
}
