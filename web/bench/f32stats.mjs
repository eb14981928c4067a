// The float32-statistics limit: cpp/bench/f32_stats_layernorm.cc (built by f32stats-build.mjs), the
// same LayerNorm with one-pass float32 sums, and the `limit:f32stats` candidate that runs it on one
// shape with input and output resident in its own memory (as zero-copy forwardTensor has them).
// The runners load the .wasm bytes (a file in Node, a served path in Chromium).

import { BIAS } from './forms.mjs';

/** The module's kernel and memory; shapes are laid out from `base`, past its stack and data. */
export async function createF32Stats(bytes) {
  const { instance } = await WebAssembly.instantiate(bytes);
  const { memory, layernorm_f32_stats: run } = instance.exports;
  return { memory, run, base: memory.buffer.byteLength };
}

/** The `limit:f32stats` candidate (gain+bias) for data = { x, gamma, beta } of rows × d. */
export function f32StatsCandidate(mod, rows, d, { x, gamma, beta }, eps) {
  const n = rows * d;
  const at = (p, floats) => [p, p + Math.ceil((floats * 4) / 64) * 64]; // 64-byte aligned arrays
  const [g, pb] = at(mod.base, d);
  const [b, px] = at(pb, d);
  const [xp, py] = at(px, n);
  const [yp, end] = at(py, n);
  const have = mod.memory.buffer.byteLength;
  if (end > have) mod.memory.grow(Math.ceil((end - have) / 65536));
  const f32 = (p, len) => new Float32Array(mod.memory.buffer, p, len); // refetched: growth detaches
  f32(g, d).set(gamma);
  f32(b, d).set(beta);
  f32(xp, n).set(x);
  return {
    id: 'limit:f32stats',
    name: 'limit: float32-statistics SIMD kernel (one pass)',
    variant: BIAS,
    run: () => mod.run(xp, yp, g, b, rows, d, eps),
    // Checked against the package's correctly rounded reference with the usual tolerance, which it meets only because
    // the benchmark's rows have small offsets (see the C++ file); the error is shown in the table.
    result: () => f32(yp, n),
  };
}
