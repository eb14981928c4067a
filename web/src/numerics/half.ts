/**
 * float16 and bfloat16 bit patterns to and from float32, with the kernels' rules
 * (cpp/src/kernels/half.h): widening is exact (NaN payloads kept); narrowing rounds to nearest,
 * ties to even, and turns every NaN into the type's quiet NaN with its sign. For preparing and
 * reading the Uint16Array activations of `dtype: 'float16' | 'bfloat16'` calls.
 */
import { RULES, oneOf } from '../checks/rules.js';
import type { DType } from '../types.js';
import { checkLiveView } from '../checks/validate.js';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The float32 bit pattern of a float16 value. */
export function float16BitsToFloat32Bits(h: number): number {
  const sign = (h & 0x8000) << 16;
  const em = h & 0x7fff;
  if (em >= 0x7c00) return (sign | 0x7f800000 | (em << 13)) >>> 0;
  // The exponent and mantissa move up 13 bits; scaling by 2^112 rebiases the exponent (and turns
  // a subnormal half, a subnormal float at that point, into the normal float it is).
  u32[0] = em << 13;
  f32[0] = f32[0] * 2 ** 112;
  return (sign | u32[0]) >>> 0;
}

/** The float16 bit pattern nearest to a float32 bit pattern (ties to even). */
export function float32BitsToFloat16Bits(bits: number): number {
  let u = bits >>> 0;
  const sign = (u >>> 16) & 0x8000;
  u &= 0x7fffffff;
  let h: number;
  if (u >= 0x47800000) {
    h = u > 0x7f800000 ? 0x7e00 : 0x7c00; // |f| ≥ 65536 (rounds to Inf), Inf, NaN
  } else if (u < 0x38800000) {
    // A subnormal half or zero: adding 0.5 aligns the bits at the half's spacing, 2^-24, and the
    // float32 addition rounds to nearest even exactly there.
    u32[0] = u;
    f32[0] = f32[0] + 0.5;
    h = u32[0] - 0x3f000000;
  } else {
    h = (u - 0x38000000 + 0x0fff + ((u >>> 13) & 1)) >>> 13;
  }
  return h | sign;
}

/** The bfloat16 bit pattern nearest to a float32 bit pattern (ties to even). */
export function float32BitsToBfloat16Bits(bits: number): number {
  const u = bits >>> 0;
  if ((u & 0x7fffffff) > 0x7f800000) return ((u >>> 16) & 0x8000) | 0x7fc0;
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

function checkHalfDType(fn: string, dtype: unknown): 'float16' | 'bfloat16' {
  if (dtype !== 'float16' && dtype !== 'bfloat16') {
    throw new TypeError(RULES.mustBe(fn, 'dtype', oneOf(['float16', 'bfloat16']), dtype));
  }
  return dtype;
}

/** float16 / bfloat16 bit patterns as the float32 values they hold (exactly). */
export function halfBitsToFloat32(bits: Uint16Array, dtype: Exclude<DType, 'float32'>): Float32Array {
  const fn = 'halfBitsToFloat32';
  if (!(bits instanceof Uint16Array)) throw new TypeError(RULES.mustBe(fn, 'bits', 'a Uint16Array', bits));
  checkLiveView(fn, 'bits', bits, 'Uint16Array');
  const kind = checkHalfDType(fn, dtype);
  const out = new Float32Array(bits.length);
  const o = new Uint32Array(out.buffer);
  if (kind === 'bfloat16') for (let i = 0; i < bits.length; i++) o[i] = bits[i]! << 16;
  else for (let i = 0; i < bits.length; i++) o[i] = float16BitsToFloat32Bits(bits[i]!);
  return out;
}

/** float32 values rounded to float16 / bfloat16, as bit patterns (the kernels' rounding). */
export function float32ToHalfBits(values: Float32Array, dtype: Exclude<DType, 'float32'>): Uint16Array {
  const fn = 'float32ToHalfBits';
  if (!(values instanceof Float32Array)) {
    throw new TypeError(RULES.mustBe(fn, 'values', 'a Float32Array', values));
  }
  checkLiveView(fn, 'values', values, 'Float32Array');
  const kind = checkHalfDType(fn, dtype);
  const bits = new Uint32Array(values.buffer, values.byteOffset, values.length);
  const out = new Uint16Array(values.length);
  const narrow = kind === 'bfloat16' ? float32BitsToBfloat16Bits : float32BitsToFloat16Bits;
  for (let i = 0; i < values.length; i++) out[i] = narrow(bits[i]!);
  return out;
}
