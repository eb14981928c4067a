import { describe, expect, it } from 'vitest';
import { FormatError, loadLayerNormWeights } from '../../web/src/io/index.js';
import {
  buildSafetensors,
  f32Bytes,
  lnfValues,
  rawSafetensors,
  toBytes,
  u16Bytes,
  type SafetensorsTensor,
} from '../kit/checkpoints/index.mjs';
import { rejection } from '../helpers/errors.js';

const SEED = 7001;
const D = 16;

function vec(name: string, values: Float32Array): SafetensorsTensor {
  return { name, dtype: 'F32', shape: [values.length], data: f32Bytes(values) };
}

async function expectFormatError(promise: Promise<unknown>, ...fragments: string[]): Promise<void> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(FormatError);
  for (const f of fragments) expect(error.message).toContain(f);
}

describe('loadLayerNormWeights: safetensors in memory', () => {
  const { gamma, beta } = lnfValues(SEED, D);

  it('finds ln_f, transformer.ln_f and a lone *norm* pair', async () => {
    for (const [w, b] of [
      ['ln_f.weight', 'ln_f.bias'],
      ['transformer.ln_f.weight', 'transformer.ln_f.bias'],
      ['model.final_layernorm.weight', 'model.final_layernorm.bias'],
    ] as const) {
      const file = toBytes(
        buildSafetensors([vec(b, beta), { name: 'wte.weight', dtype: 'F32', shape: [4, D] }, vec(w, gamma)]).file,
      );
      const r = await loadLayerNormWeights(file);
      expect(r.names).toEqual({ weight: w, bias: b });
      expect(r.gamma).toEqual(gamma);
      expect(r.beta).toEqual(beta);
      expect([r.d, r.dtype, r.format]).toEqual([D, 'F32', 'safetensors']);
      expect(r.source).toBe(`Uint8Array (${file.length} bytes)`);
    }
  });

  it('prefers GPT-2 names over other norms, and takes explicit names first', async () => {
    const other = lnfValues(SEED + 1, D);
    const file = toBytes(
      buildSafetensors([
        vec('h.0.ln_1.bias', other.beta),
        vec('h.0.ln_1.weight', other.gamma),
        vec('ln_f.bias', beta),
        vec('ln_f.weight', gamma),
      ]).file,
    );
    expect((await loadLayerNormWeights(file)).gamma).toEqual(gamma);
    const explicit = await loadLayerNormWeights(file, { weight: 'h.0.ln_1.weight', bias: 'h.0.ln_1.bias' });
    expect([explicit.gamma, explicit.beta]).toEqual([other.gamma, other.beta]);
    const derived = await loadLayerNormWeights(file, { weight: 'h.0.ln_1.weight' });
    expect(derived.names).toEqual({ weight: 'h.0.ln_1.weight', bias: 'h.0.ln_1.bias' });
  });

  it('bias: null loads the gain only', async () => {
    const file = toBytes(buildSafetensors([vec('ln_f.bias', beta), vec('ln_f.weight', gamma)]).file);
    const r = await loadLayerNormWeights(file, { bias: null });
    expect(r.beta).toBeNull();
    expect(r.names).toEqual({ weight: 'ln_f.weight', bias: null });
    expect(r.dtypes).toEqual({ weight: 'F32', bias: null });
  });

  it('lists candidates when it cannot decide', async () => {
    const file = toBytes(
      buildSafetensors([vec('a.norm.weight', gamma), vec('b.norm.weight', gamma), vec('c.proj.weight', gamma)]).file,
    );
    await expectFormatError(
      loadLayerNormWeights(file),
      'cannot tell which LayerNorm to load; candidates: "a.norm.weight", "b.norm.weight"; pass { weight, bias }',
    );
    await expectFormatError(
      loadLayerNormWeights(file, { weight: 'nope' }),
      'no tensor named "nope" (weight); candidates: "a.norm.weight", "b.norm.weight"',
    );
    await expectFormatError(
      loadLayerNormWeights(file, { weight: 'a.norm.weight', bias: 'x' }),
      'no tensor named "x" (bias)',
    );
    const none = toBytes(buildSafetensors([vec('c.proj.weight', gamma)]).file);
    await expectFormatError(loadLayerNormWeights(none), 'no LayerNorm tensors found', 'tensors: "c.proj.weight"');
  });

  it('converts F16 and BF16 exactly, including subnormals, ±0, Inf and NaN', async () => {
    const f16 = Uint16Array.of(0x3c00, 0x8000, 0x0001, 0x03ff, 0x7bff, 0x7c00, 0xfc00, 0x7e00);
    const bf16 = Uint16Array.of(0x3f80, 0x8000, 0x0001, 0x007f, 0x7f7f, 0x7f80, 0xff80, 0x7fc0);
    const file = toBytes(
      buildSafetensors([
        { name: 'ln_f.bias', dtype: 'BF16', shape: [8], data: u16Bytes(bf16) },
        { name: 'ln_f.weight', dtype: 'F16', shape: [8], data: u16Bytes(f16) },
      ]).file,
    );
    const r = await loadLayerNormWeights(file);
    expect(r.dtypes).toEqual({ weight: 'F16', bias: 'BF16' });
    expect(Array.from(r.gamma)).toEqual([1, -0, 2 ** -24, 1023 * 2 ** -24, 65504, Infinity, -Infinity, NaN]);
    expect(Object.is(r.gamma[1], -0)).toBe(true);
    expect(Array.from(r.beta!)).toEqual([
      1,
      -0,
      2 ** -133,
      127 * 2 ** -133,
      (2 - 2 ** -7) * 2 ** 127,
      Infinity,
      -Infinity,
      NaN,
    ]);
    expect(Object.is(r.beta![1], -0)).toBe(true);
  });

  it('rejects malformed files with a clear FormatError', async () => {
    const ok = `{"ln_f.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`;
    const data8 = new Uint8Array(8);
    await expectFormatError(
      loadLayerNormWeights(rawSafetensors(ok, data8, 1000n)),
      'header length 1000 bytes is larger than the',
      'after the length field',
    );
    await expectFormatError(
      loadLayerNormWeights(rawSafetensors(ok, data8, 2n ** 40n)),
      'header length 1099511627776 bytes exceeds the 104857600-byte limit',
    );
    await expectFormatError(
      loadLayerNormWeights(rawSafetensors('{"ln_f.weight": [1, 2', data8)),
      'expected a JSON header, got "{\\"ln_f.weight\\": [1, 2"',
    );
    await expectFormatError(
      loadLayerNormWeights(rawSafetensors('[1,2,3]', data8)),
      'expected the header to be a JSON object, got an array',
    );
    await expectFormatError(
      loadLayerNormWeights(rawSafetensors(`{"ln_f.weight":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}`, data8)),
      'tensor "ln_f.weight" data_offsets [0, 16] run past the end of the data section (8 bytes)',
    );
    await expectFormatError(
      loadLayerNormWeights(
        rawSafetensors(
          `{"ln_f.weight":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"ln_f.bias":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`,
          new Uint8Array(12),
        ),
      ),
      'tensors "ln_f.weight" [0, 8] and "ln_f.bias" [4, 12] overlap',
    );
    await expectFormatError(
      loadLayerNormWeights(rawSafetensors(`{"ln_f.weight":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, data8)),
      'tensor "ln_f.weight" is F32 [3] = 12 bytes but data_offsets [0, 8] span 8',
    );
    await expectFormatError(
      loadLayerNormWeights(rawSafetensors(`{"ln_f.weight":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}}`, data8)),
      'data_offsets [begin, end] with begin ≤ end, got [8, 0]',
    );
    await expectFormatError(
      loadLayerNormWeights(rawSafetensors(`{"ln_f.weight":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]}}`, data8)),
      'tensor "ln_f.weight" has shape [1, 2]; expected a vector [d]',
    );
    await expectFormatError(
      loadLayerNormWeights(rawSafetensors(`{"ln_f.weight":{"dtype":"Q9","shape":[2],"data_offsets":[0,8]}}`, data8)),
      'tensor "ln_f.weight" has dtype Q9; expected F32, F16 or BF16',
    );
    await expectFormatError(
      loadLayerNormWeights(rawSafetensors(`{"ln_f.weight":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}}`, data8)),
      'has dtype I64; expected F32, F16 or BF16',
    );
    await expectFormatError(loadLayerNormWeights(new Uint8Array(5)), 'expected a weights file, got 5 bytes');
    const mismatched = toBytes(buildSafetensors([vec('ln_f.bias', beta.subarray(1)), vec('ln_f.weight', gamma)]).file);
    await expectFormatError(
      loadLayerNormWeights(mismatched),
      `gain "ln_f.weight" has ${D} values but bias "ln_f.bias" has ${D - 1}; expected equal lengths`,
    );
  });

  it('takes dtype names from the file as data, not as property names', async () => {
    for (const dtype of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      await expectFormatError(
        loadLayerNormWeights(
          rawSafetensors(`{"ln_f.weight":{"dtype":"${dtype}","shape":[2],"data_offsets":[0,8]}}`, new Uint8Array(8)),
        ),
        `tensor "ln_f.weight" has dtype ${dtype}; expected F32, F16 or BF16`,
      );
    }
  });

  it('describes deeply nested header values without overflowing the stack', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    await expectFormatError(
      loadLayerNormWeights(
        rawSafetensors(`{"ln_f.weight":{"dtype":"F32","shape":${deep},"data_offsets":[0,8]}}`, new Uint8Array(8)),
      ),
      'expected tensor "ln_f.weight" to have a shape of non-negative integers, got [[[…]]]',
    );
    await expectFormatError(
      loadLayerNormWeights(
        rawSafetensors(`{"ln_f.weight":{"dtype":"F32","shape":[2],"data_offsets":${deep}}}`, new Uint8Array(8)),
      ),
      'expected tensor "ln_f.weight" to have data_offsets [begin, end] with begin ≤ end, got [[[…]]]',
    );
    await expectFormatError(
      loadLayerNormWeights(
        rawSafetensors(`{"ln_f.weight":{"dtype":${deep},"shape":[2],"data_offsets":[0,8]}}`, new Uint8Array(8)),
      ),
      'expected tensor "ln_f.weight" to have a string dtype, got [[[…]]]',
    );
  });

  it('names the source in every message', async () => {
    const error = await rejection(loadLayerNormWeights(new Blob([rawSafetensors('nope', new Uint8Array(0))])));
    expect(error.message).toMatch(/^Blob \(12 bytes\): invalid safetensors: expected a JSON header/);
  });
});
