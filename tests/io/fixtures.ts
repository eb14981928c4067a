/** Deterministic test files built in memory: GPT-2-layout safetensors, GGUF, .npy. */

import { sparseFile, type VirtualFile } from '../helpers/fixture-server.js';
import { rng } from '../../web/shared/rng.mjs';

export { rng };

export interface TensorSpec {
  name: string;
  shape: number[];
}

/** GPT-2 small as published on the Hub: 160 tensors, names sorted as the safetensors writer does. */
export function gpt2Layout(): TensorSpec[] {
  const d = 768;
  const t: TensorSpec[] = [
    { name: 'wte.weight', shape: [50257, d] },
    { name: 'wpe.weight', shape: [1024, d] },
    { name: 'ln_f.weight', shape: [d] },
    { name: 'ln_f.bias', shape: [d] },
  ];
  for (let i = 0; i < 12; i++) {
    const p = `h.${i}.`;
    t.push(
      { name: `${p}ln_1.weight`, shape: [d] },
      { name: `${p}ln_1.bias`, shape: [d] },
      { name: `${p}attn.bias`, shape: [1, 1, 1024, 1024] },
      { name: `${p}attn.c_attn.weight`, shape: [d, 3 * d] },
      { name: `${p}attn.c_attn.bias`, shape: [3 * d] },
      { name: `${p}attn.c_proj.weight`, shape: [d, d] },
      { name: `${p}attn.c_proj.bias`, shape: [d] },
      { name: `${p}ln_2.weight`, shape: [d] },
      { name: `${p}ln_2.bias`, shape: [d] },
      { name: `${p}mlp.c_fc.weight`, shape: [d, 4 * d] },
      { name: `${p}mlp.c_fc.bias`, shape: [4 * d] },
      { name: `${p}mlp.c_proj.weight`, shape: [4 * d, d] },
      { name: `${p}mlp.c_proj.bias`, shape: [d] },
    );
  }
  return t.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const DTYPE_BYTES: Record<string, number> = { F32: 4, F16: 2, BF16: 2, F64: 8, I64: 8 };

export interface SafetensorsTensor extends TensorSpec {
  dtype: string;
  /** Raw little-endian bytes; omitted tensors read as zeros (a hole in the sparse file). */
  data?: Uint8Array;
}

export interface BuiltFile {
  file: VirtualFile;
  /** Absolute [start, end) of each tensor's bytes. */
  ranges: Map<string, [number, number]>;
  headerLength: number;
}

/** Lays tensors out back to back in the given order and writes the header the way the reference writer does (space-padded to 8 bytes). */
export function buildSafetensors(
  tensors: SafetensorsTensor[],
  metadata: Record<string, string> = { format: 'pt' },
): BuiltFile {
  const header: Record<string, unknown> = { __metadata__: metadata };
  let offset = 0;
  const relative = new Map<string, [number, number]>();
  for (const t of tensors) {
    const bytes = t.shape.reduce((a, b) => a * b, 1) * (DTYPE_BYTES[t.dtype] ?? 1);
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes] };
    relative.set(t.name, [offset, offset + bytes]);
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json = json.padEnd(Math.ceil(json.length / 8) * 8, ' ');
  const headerBytes = new TextEncoder().encode(json);
  const prefix = new Uint8Array(8 + headerBytes.length);
  new DataView(prefix.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  prefix.set(headerBytes, 8);
  const dataStart = prefix.length;
  const ranges = new Map<string, [number, number]>();
  const segments = [{ offset: 0, bytes: prefix }];
  for (const t of tensors) {
    const [b, e] = relative.get(t.name)!;
    ranges.set(t.name, [dataStart + b, dataStart + e]);
    if (t.data) {
      if (t.data.length !== e - b) throw new Error(`fixture ${t.name}: ${t.data.length} bytes, expected ${e - b}`);
      segments.push({ offset: dataStart + b, bytes: t.data });
    }
  }
  return { file: sparseFile(dataStart + offset, segments), ranges, headerLength: headerBytes.length };
}

/** Materializes a whole virtual file (only for small ones). */
export function toBytes(file: VirtualFile): Uint8Array {
  return file.slice(0, file.size);
}

export function f32Bytes(values: Float32Array): Uint8Array {
  return new Uint8Array(values.buffer.slice(values.byteOffset, values.byteOffset + values.byteLength));
}

export function u16Bytes(bits: Uint16Array): Uint8Array {
  return new Uint8Array(bits.buffer.slice(bits.byteOffset, bits.byteOffset + bits.byteLength));
}

/** Seeded ln_f-like values: gains near 1, small biases. */
export function lnfValues(seed: number, d = 768): { gamma: Float32Array; beta: Float32Array } {
  const r = rng(seed);
  const gamma = new Float32Array(d);
  const beta = new Float32Array(d);
  for (let i = 0; i < d; i++) {
    gamma[i] = 0.5 + 1.5 * r();
    beta[i] = 0.2 * (r() - 0.5);
  }
  return { gamma, beta };
}

/** The GPT-2 layout with real ln_f values and zeros elsewhere, 548 MB as served. */
export function gpt2Safetensors(seed: number, prefix = ''): BuiltFile & { gamma: Float32Array; beta: Float32Array } {
  const { gamma, beta } = lnfValues(seed);
  const tensors = gpt2Layout().map((t): SafetensorsTensor => {
    const data = t.name === 'ln_f.weight' ? f32Bytes(gamma) : t.name === 'ln_f.bias' ? f32Bytes(beta) : undefined;
    return { ...t, name: prefix + t.name, dtype: 'F32', data };
  });
  return { ...buildSafetensors(tensors), gamma, beta };
}

// GGUF writing, enough for tests: scalar, string and string-array metadata; F32/F16 tensors.
export type GgufValue =
  | { type: 'u32'; value: number }
  | { type: 'f32'; value: number }
  | { type: 'string'; value: string }
  | { type: 'strings'; value: string[] }
  | { type: 'i32s'; value: number[] };

export interface GgufTensor {
  name: string;
  /** Innermost first, as GGUF stores them. */
  dims: number[];
  type: 0 | 1 | 28 | 30;
  data: Uint8Array;
}

export function buildGguf(
  metadata: Array<[string, GgufValue]>,
  tensors: GgufTensor[],
  { version = 3, alignment = 32 }: { version?: number; alignment?: number } = {},
): Uint8Array {
  const parts: number[] = [];
  const enc = new TextEncoder();
  const u8 = (...b: number[]) => parts.push(...b);
  const u32 = (v: number) => u8(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff);
  const u64 = (v: number) => {
    u32(v % 2 ** 32);
    u32(Math.floor(v / 2 ** 32));
  };
  const str = (s: string) => {
    const b = enc.encode(s);
    u64(b.length);
    for (const x of b) u8(x);
  };
  const f32 = (v: number) => {
    const b = new Uint8Array(new Float32Array([v]).buffer);
    u8(...b);
  };
  u8(0x47, 0x47, 0x55, 0x46);
  u32(version);
  u64(tensors.length);
  u64(metadata.length);
  for (const [key, v] of metadata) {
    str(key);
    if (v.type === 'u32') (u32(4), u32(v.value));
    else if (v.type === 'f32') (u32(6), f32(v.value));
    else if (v.type === 'string') (u32(8), str(v.value));
    else if (v.type === 'strings') {
      u32(9);
      u32(8);
      u64(v.value.length);
      v.value.forEach(str);
    } else {
      u32(9);
      u32(5);
      u64(v.value.length);
      v.value.forEach((x) => u32(x >>> 0));
    }
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    str(t.name);
    u32(t.dims.length);
    t.dims.forEach(u64);
    u32(t.type);
    u64(offset);
    offsets.push(offset);
    offset = Math.ceil((offset + t.data.length) / alignment) * alignment;
  }
  const dataStart = Math.ceil(parts.length / alignment) * alignment;
  const out = new Uint8Array(dataStart + offset);
  out.set(parts, 0);
  tensors.forEach((t, i) => out.set(t.data, dataStart + offsets[i]!));
  return out;
}

/** A GPT-2-style GGUF: llama.cpp names, a vocabulary big enough that the header needs several reads. */
export function gpt2Gguf(seed: number, { alignment = 32, vocab = 4000, version = 3 } = {}) {
  const { gamma, beta } = lnfValues(seed);
  const r = rng(seed + 1);
  const tokens = Array.from({ length: vocab }, (_, i) => `tok${i}_${Math.floor(r() * 1e6)}`);
  const small = (n: number) => f32Bytes(Float32Array.from({ length: n }, () => r()));
  const metadata: Array<[string, GgufValue]> = [
    ['general.architecture', { type: 'string', value: 'gpt2' }],
    ['gpt2.embedding_length', { type: 'u32', value: 768 }],
    ['gpt2.attention.layer_norm_epsilon', { type: 'f32', value: 1e-5 }],
    ['tokenizer.ggml.tokens', { type: 'strings', value: tokens }],
    ['tokenizer.ggml.token_type', { type: 'i32s', value: tokens.map(() => 1) }],
  ];
  if (alignment !== 32) metadata.push(['general.alignment', { type: 'u32', value: alignment }]);
  const tensors: GgufTensor[] = [
    { name: 'token_embd.weight', dims: [768, 256], type: 0, data: small(768 * 256) },
    { name: 'blk.0.attn_norm.weight', dims: [768], type: 0, data: small(768) },
    { name: 'blk.0.attn_norm.bias', dims: [768], type: 0, data: small(768) },
    { name: 'output_norm.weight', dims: [768], type: 0, data: f32Bytes(gamma) },
    { name: 'output_norm.bias', dims: [768], type: 0, data: f32Bytes(beta) },
  ];
  return { bytes: buildGguf(metadata, tensors, { alignment, version }), gamma, beta };
}

/** A .npy with an arbitrary header dict and raw data, for malformed-file tests. */
export function rawNpy(dict: string, data: Uint8Array, version = 1): Uint8Array {
  const pre = version === 1 ? 10 : 12;
  const total = Math.ceil((pre + dict.length + 1) / 64) * 64;
  const header = dict.padEnd(total - pre - 1, ' ') + '\n';
  const out = new Uint8Array(total + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, version, 0]);
  if (version === 1) new DataView(out.buffer).setUint16(8, header.length, true);
  else new DataView(out.buffer).setUint32(8, header.length, true);
  for (let i = 0; i < header.length; i++) out[pre + i] = header.charCodeAt(i);
  out.set(data, total);
  return out;
}
