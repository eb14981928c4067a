#!/usr/bin/env node
// Writes the hard cases of the numerics contract into tests/data/: hard_cases.txt (one case per
// line) and hard_cases.f32 (their values, little-endian float32). The C++ tests
// (cpp/tests/hard_cases.h) and the JS tests (tests/helpers/cases.ts) both read these files, so
// both suites judge the kernels on the very same bits. Seeded: running it again writes the same
// bytes. Run it only to change the set of cases, and commit both files.
import { writeFileSync } from 'node:fs';
import { gaussian as gaussianOf, gpt2Like as gpt2LikeOf, rng } from '../kit/random.mjs';

const SEED = 20261130;
const rand = rng(SEED);
const gaussian = (n, mean = 0, std = 1) => gaussianOf(rand, n, mean, std);
const gpt2Like = (rows) => gpt2LikeOf(rand, rows);

const blocks = [];
let floats = 0;
/** Appends values to the data file; returns their offset in floats. */
function store(values) {
  blocks.push(values);
  floats += values.length;
  return floats - values.length;
}

// One gain (around 1) and one bias (around 0) per width, shared by every case of that width.
const params = new Map();
function paramsFor(d) {
  if (!params.has(d)) params.set(d, { gamma: store(gaussian(d, 1, 0.2)), beta: store(gaussian(d, 0, 0.1)) });
  return params.get(d);
}

const lines = [];
function add(name, d, eps, x) {
  const rows = x.length / d;
  const at = store(x);
  const { gamma, beta } = paramsFor(d);
  lines.push([name, rows, d, eps, at, gamma, beta].join(' '));
  lines.push([`${name}-nobias`, rows, d, eps, at, gamma, -1].join(' '));
}

add('gpt2-act', 768, 1e-5, gpt2Like(8));
add('offset-1e4', 768, 1e-5, gaussian(4 * 768, 1e4, 1));
add('offset-1e6', 768, 1e-5, gaussian(4 * 768, 1e6, 0.5));
add('tinyvar', 768, 1e-5, gaussian(4 * 768, 3, 1e-3));
const constant = new Float32Array(4 * 768).map((_, i) => [1e6, -3.5, 0, 7.25e-3][Math.floor(i / 768)]);
add('constant', 768, 1e-5, constant);
add('constant-eps0', 768, 0, constant);
add('huge-1e19', 768, 1e-5, gaussian(2 * 768, 0, 1e19));
add('huge-1e30', 768, 1e-5, gaussian(2 * 768, 3e30, 1e30));
add('huge-3e38', 64, 1e-5, gaussian(2 * 64, 0, 1e38));
add('tiny-1e-40', 768, 1e-5, gaussian(2 * 768, 0, 1e-40));
add('tiny-1e-40-eps0', 768, 0, gaussian(2 * 768, 2e-40, 1e-40));
add('tiny-1e-20-eps0', 768, 0, gaussian(2 * 768, 0, 1e-20));
add('eps-0.1', 768, 0.1, gaussian(2 * 768, 0, 0.3));
for (const d of [1, 2, 3, 5, 7, 15, 17, 33, 767, 769, 1025, 4096]) add(`dim-${d}`, d, 1e-5, gaussian(2 * d, 0.5, 2));
const nonfinite = gaussian(6 * 768);
nonfinite[768 + 5] = NaN;
nonfinite[3 * 768 + 700] = Infinity;
nonfinite[4 * 768] = -Infinity;
add('nonfinite', 768, 1e-5, nonfinite);

const data = new Uint8Array(floats * 4);
const view = new DataView(data.buffer);
let offset = 0;
for (const block of blocks) for (const v of block) view.setFloat32(4 * offset++, v, true);

const header = `# The hard cases of the numerics contract (README "Numerics contract"), shared by the C++ tests
# (cpp/tests/hard_cases.h) and the JS tests (tests/helpers/cases.ts). Written by
# tests/data/generate.mjs; the values are in hard_cases.f32 as little-endian float32.
# One case per line: name rows d eps x gamma beta, where x, gamma and beta are offsets into
# hard_cases.f32 counted in floats (x holds rows * d values, gamma and beta d each; -1: none).
`;
const dir = new URL('.', import.meta.url);
writeFileSync(new URL('hard_cases.txt', dir), header + lines.join('\n') + '\n');
writeFileSync(new URL('hard_cases.f32', dir), data);
console.log(`tests/data: ${lines.length} cases, ${floats} floats (${data.length} bytes)`);
