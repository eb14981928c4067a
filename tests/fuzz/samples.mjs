// Small valid files of each format, the starting points that the I/O targets mutate.
import { concat, le32, le64, utf8 } from './bytes.mjs';

/** A small valid safetensors file holding ln_f.weight and ln_f.bias (F32, d = 4) and one more tensor. */
export function sampleSafetensors() {
  const header = JSON.stringify({
    __metadata__: { format: 'pt' },
    'h.0.attn.bias': { dtype: 'F16', shape: [2, 2], data_offsets: [0, 8] },
    'ln_f.bias': { dtype: 'F32', shape: [4], data_offsets: [8, 24] },
    'ln_f.weight': { dtype: 'F32', shape: [4], data_offsets: [24, 40] },
  });
  const data = new Uint8Array(40);
  new Float32Array(data.buffer, 8, 8).set([0.1, 0.2, 0.3, 0.4, 1, 2, 3, 4]);
  return concat([le64(header.length), utf8(header), data]);
}

function ggufString(s) {
  const b = utf8(s);
  return concat([le64(b.length), b]);
}

/** A small valid GGUF v3 file: output_norm.weight and output_norm.bias (F32, d = 4), alignment 32. */
export function sampleGguf() {
  const kv = concat([ggufString('general.architecture'), le32(8), ggufString('gpt2')]);
  const tensor = (name, offset) => concat([ggufString(name), le32(1), le64(4), le32(0), le64(offset)]);
  const head = concat([
    utf8('GGUF'),
    le32(3),
    le64(2),
    le64(1),
    kv,
    tensor('output_norm.weight', 0),
    tensor('output_norm.bias', 32),
  ]);
  const pad = new Uint8Array((32 - (head.length % 32)) % 32);
  const data = new Uint8Array(64);
  new Float32Array(data.buffer, 0, 4).set([1, 2, 3, 4]);
  new Float32Array(data.buffer, 32, 4).set([0.1, 0.2, 0.3, 0.4]);
  return concat([head, pad, data]);
}

export function sampleNpy(io, shape = [2, 3]) {
  const n = shape.reduce((a, b) => a * b, 1);
  return io.writeNpy(
    new Float32Array(n).map((_, i) => i + 1),
    shape,
  );
}
