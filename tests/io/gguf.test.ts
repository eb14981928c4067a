import { describe, expect, it } from 'vitest';
import { FormatError, loadLayerNormWeights, openByteSource } from '../../web/src/io/index.js';
import { readGgufIndex } from '../../web/src/io/gguf.js';
import { buildGguf, f32Bytes, gpt2Gguf, lnfValues, u16Bytes } from '../kit/checkpoints/index.mjs';

const SEED = 4242;

async function formatError(promise: Promise<unknown>): Promise<FormatError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(FormatError);
    return error as FormatError;
  }
  throw new Error('expected a FormatError');
}

describe('GGUF', () => {
  it('loads output_norm from a GPT-2-style GGUF, reading the header in growing chunks', async () => {
    const { bytes, gamma, beta } = gpt2Gguf(SEED, { vocab: 6000 });
    const index = await readGgufIndex(openByteSource(bytes));
    expect(index.headerBytes).toBeGreaterThan(100_000);
    const r = await loadLayerNormWeights(bytes);
    expect(r.format).toBe('gguf');
    expect(r.names).toEqual({ weight: 'output_norm.weight', bias: 'output_norm.bias' });
    expect(r.gamma).toEqual(gamma);
    expect(r.beta).toEqual(beta);
    expect(r.d).toBe(768);
    // The header (read in doubling chunks) and the two tensors, not the 600 KB embedding.
    expect(r.bytesRead).toBeLessThan(2 * index.headerBytes + 2 * 768 * 4);
    expect(r.bytesRead).toBeLessThan(bytes.length / 2);
  });

  it('reverses dims to outermost-first and honours general.alignment and version 2', async () => {
    for (const [alignment, version] of [
      [32, 3],
      [64, 3],
      [256, 2],
    ] as const) {
      const { bytes, gamma } = gpt2Gguf(SEED, { alignment, version, vocab: 50 });
      const index = await readGgufIndex(openByteSource(bytes));
      expect(index.tensors.get('token_embd.weight')!.shape).toEqual([256, 768]);
      const info = index.tensors.get('output_norm.weight')!;
      expect((info.offset - index.tensors.get('token_embd.weight')!.offset) % alignment).toBe(0);
      expect((await loadLayerNormWeights(bytes)).gamma).toEqual(gamma);
    }
  });

  it('converts F16 tensors', async () => {
    const bytes = buildGguf(
      [['general.architecture', { type: 'string', value: 'gpt2' }]],
      [
        {
          name: 'output_norm.weight',
          dims: [4],
          type: 1,
          data: u16Bytes(Uint16Array.of(0x3c00, 0x0001, 0x8000, 0x7bff)),
        },
        { name: 'output_norm.bias', dims: [4], type: 0, data: f32Bytes(Float32Array.of(1, 2, 3, 4)) },
      ],
    );
    const r = await loadLayerNormWeights(bytes);
    expect(r.dtypes).toEqual({ weight: 'F16', bias: 'F32' });
    expect(Array.from(r.gamma)).toEqual([1, 2 ** -24, -0, 65504]);
  });

  it('rejects malformed GGUF files', async () => {
    const { gamma } = lnfValues(SEED, 4);
    const good = buildGguf([], [{ name: 'output_norm.weight', dims: [4], type: 0, data: f32Bytes(gamma) }]);
    const v1 = good.slice();
    v1[4] = 1;
    expect((await formatError(loadLayerNormWeights(v1))).message).toContain('expected GGUF version 2 or 3, got 1');
    const cut = good.slice(0, 40);
    expect((await formatError(loadLayerNormWeights(cut))).message).toMatch(/expected .* but the file ends at byte 40/);
    const matrix = buildGguf([], [{ name: 'output_norm.weight', dims: [2, 2], type: 0, data: f32Bytes(gamma) }]);
    expect((await formatError(loadLayerNormWeights(matrix))).message).toContain(
      'has shape [2, 2]; expected a vector [d]',
    );
    const quant = buildGguf([], [{ name: 'output_norm.weight', dims: [32], type: 2 as 0, data: new Uint8Array(18) }]);
    expect((await formatError(loadLayerNormWeights(quant))).message).toContain(
      'has dtype Q4_0; expected F32, F16 or BF16',
    );
    // Tensor data is padded to the alignment at the end too: cut into the data itself.
    const short = good.slice(0, good.length - 20);
    expect((await formatError(loadLayerNormWeights(short))).message).toContain('runs past the end of the');
    const badAlign = buildGguf([['general.alignment', { type: 'u32', value: 24 }]], []);
    expect((await formatError(loadLayerNormWeights(badAlign))).message).toContain(
      'general.alignment to be a power of two, got 24',
    );
    const mismatch = buildGguf(
      [],
      [
        { name: 'output_norm.weight', dims: [4], type: 0, data: f32Bytes(gamma) },
        { name: 'output_norm.bias', dims: [3], type: 0, data: f32Bytes(gamma.subarray(0, 3)) },
      ],
    );
    const e = await formatError(loadLayerNormWeights(mismatch));
    expect(e.message).toContain('gain "output_norm.weight" has 4 values but bias "output_norm.bias" has 3');
    expect(e.format).toBe('gguf');
  });
});
