/**
 * Reads just the header of a .npy file (the first few hundred bytes), so a large file can be
 * streamed in slices without loading it whole.
 */
export interface NpyHeader {
  dtype: 'float32' | 'float64';
  shape: number[];
  dataOffset: number;
}

export function parseNpyHeader(bytes: Uint8Array, name = 'file'): NpyHeader {
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (bytes.length < 10 || magic.some((m, i) => bytes[i] !== m)) {
    throw new Error(`${name}: not a .npy file (the magic string \\x93NUMPY is missing)`);
  }
  const major = bytes[6]!;
  let len: number;
  let start: number;
  if (major === 1) {
    len = bytes[8]! | (bytes[9]! << 8);
    start = 10;
  } else {
    len = (bytes[8]! | (bytes[9]! << 8) | (bytes[10]! << 16)) + bytes[11]! * 2 ** 24;
    start = 12;
  }
  if (start + len > bytes.length) throw new Error(`${name}: .npy header is longer than expected`);
  const text = new TextDecoder('latin1').decode(bytes.subarray(start, start + len));
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(text)?.[1];
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(text)?.[1];
  const shapeText = /'shape'\s*:\s*\(([^)]*)\)/.exec(text)?.[1];
  if (!descr || !fortran || shapeText === undefined) throw new Error(`${name}: unreadable .npy header`);
  if (fortran === 'True') throw new Error(`${name}: Fortran-ordered arrays are not supported; save with C order`);
  let dtype: NpyHeader['dtype'];
  if (descr === '<f4' || descr === '=f4') dtype = 'float32';
  else if (descr === '<f8' || descr === '=f8') dtype = 'float64';
  else
    throw new Error(`${name}: dtype ${descr} is not supported; expected little-endian float32 (<f4) or float64 (<f8)`);
  const shape = shapeText
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length)
    .map(Number);
  if (shape.some((v) => !Number.isInteger(v) || v < 0)) throw new Error(`${name}: bad shape (${shapeText})`);
  return { dtype, shape, dataOffset: start + len };
}
