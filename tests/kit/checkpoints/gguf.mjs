// GGUF files as llama.cpp's writer lays them out (magic, version, counts, metadata, tensor
// infos, the data section aligned): enough for tests, with scalar, string and array metadata and
// tensors of any type code; and the raw pieces for files that break the format on purpose.
import { concat, le32, le64, utf8 } from './bytes.mjs';

/** A GGUF string: its byte length (u64), then its UTF-8 bytes. */
export const ggufString = (s) => concat([le64(utf8(s).length), utf8(s)]);

/** A GGUF preamble: magic, version, tensor count, metadata count. */
export const ggufHead = (tensors, entries, version = 3) =>
  concat([utf8('GGUF'), le32(version), le64(tensors), le64(entries)]);

const f32 = (v) => new Uint8Array(new Float32Array([v]).buffer);

/** One metadata value: its type code, then the value. */
function value(v) {
  switch (v.type) {
    case 'u32':
      return concat([le32(4), le32(v.value)]);
    case 'f32':
      return concat([le32(6), f32(v.value)]);
    case 'string':
      return concat([le32(8), ggufString(v.value)]);
    case 'strings':
      return concat([le32(9), le32(8), le64(v.value.length), ...v.value.map(ggufString)]);
    case 'i32s':
      return concat([le32(9), le32(5), le64(v.value.length), ...v.value.map((x) => le32(x >>> 0))]);
    default:
      throw new Error(`buildGguf: no metadata type ${v.type}`);
  }
}

/** A GGUF file: each tensor's data at the next multiple of `alignment` in the data section. */
export function buildGguf(metadata, tensors, { version = 3, alignment = 32 } = {}) {
  const parts = [ggufHead(tensors.length, metadata.length, version)];
  for (const [key, v] of metadata) parts.push(ggufString(key), value(v));
  let offset = 0;
  const offsets = [];
  for (const t of tensors) {
    parts.push(ggufString(t.name), le32(t.dims.length), ...t.dims.map(le64), le32(t.type), le64(offset));
    offsets.push(offset);
    offset = Math.ceil((offset + t.data.length) / alignment) * alignment;
  }
  const head = concat(parts);
  const dataStart = Math.ceil(head.length / alignment) * alignment;
  const out = new Uint8Array(dataStart + offset);
  out.set(head, 0);
  tensors.forEach((t, i) => out.set(t.data, dataStart + offsets[i]));
  return out;
}

/** A GGUF with one tensor entry and no metadata, its data section `dataBytes` zeros (alignment 32). */
export function ggufTensorFile(name, dims, type, offset, dataBytes) {
  const head = concat([
    ggufHead(1, 0),
    ggufString(name),
    le32(dims.length),
    ...dims.map(le64),
    le32(type),
    le64(offset),
  ]);
  return concat([head, new Uint8Array((32 - (head.length % 32)) % 32), new Uint8Array(dataBytes)]);
}
