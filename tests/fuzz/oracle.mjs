// What the fuzz targets share to judge an input: the failure they throw and bit-level comparison.

export class FuzzFailure extends Error {
  name = 'FuzzFailure';
}

export function fail(message) {
  throw new FuzzFailure(message);
}

export function describeError(e) {
  return e instanceof Error ? `${e.constructor.name}: ${e.message}` : `non-Error thrown: ${String(e)}`;
}

/** Same length and the same bit pattern in every element (NaN payloads included). */
export function sameBits(a, b) {
  if (a.length !== b.length || a.BYTES_PER_ELEMENT !== b.BYTES_PER_ELEMENT) return false;
  // 32-bit words where both arrays allow them; bytes otherwise (16-bit arrays of odd length or offset).
  const aligned = [a, b].every((v) => v.byteOffset % 4 === 0 && v.byteLength % 4 === 0);
  const words = (v) =>
    aligned
      ? new Uint32Array(v.buffer, v.byteOffset, v.byteLength / 4)
      : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  const ua = words(a),
    ub = words(b);
  for (let i = 0; i < ua.length; i++) if (ua[i] !== ub[i]) return false;
  return true;
}
