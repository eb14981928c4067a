// The kit's 16-bit roundings on values whose bits are known by hand: to nearest, ties to even, at
// the normal range's ends, into the subnormals and past the largest finite value.
import { describe, expect, it } from 'vitest';
import { bfloat16Bits, bfloat16Values, float16Bits, float16Values } from './halves.mjs';

const hex = (bits: Uint16Array) => Array.from(bits, (b) => b.toString(16));

describe('float16Bits', () => {
  it('rounds to nearest, ties to even, through the subnormals and into Infinity', () => {
    const values = [
      [1, '3c00'],
      [1 + 2 ** -11, '3c00'], // halfway between 1 and 1 + 2^-10: to even
      [1 + 3 * 2 ** -11, '3c02'], // halfway between 1 + 2^-10 and 1 + 2^-9: to even
      [1 + 2 ** -11 + 2 ** -20, '3c01'],
      [65504, '7bff'], // the largest finite
      [65520, '7c00'], // halfway to 2^16: to even, which is Infinity
      [2 ** -14, '400'], // the smallest normal
      [2 ** -24, '1'], // the smallest subnormal
      [2 ** -25, '0'], // halfway to it: to even, zero
      [3 * 2 ** -26, '1'],
      [-0, '8000'],
      [-Infinity, 'fc00'],
      [NaN, '7e00'],
    ] as const;
    expect(hex(float16Bits(values.map(([v]) => v)))).toEqual(values.map(([, bits]) => bits));
  });

  it('float16Values reads each pattern back: normals, subnormals, ±0, ±Infinity and NaN', () => {
    const bits = Uint16Array.of(0x3c00, 0x3c01, 0x7bff, 0x0400, 0x0001, 0x8000, 0xfc00, 0x7e00, 0xc000);
    expect(Array.from(float16Values(bits))).toEqual([
      1,
      1 + 2 ** -10,
      65504,
      2 ** -14,
      2 ** -24,
      -0,
      -Infinity,
      NaN,
      -2,
    ]);
    // Every finite pattern survives the round trip.
    const all = Uint16Array.from({ length: 0x10000 }, (_, i) => i).filter((h) => (h & 0x7c00) !== 0x7c00);
    expect(float16Bits(float16Values(all))).toEqual(all);
  });
});

describe('bfloat16Bits', () => {
  it('rounds to nearest, ties to even; keeps ±Infinity, ±0 and NaN', () => {
    // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: to even (1); 1 + 3·2^-8 to even (1 + 2^-6).
    const values = [1, 1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -8 + 2 ** -20, -0, Infinity, -Infinity, NaN];
    expect(hex(bfloat16Bits(values))).toEqual(['3f80', '3f80', '3f82', '3f81', '8000', '7f80', 'ff80', '7fc0']);
    expect(Array.from(bfloat16Values(Uint16Array.of(0x3f80, 0x3f82, 0xc000)))).toEqual([1, 1 + 2 ** -6, -2]);
  });
});
