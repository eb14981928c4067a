/**
 * What the README examples read, built by the test kit in Node: the prelude's seeded arrays (see
 * tests/readme/prelude.mjs for every identifier), and the files the Hugging Face Hub would serve
 * for the URLs the examples name, which a local server on 127.0.0.1 answers instead.
 */
import type { VirtualFile } from '../helpers/fixture-server.js';
import { gaussian, gpt2Like, rng } from '../kit/random.mjs';
import { gpt2Safetensors } from '../io/fixtures.js';

/** The seed of the GPT-2-like ln_f, the same as the browser suite's checkpoint (tests/browser/fixtures.ts). */
const LN_F_SEED = 7;
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

/**
 * Hub paths (without the origin) and their files: GPT-2's 548 MB checkpoint layout with a
 * GPT-2-like ln_f (zeros elsewhere, never held in memory) and its config.json.
 */
export function hubFiles(): Record<string, VirtualFile | Uint8Array> {
  const config = { model_type: 'gpt2', architectures: ['GPT2LMHeadModel'], layer_norm_epsilon: 1e-5, n_embd: D };
  return {
    [`${GPT2}/model.safetensors`]: gpt2Safetensors(LN_F_SEED).file,
    [`${GPT2}/config.json`]: new TextEncoder().encode(JSON.stringify(config)),
  };
}
