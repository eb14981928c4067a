// safetensors files as the reference writer (huggingface/safetensors) lays them out: an 8-byte
// little-endian header length, a JSON header space-padded to 8 bytes, the tensors back to back.
import { concat, le64, sparseFile, utf8 } from './bytes.mjs';

const DTYPE_BYTES = { F32: 4, F16: 2, BF16: 2, F64: 8, I64: 8 };

/**
 * Lays tensors out back to back in the given order. A tensor without `data` reads as zeros (a
 * hole of the sparse file), so a 548 MB checkpoint costs only its header and its real tensors.
 */
export function buildSafetensors(tensors, metadata = { format: 'pt' }) {
  const header = { __metadata__: metadata };
  const relative = new Map();
  let offset = 0;
  for (const t of tensors) {
    const bytes = t.shape.reduce((a, b) => a * b, 1) * (DTYPE_BYTES[t.dtype] ?? 1);
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes] };
    relative.set(t.name, [offset, offset + bytes]);
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json = json.padEnd(Math.ceil(json.length / 8) * 8, ' ');
  const prefix = rawSafetensors(json);
  const dataStart = prefix.length;
  const ranges = new Map();
  const segments = [{ offset: 0, bytes: prefix }];
  for (const t of tensors) {
    const [b, e] = relative.get(t.name);
    ranges.set(t.name, [dataStart + b, dataStart + e]);
    if (t.data) {
      if (t.data.length !== e - b) throw new Error(`fixture ${t.name}: ${t.data.length} bytes, expected ${e - b}`);
      segments.push({ offset: dataStart + b, bytes: t.data });
    }
  }
  return { file: sparseFile(dataStart + offset, segments), ranges, headerLength: prefix.length - 8 };
}

/** A safetensors file from a header written as is (valid or not), its data, and the length it declares. */
export function rawSafetensors(header, data = new Uint8Array(0), declaredLength) {
  const json = utf8(header);
  return concat([le64(declaredLength ?? json.length), json, data]);
}
