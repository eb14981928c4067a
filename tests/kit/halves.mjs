// float32 values rounded to the 16-bit activation types, as bit patterns: to nearest, ties to
// even, overflow to ±Infinity, NaN kept a (quiet) NaN. Written from the formats (IEEE 754 binary16;
// bfloat16, the top half of a float32), not with the package's float32ToHalfBits, which they judge.

const f32 = new Float32Array(1);
const word = new Uint32Array(f32.buffer);

/** IEEE binary16 bits of each value. */
export function float16Bits(values) {
  return Uint16Array.from(values, (v) => {
    f32[0] = v;
    const w = word[0];
    const sign = (w >>> 16) & 0x8000;
    const exponent = (w >>> 23) & 0xff;
    const mantissa = w & 0x7fffff;
    if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
    const e = exponent - 127 + 15;
    if (e >= 0x1f) return sign | 0x7c00;
    // Keep the top bits of the significand; round the dropped ones to nearest, ties to even (a
    // carry out of the significand moves into the exponent, and past the largest into Infinity).
    const keep = (significand, drop) => {
      let h = Math.floor(significand / 2 ** drop);
      const rest = significand - h * 2 ** drop;
      const half = 2 ** (drop - 1);
      if (rest > half || (rest === half && h % 2 === 1)) h++;
      return h;
    };
    if (e <= 0) return e < -10 ? sign : sign | keep(mantissa | 0x800000, 14 - e);
    return sign | ((e << 10) + keep(mantissa, 13));
  });
}

/** The float32 value of each binary16 bit pattern (every one is exact in float32). */
export function float16Values(bits) {
  return Float32Array.from(bits, (h) => {
    const sign = h & 0x8000 ? -1 : 1;
    const exponent = (h >>> 10) & 0x1f;
    const fraction = h & 0x3ff;
    if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
    return exponent === 0 ? sign * fraction * 2 ** -24 : sign * (1024 + fraction) * 2 ** (exponent - 25);
  });
}

/** bfloat16 bits of each value. */
export function bfloat16Bits(values) {
  return Uint16Array.from(values, (v) => {
    f32[0] = v;
    const w = word[0];
    return (w & 0x7fffffff) > 0x7f800000 ? (w >>> 16) | 0x40 : (w + 0x7fff + ((w >>> 16) & 1)) >>> 16;
  });
}

/** The float32 value of each bfloat16 bit pattern. */
export const bfloat16Values = (bits) => new Float32Array(Uint32Array.from(bits, (b) => b << 16).buffer);
