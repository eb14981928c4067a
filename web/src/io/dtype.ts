/**
 * Exact widening of 16-bit floats to float32. Every float16 and bfloat16 value is representable in
 * float32, so the array converters assemble float32 bit patterns directly: that keeps -0, the
 * subnormals and even NaN payloads bit-exact, which going through a JS number would not.
 */

import { float16BitsToFloat32Bits } from '../numerics/half.js';
import { numberError } from '../checks/validate.js';

/** 16 bits as a number: an integer in [0, 65535] (a bit pattern, not a value to round). */
function checkBits(fn: string, bits: unknown): void {
  if (typeof bits !== 'number' || !Number.isInteger(bits) || bits < 0 || bits > 0xffff) {
    throw numberError(fn, 'bits', 'an integer in [0, 65535]', bits);
  }
}

/** The value of one IEEE binary16 number given its 16 bits. */
export function float16ToFloat32(bits: number): number {
  checkBits('float16ToFloat32', bits);
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);

/** The value of one bfloat16 number given its 16 bits (the top half of a float32). */
export function bfloat16ToFloat32(bits: number): number {
  checkBits('bfloat16ToFloat32', bits);
  f32Bits[0] = (bits & 0xffff) << 16;
  return f32[0]!;
}

/** Widens `count` little-endian 16-bit floats starting at bytes[0] into a new Float32Array. */
export function decodeFloat16(bytes: Uint8Array, count: number = Math.floor(bytes.length / 2)): Float32Array {
  const out = new Float32Array(count);
  const bits = new Uint32Array(out.buffer);
  for (let i = 0; i < count; i++) bits[i] = float16BitsToFloat32Bits(bytes[2 * i]! | (bytes[2 * i + 1]! << 8));
  return out;
}

export function decodeBfloat16(bytes: Uint8Array, count: number = Math.floor(bytes.length / 2)): Float32Array {
  const out = new Float32Array(count);
  const bits = new Uint32Array(out.buffer);
  for (let i = 0; i < count; i++) bits[i] = ((bytes[2 * i]! << 16) | (bytes[2 * i + 1]! << 24)) >>> 0;
  return out;
}

const littleEndianHost = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export function decodeFloat32(bytes: Uint8Array, count: number = Math.floor(bytes.length / 4)): Float32Array {
  if (littleEndianHost) {
    // Copy first: the bytes may sit at an offset that is not a multiple of 4.
    // (Node Buffers' slice() is a view, so copy with set().)
    const copy = new Uint8Array(count * 4);
    copy.set(bytes.subarray(0, count * 4));
    return new Float32Array(copy.buffer);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, count * 4);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = view.getFloat32(4 * i, true);
  return out;
}

/** float64 values rounded once to float32. */
export function decodeFloat64(bytes: Uint8Array, count: number = Math.floor(bytes.length / 8)): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, count * 8);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = view.getFloat64(8 * i, true);
  return out;
}

export function encodeFloat32(data: Float32Array): Uint8Array {
  if (littleEndianHost) return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
  const out = new Uint8Array(data.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < data.length; i++) view.setFloat32(4 * i, data[i]!, true);
  return out;
}
