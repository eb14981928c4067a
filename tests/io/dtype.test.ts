import { describe, expect, it } from 'vitest';
import { float16ToFloat32 as npyjsHalf } from 'npyjs';
import { bfloat16ToFloat32, float16ToFloat32 } from '../../web/src/io/index.js';
import { decodeBfloat16, decodeFloat16 } from '../../web/src/io/dtype.js';

const bitsOf = (values: Float32Array) => Array.from(new Uint32Array(values.buffer), (b) => b.toString(16));
const allCodes = Uint16Array.from({ length: 65536 }, (_, i) => i);
const le = (codes: Uint16Array) => new Uint8Array(codes.buffer);

describe('float16', () => {
  it('decodes the edge cases exactly', () => {
    const cases: Array<[number, number]> = [
      [0x0000, 0],
      [0x8000, -0],
      [0x0001, 2 ** -24], // smallest subnormal
      [0x03ff, 1023 * 2 ** -24], // largest subnormal
      [0x0400, 2 ** -14], // smallest normal
      [0x3c00, 1],
      [0xc000, -2],
      [0x3555, 0.333251953125],
      [0x7bff, 65504], // largest finite
      [0x7c00, Infinity],
      [0xfc00, -Infinity],
    ];
    for (const [bits, value] of cases) {
      expect(Object.is(float16ToFloat32(bits), value), `0x${bits.toString(16)}`).toBe(true);
      expect(Object.is(decodeFloat16(le(Uint16Array.of(bits)))[0], value), `0x${bits.toString(16)}`).toBe(true);
    }
    expect(float16ToFloat32(0x7e00)).toBeNaN();
    expect(float16ToFloat32(0xfc01)).toBeNaN();
  });

  it('array and scalar decoders agree on all 65536 codes, and with npyjs', () => {
    const decoded = decodeFloat16(le(allCodes));
    for (let code = 0; code < 65536; code++) {
      const v = float16ToFloat32(code);
      const ref = npyjsHalf(code);
      if (Number.isNaN(v)) {
        expect(decoded[code]).toBeNaN();
        expect(ref).toBeNaN();
      } else {
        expect(Object.is(decoded[code], v), `code 0x${code.toString(16)}`).toBe(true);
        expect(Object.is(ref, v), `npyjs code 0x${code.toString(16)}`).toBe(true);
      }
    }
  });

  it('keeps NaN payloads and the sign of NaN', () => {
    expect(bitsOf(decodeFloat16(le(Uint16Array.of(0x7e00, 0xfe01, 0x7c01))))).toEqual([
      '7fc00000',
      'ffc02000',
      '7f802000',
    ]);
  });
});

describe('bfloat16', () => {
  it('decodes the edge cases exactly', () => {
    const cases: Array<[number, number]> = [
      [0x0000, 0],
      [0x8000, -0],
      [0x0001, 2 ** -133], // smallest subnormal
      [0x007f, 127 * 2 ** -133],
      [0x0080, 2 ** -126],
      [0x3f80, 1],
      [0xc049, -3.140625],
      [0x7f7f, (2 - 2 ** -7) * 2 ** 127],
      [0x7f80, Infinity],
      [0xff80, -Infinity],
    ];
    for (const [bits, value] of cases) {
      expect(Object.is(bfloat16ToFloat32(bits), value), `0x${bits.toString(16)}`).toBe(true);
      expect(Object.is(decodeBfloat16(le(Uint16Array.of(bits)))[0], value), `0x${bits.toString(16)}`).toBe(true);
    }
    expect(bfloat16ToFloat32(0x7fc0)).toBeNaN();
  });

  it('is the top half of a float32 for all 65536 codes', () => {
    const decoded = new Uint32Array(decodeBfloat16(le(allCodes)).buffer);
    for (let code = 0; code < 65536; code++) expect(decoded[code]).toBe((code << 16) >>> 0);
  });
});
