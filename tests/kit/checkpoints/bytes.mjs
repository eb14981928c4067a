// Little-endian integers, concatenation and files that are mostly holes: what every checkpoint
// writer of the kit builds its bytes from.

export const utf8 = (s) => new TextEncoder().encode(s);

export function le16(n) {
  const b = new Uint8Array(2);
  new DataView(b.buffer).setUint16(0, n, true);
  return b;
}

export function le32(n) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n, true);
  return b;
}

export function le64(n) {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n), true);
  return b;
}

export function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The bytes of a typed array's elements (a copy, little-endian as every engine stores them). */
export function bytesOf(values) {
  return new Uint8Array(values.buffer.slice(values.byteOffset, values.byteOffset + values.byteLength));
}
export const f32Bytes = bytesOf;
export const u16Bytes = bytesOf;

/** A file of `size` bytes holding `segments` and zeros everywhere else, never held whole in memory. */
export function sparseFile(size, segments) {
  for (const s of segments) {
    if (s.offset < 0 || s.offset + s.bytes.length > size) throw new RangeError('sparseFile: segment outside the file');
  }
  return {
    size,
    slice(start, end) {
      const out = new Uint8Array(end - start);
      for (const { offset, bytes } of segments) {
        const from = Math.max(start, offset);
        const to = Math.min(end, offset + bytes.length);
        if (to > from) out.set(bytes.subarray(from - offset, to - offset), from - start);
      }
      return out;
    },
  };
}

/** Bytes in memory as a file. */
export const bytesFile = (bytes) => ({ size: bytes.length, slice: (start, end) => bytes.subarray(start, end) });

/** Materializes a whole file (only for small ones). */
export const toBytes = (file) => file.slice(0, file.size);
