/**
 * The values of the few tensors the norms need (γ, β, ε, and the constants that tell a norm's
 * arithmetic apart, such as Pow's exponent 2), decoded from the byte ranges model.ts kept. Only
 * float32 vectors are read as weights; scalars may also be float64.
 */
import type { TensorRef } from './model.js';
import { ProtoReader } from './protobuf.js';

/** TensorProto.DataType's names, as messages and the API write them. */
const DATA_TYPE_NAMES: Record<number, string> = {
  1: 'float32',
  2: 'uint8',
  3: 'int8',
  4: 'uint16',
  5: 'int16',
  6: 'int32',
  7: 'int64',
  8: 'string',
  9: 'bool',
  10: 'float16',
  11: 'float64',
  12: 'uint32',
  13: 'uint64',
  14: 'complex64',
  15: 'complex128',
  16: 'bfloat16',
  17: 'float8e4m3fn',
  18: 'float8e4m3fnuz',
  19: 'float8e5m2',
  20: 'float8e5m2fnuz',
  21: 'uint4',
  22: 'int4',
  23: 'float4e2m1',
};

export const FLOAT32 = 1;
export const FLOAT64 = 11;

export const dataTypeName = (type: number): string => DATA_TYPE_NAMES[type] ?? `data type ${type}`;

/**
 * The number of values a tensor of these dims holds: none when a dimension is 0, whatever the
 * others (a plain product of enough huge ones is Infinity × 0 = NaN). Past 2^53 the product is not
 * exact, but then larger than any data it is compared with.
 */
export const elementCount = (dims: readonly number[]): number =>
  dims.includes(0) ? 0 : dims.reduce((a, b) => a * b, 1);

/**
 * A float32 or float64 tensor's values as float32 and float64 numbers, from raw_data (little-endian)
 * or float_data / double_data; null when the tensor is of another type (the caller says why that
 * cannot be read) or holds another number of values than its dims say.
 */
export function tensorValues(bytes: Uint8Array, t: TensorRef): Float64Array | null {
  const count = elementCount(t.dims);
  if (t.dataType !== FLOAT32 && t.dataType !== FLOAT64) return null;
  const width = t.dataType === FLOAT32 ? 4 : 8;
  if (t.raw !== null) {
    const [from, to] = t.raw;
    if (to - from !== count * width) return null;
    const view = new DataView(bytes.buffer, bytes.byteOffset + from, to - from);
    const out = new Float64Array(count);
    for (let i = 0; i < count; i++) out[i] = width === 4 ? view.getFloat32(i * 4, true) : view.getFloat64(i * 8, true);
    return out;
  }
  const pb = new ProtoReader(bytes);
  const values: number[] = [];
  if (width === 4) for (const f of t.floatData) pb.packedFloats(f, values);
  else {
    for (const f of t.doubleData) {
      const view = new DataView(bytes.buffer, bytes.byteOffset + f.from, f.to - f.from);
      for (let i = 0; i + 8 <= view.byteLength; i += 8) values.push(view.getFloat64(i, true));
    }
  }
  return values.length === count ? Float64Array.from(values) : null;
}
