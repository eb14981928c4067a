#!/usr/bin/env node
// A corpus of calls run through a build, each output as a SHA-256 of its bytes (or the error it
// threw, by type and message): run it on two builds and compare the lists to show a change keeps
// every output bit-identical and every error unchanged. Covers each norm of the build's table in
// each of its forms, the three dtypes, the fused residual, one row's stages, the statistics, a
// resident norm, tensors, ONNX LayerNormalization, and refused calls, on both backends.
// Usage: node web/scripts/corpus.mjs [DIST]   (default: this checkout's dist/) > hashes.txt
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = resolve(process.argv[2] ?? 'dist');
const pkg = await import(pathToFileURL(`${dist}/index.js`).href);

let seed = 12345;
const uniform = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
const floats = (n, scale = 1, offset = 0) => Float32Array.from({ length: n }, () => offset + uniform() * scale);

const hash = (value) => {
  const h = createHash('sha256');
  const add = (v) => {
    if (ArrayBuffer.isView(v)) h.update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    else if (v && typeof v === 'object') for (const k of Object.keys(v).sort()) (h.update(k), add(v[k]));
    else h.update(String(v));
  };
  add(value);
  return h.digest('hex').slice(0, 16);
};

const lines = [];
const record = (name, run) => {
  let out;
  try {
    out = hash(run());
  } catch (e) {
    out = `${e?.constructor?.name}: ${e?.message}`;
  }
  lines.push(`${name}\t${out}`);
};

const WIDTHS = [1, 3, 8, 17, 64, 768, 1031, 4099];
const ROWS = [1, 3, 9];
for (const backend of ['simd', 'scalar']) {
  const rt = await pkg.init({ backend });
  for (const kind of pkg.NORM_KINDS) {
    const { api, bias } = pkg.NORMS[kind];
    for (const d of WIDTHS) {
      for (const rows of ROWS) {
        const x = floats(rows * d, 3, d % 2 ? 0.5 : 1e3);
        const gamma = floats(d, 1, 1);
        const beta = floats(d, 0.5);
        const options = [
          { eps: 1e-5 },
          { gamma, eps: 1e-5 },
          ...(bias
            ? [
                { gamma, beta, eps: 1e-5 },
                { gamma, beta, eps: 0 },
              ]
            : [{ gamma, eps: 0 }]),
        ];
        options.forEach((o, i) => {
          const at = `${backend} ${kind} d=${d} rows=${rows} options=${i}`;
          record(`${at} call`, () => rt[api.call](x, d, o));
          record(`${at} float16`, () =>
            rt[api.call](pkg.float32ToHalfBits(x, 'float16'), d, { ...o, dtype: 'float16' }),
          );
          record(`${at} bfloat16`, () =>
            rt[api.call](pkg.float32ToHalfBits(x, 'bfloat16'), d, { ...o, dtype: 'bfloat16' }),
          );
          const residual = floats(rows * d, 2);
          const sumOut = new Float32Array(rows * d);
          record(`${at} residual`, () => [rt[api.call](x, d, { ...o, residual, bias: beta, sumOut }), sumOut]);
          record(`${at} stages`, () => rt[api.stages](x, d, rows - 1, o));
          record(`${at} stages residual`, () => rt[api.stages](x, d, rows - 1, { ...o, residual }));
          const norm = rt[api.create](d, o);
          record(`${at} resident`, () => norm.forward(x));
          norm.dispose();
        });
      }
    }
    record(`${backend} ${kind} refused width`, () => rt[api.call](new Float32Array(6), 4));
    record(`${backend} ${kind} refused gamma`, () => rt[api.call](new Float32Array(8), 4, { gamma: [1, 2, 3, 4] }));
    record(`${backend} ${kind} refused eps`, () => rt[api.call](new Float32Array(8), 4, { eps: -1 }));
    record(`${backend} ${kind} NaN row`, () => rt[api.call](Float32Array.of(1, NaN, 3, 4), 4));
    record(`${backend} ${kind} constant row`, () => rt[api.call](Float32Array.of(2, 2, 2, 2), 4));
  }
  for (const d of WIDTHS) {
    const x = floats(5 * d, 4, 100);
    record(`${backend} stats d=${d}`, () => rt.layerNormStats(x, d, { eps: 1e-5 }));
    record(`${backend} onnx d=${d}`, () =>
      rt.layerNormalization(x, [5, d], { gamma: floats(d, 1, 1), beta: floats(d), epsilon: 1e-5 }),
    );
    const input = rt.allocate(5, d);
    const output = rt.allocate(5, d);
    input.view.set(x);
    const norm = rt.createLayerNorm(d, { gamma: floats(d, 1, 1), eps: 1e-5 });
    record(`${backend} tensor d=${d}`, () => (norm.forwardTensor(input, output), output.view.slice()));
    norm.dispose();
    input.dispose();
    output.dispose();
  }
}
console.log(lines.join('\n'));
