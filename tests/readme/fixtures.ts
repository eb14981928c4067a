/**
 * What the README examples read, built by the test kit in Node: the prelude's seeded arrays (see
 * tests/readme/prelude.mjs for every identifier), and the files the Hugging Face Hub would serve
 * for the URLs the examples name, which a local server on 127.0.0.1 answers instead.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LN_F_SEED, configJson, gpt2Config, gpt2Safetensors, type VirtualFile } from '../kit/checkpoints/index.mjs';
import { gaussian, gpt2Like, rng } from '../kit/random.mjs';

const D = 768;
const ROWS = 128;

/** The seeded arrays of the prelude. */
export function preludeArrays(): Record<string, Float32Array> {
  const checkpoint = gpt2Safetensors(LN_F_SEED);
  return {
    x: gpt2Like(rng(18_001), ROWS, D),
    x2: gpt2Like(rng(18_002), ROWS, D),
    r: gpt2Like(rng(18_003), ROWS, D),
    gamma: checkpoint.gamma,
    beta: checkpoint.beta,
    bias: gaussian(rng(18_004), D, 0, 0.02),
  };
}

/** The arrays as prelude.mjs's decodeArrays reads them: a JSON index line, then the float32 data. */
export function encodeArrays(arrays: Record<string, Float32Array>): Uint8Array {
  const index: Record<string, [number, number]> = {};
  let offset = 0;
  for (const [name, a] of Object.entries(arrays)) {
    index[name] = [offset, a.length];
    offset += a.byteLength;
  }
  const head = new TextEncoder().encode(`${JSON.stringify(index)}\n`);
  const out = new Uint8Array(head.length + offset);
  out.set(head);
  for (const [name, a] of Object.entries(arrays)) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), head.length + index[name]![0]);
  }
  return out;
}

/** GPT-2 small on the Hub, as GPT2_SAFETENSORS_URL names it. */
export const HUB_ORIGIN = 'https://huggingface.co';
const GPT2 = 'openai-community/gpt2/resolve/main';

/** GPT-2 as transformers.js runs it (onnx-community/gpt2-ONNX), as the README names it. */
const GPT2_ONNX = 'onnx-community/gpt2-ONNX/resolve/main/onnx';

/**
 * Hub paths (without the origin) and their files: GPT-2's 548 MB checkpoint layout with a
 * GPT-2-like ln_f (zeros elsewhere, never held in memory) and its config.json; and for its
 * 8-bit ONNX export, the tiny GPT-2 of tests/data/onnx/ in that export's graph form.
 */
export function hubFiles(): Record<string, VirtualFile | Uint8Array> {
  return {
    [`${GPT2}/model.safetensors`]: gpt2Safetensors(LN_F_SEED).file,
    [`${GPT2}/config.json`]: configJson(gpt2Config()),
    [`${GPT2_ONNX}/model_quantized.onnx`]: new Uint8Array(
      readFileSync(join(import.meta.dirname, '..', 'data', 'onnx', 'gpt2-q8-opset14.onnx')),
    ),
  };
}
