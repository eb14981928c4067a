// The one prelude of the README examples: the identifiers a block uses without defining them,
// with real values. It runs before every block, in each place a block runs (a Node process, a
// page, a module Worker), and defines them as globals, so that a block that declares one itself
// (`const rt = await init()`) simply shadows it.
//
//   rt          await init(): the package's runtime, default backend
//   d           768 (GPT-2 small's width)
//   rows        128: x as [2, 64, 768] has 128 rows of d
//   shape       [2, 64, 768]
//   x           GPT-2-like final residual stream, Float32Array(rows · d): N(0, 1) with the massive
//               channels 447 (+100…3000), 138 and 378 (−100…−1000) (the test kit's gpt2Like, tests/kit/random.mjs)
//   x2          another draw of the same, for a second call
//   r           the residual stream added before the norm, another GPT-2-like draw
//   gamma, beta GPT-2-like ln_f: the γ and β of the checkpoint the tests serve as
//               GPT2_SAFETENSORS_URL (tests/io/fixtures.ts lnfValues, seed 7)
//   bias        Float32Array(d), the residual's bias: N(0, 0.02²)
//   y           rt.layerNorm(x, d, { gamma, beta }): an output of the right length
//   h           Float32Array(rows · d), where a fused residual call leaves x + r + bias
//   xBits       x as bfloat16 bit patterns (float32ToHalfBits), a Uint16Array
//   bytes       x as a .npy file of shape [2, 64, 768] (writeNpy), a Uint8Array
//   controller  a new AbortController
//   bar         something with a `value` to show progress: a <progress> on a page, else { value: 0 }
//
// The seeded arrays (x, x2, r, gamma, beta, bias) are made in Node by the test kit
// (tests/readme/prelude-arrays.ts) and handed over as bytes; everything else is made here, in the
// place the block runs, by the package as it is imported there.
import { float32ToHalfBits, init } from 'layernorm-wasm';
import { writeNpy } from 'layernorm-wasm/io';

export const PRELUDE_ARRAYS = ['x', 'x2', 'r', 'gamma', 'beta', 'bias'];

/** The seeded arrays from their bytes: a JSON header line `{ name: [offset, length] }`, then float32 data. */
export function decodeArrays(buffer) {
  const bytes = new Uint8Array(buffer);
  const newline = bytes.indexOf(10);
  const index = JSON.parse(new TextDecoder().decode(bytes.subarray(0, newline)));
  const arrays = {};
  for (const [name, [offset, length]] of Object.entries(index)) {
    arrays[name] = new Float32Array(bytes.slice(newline + 1 + offset, newline + 1 + offset + 4 * length).buffer);
  }
  return arrays;
}

/** Defines every identifier above as a global, from the seeded arrays' bytes. */
export async function installPrelude(buffer) {
  const arrays = decodeArrays(buffer);
  for (const name of PRELUDE_ARRAYS) {
    if (!(arrays[name] instanceof Float32Array)) throw new Error(`the prelude's arrays lack ${name}`);
  }
  const { x, gamma, beta } = arrays;
  const rt = await init();
  const d = 768;
  const shape = [2, 64, 768];
  const rows = x.length / d;
  let bar = { value: 0 };
  if (typeof document !== 'undefined') {
    bar = document.createElement('progress');
    document.body.append(bar);
  }
  Object.assign(globalThis, arrays, {
    rt,
    d,
    rows,
    shape,
    y: rt.layerNorm(x, d, { gamma, beta }),
    h: new Float32Array(x.length),
    xBits: float32ToHalfBits(x, 'bfloat16'),
    bytes: writeNpy(x, shape),
    controller: new AbortController(),
    bar,
  });
}
