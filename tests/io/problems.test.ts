// Every FormatError problem the readers state that no other suite pins down, produced by an input
// and compared with the message the catalogue quotes for it: the rows P1… of web/docs/errors.md
// ("Files and text: every other problem") are the expected values, so the catalogue cannot quote
// a message the code does not throw, and every row there has an input here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  FormatError,
  loadLayerNormWeights,
  loadNormWeights,
  parseActivationsJson,
  parseActivationsText,
  readNpy,
  readNpyHeader,
  writeNpy,
} from '../../web/src/io/index.js';
import { buildGguf, buildSafetensors, f32Bytes, rawNpy, toBytes } from './fixtures.js';

const CATALOGUE = new URL('../../web/docs/errors.md', import.meta.url);

/** The P rows of the catalogue: id → the message it quotes (one code span in the message column). */
function catalogueRows(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of readFileSync(CATALOGUE, 'utf8').split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
    if (!/^P\d+$/.test(cells[1] ?? '')) continue;
    const message = /^`([^`]+)`$/.exec(cells[4] ?? '');
    if (!message) throw new Error(`catalogue row ${cells[1]}: the message column must be one code span: ${line}`);
    rows.set(cells[1]!, message[1]!.replace(/\\\|/g, '|'));
  }
  return rows;
}

// ---------------------------------------------------------------- inputs

const utf8 = (s: string) => new TextEncoder().encode(s);
const u32 = (v: number) => new Uint8Array(new Uint32Array([v]).buffer);
const u64 = (v: number | bigint) => new Uint8Array(new BigUint64Array([BigInt(v)]).buffer);
function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
const MAGIC = Uint8Array.of(0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59);
/** A version 1.0 .npy whose header is exactly `header` (no padding), followed by `data`. */
const npyExact = (header: string, data = new Uint8Array(0)) =>
  concat(MAGIC, Uint8Array.of(1, 0), new Uint8Array(new Uint16Array([header.length]).buffer), utf8(header), data);
const dict = (fields: string) => rawNpy(`{${fields}}`, new Uint8Array(4));
const C_ORDER = "'fortran_order': False, 'shape': (1,)";

const safetensorsHeader = (header: string, data = new Uint8Array(0)) =>
  concat(u64(utf8(header).length), utf8(header), data);
const ggufString = (s: string) => concat(u64(utf8(s).length), utf8(s));
/** A GGUF v3 preamble: magic, version, tensor count, metadata count. */
const ggufHead = (tensors: number, entries: number) => concat(utf8('GGUF'), u32(3), u64(tensors), u64(entries));
/** A GGUF with one tensor entry and no metadata, its data section `data` bytes long. */
const ggufTensor = (name: string, dims: number[], type: number, offset: number, data: number) => {
  const head = concat(
    ggufHead(1, 0),
    ggufString(name),
    u32(dims.length),
    ...dims.map((n) => u64(n)),
    u32(type),
    u64(offset),
  );
  return concat(head, new Uint8Array((32 - (head.length % 32)) % 32), new Uint8Array(data));
};

const vector = (n: number) => writeNpy(new Float32Array(n).fill(1), [n]);
const twoNorms = toBytes(
  buildSafetensors([
    { name: 'a.norm.weight', dtype: 'F32', shape: [2], data: f32Bytes(Float32Array.of(1, 2)) },
    { name: 'b.norm.weight', dtype: 'F32', shape: [2], data: f32Bytes(Float32Array.of(3, 4)) },
  ]).file,
);
const lnf = toBytes(
  buildSafetensors([
    { name: 'ln_f.bias', dtype: 'F32', shape: [2], data: f32Bytes(Float32Array.of(0, 0)) },
    { name: 'ln_f.weight', dtype: 'F32', shape: [2], data: f32Bytes(Float32Array.of(1, 1)) },
  ]).file,
);

/** Each catalogue row's input: a call that must fail with exactly the row's FormatError. */
const INPUTS: Record<string, () => unknown> = {
  // .npy
  P1: () => readNpy(concat(MAGIC, Uint8Array.of(1, 0)), 'x.npy'),
  P2: () => readNpy(concat(MAGIC, Uint8Array.of(2, 0, 16, 0)), 'x.npy'),
  P3: () => readNpy(concat(MAGIC, Uint8Array.of(2, 0), u32(2_000_000)), 'x.npy'),
  P4: () => readNpy(concat(MAGIC, Uint8Array.of(4, 0, 0, 0)), 'x.npy'),
  P5: () => readNpy(npyExact("{'descr"), 'x.npy'),
  P6: () => readNpy(npyExact('{@}'), 'x.npy'),
  P7: () => readNpy(npyExact("{'descr': abc}"), 'x.npy'),
  P8: () => readNpy(npyExact('{} xyz'), 'x.npy'),
  P9: () => readNpy(npyExact("{'descr' '<f4'}"), 'x.npy'),
  P10: () => readNpy(npyExact("{'a': 1 'b': 2}"), 'x.npy'),
  P11: () => readNpy(concat(MAGIC, Uint8Array.of(1, 0, 100, 0), utf8('{')), 'x.npy'),
  P12: () => readNpy(npyExact('[1, 2]'), 'x.npy'),
  P13: () => readNpy(dict(`'descr': [('a', '<f4')], ${C_ORDER}`), 'x.npy'),
  P14: () => readNpy(dict(`'descr': '>f4', ${C_ORDER}`), 'x.npy'),
  P15: () => readNpy(dict(`'descr': '|O', ${C_ORDER}`), 'x.npy'),
  P16: () => readNpy(dict("'descr': '<f4', 'fortran_order': True, 'shape': (1,)"), 'x.npy'),
  P17: () => readNpy(dict("'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)"), 'x.npy'),
  P18: () => readNpyHeader(new Uint8Array(9)),
  P19: () => readNpyHeader(vector(4).subarray(0, 20)),
  P20: () => loadLayerNormWeights({ gamma: vector(4), beta: vector(3) }),
  // every checkpoint format
  P21: () => loadLayerNormWeights(lnf, { bias: 'nope' }),
  P22: () => loadLayerNormWeights(twoNorms),
  P23: () =>
    loadLayerNormWeights(
      buildGguf([], [{ name: 'output_norm.weight', dims: [2], type: 28, data: new Uint8Array(16) }]),
    ),
  // safetensors
  P24: () => loadLayerNormWeights(concat(u64(0), new Uint8Array(8))),
  P25: () => loadLayerNormWeights(safetensorsHeader('[1, 2]')),
  P26: () => loadLayerNormWeights(safetensorsHeader('{"ln_f.weight": 5}')),
  P27: () =>
    loadLayerNormWeights(safetensorsHeader('{"ln_f.weight": {"dtype": 5, "shape": [2], "data_offsets": [0, 8]}}')),
  P28: () =>
    loadLayerNormWeights(safetensorsHeader('{"ln_f.weight": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}}')),
  P29: () =>
    loadLayerNormWeights(
      safetensorsHeader('{"ln_f.weight": {"dtype": "F32", "shape": [4], "data_offsets": [0, 8]}}', new Uint8Array(8)),
    ),
  // GGUF
  P30: () => loadLayerNormWeights(concat(ggufHead(0, 1), ggufString('a'), u32(8), u64(104_857_590))),
  P31: () => loadLayerNormWeights(concat(ggufHead(0, 1), u64(2n ** 64n - 1n))),
  P32: () => loadLayerNormWeights(concat(ggufHead(0, 1), u64(200_000_000))),
  P33: () => loadLayerNormWeights(concat(utf8('GGUX'), u32(3), u64(0), u64(0)), { format: 'gguf' }),
  P34: () => loadLayerNormWeights(concat(utf8('GGUF'), Uint8Array.of(0, 0, 0, 3), u64(0), u64(0))),
  P35: () => loadLayerNormWeights(ggufHead(2 ** 26 + 1, 0)),
  P36: () => loadLayerNormWeights(concat(ggufHead(0, 1), ggufString('a'), u32(9), u32(4), u64(2 ** 26 + 1))),
  P37: () => loadLayerNormWeights(concat(ggufHead(0, 1), ggufString('a'), u32(9), u32(9), u64(1))),
  P38: () => loadLayerNormWeights(concat(ggufHead(0, 1), ggufString('a'), u32(99))),
  P39: () => loadLayerNormWeights(ggufTensor('output_norm.weight', [1, 1, 1, 1, 1, 1, 1, 1, 1], 0, 0, 4)),
  P40: () => loadLayerNormWeights(ggufTensor('output_norm.weight', [2], 0, 4, 16)),
  P41: () => loadLayerNormWeights(ggufTensor('output_norm.weight', [1000], 0, 0, 16)),
  // JSON
  P42: () => parseActivationsJson('[1]]', 'x.json'),
  P43: () => parseActivationsJson('{1: 2}', 'x.json'),
  P44: () => parseActivationsJson('{"a" 1}', 'x.json'),
  P45: () => parseActivationsJson('["abc', 'x.json'),
  P46: () => parseActivationsJson('["\\x"]', 'x.json'),
  P47: () => parseActivationsJson('"a"', 'x.json'),
  P48: () => parseActivationsJson('[[1], ["x"]]', 'x.json'),
  P49: () => parseActivationsJson('{"shape": 5, "data": []}', 'x.json'),
  P50: () => parseActivationsJson('{"shape": [2, 2], "data": [1, 2, 3]}', 'x.json'),
  // plain text
  P51: () => parseActivationsText(',1', 'x.txt'),
  // config.json
  P52: () => loadNormWeights(lnf, { config: new File([new Uint8Array(4 * 1024 * 1024 + 1)], 'config.json') }),
  // OLMo 1's final norm has no parameters, so nothing in this file gives the model's width.
  P53: () => loadNormWeights(lnf, { config: { model_type: 'olmo' } }),
};

/** The FormatError a call throws or rejects with. */
async function formatError(call: () => unknown): Promise<FormatError> {
  let error: unknown;
  try {
    await call();
  } catch (e) {
    error = e;
  }
  if (!(error instanceof FormatError)) throw new Error(`expected a FormatError, got ${String(error)}`);
  return error;
}

describe('every other FormatError problem, as the catalogue quotes it', () => {
  const rows = catalogueRows();

  it('each catalogue row P… has an input here, and each input a row', () => {
    expect([...rows.keys()].sort()).toEqual(Object.keys(INPUTS).sort());
  });

  it.each(Object.keys(INPUTS))('%s', async (id) => {
    const error = await formatError(INPUTS[id]!);
    // Printed on failure: the message to quote in the catalogue.
    expect(error.message, `catalogue row ${id}`).toBe(rows.get(id));
  });
});
