/**
 * The hard cases of the numerics contract, read from the shared vector files in tests/data/ (the
 * C++ tests read the same files), and the shapes the suites sweep.
 */
import { readFileSync } from 'node:fs';

// The generators live in the test kit; re-exported for the suites that read the shared vectors too.
export { gaussian, gpt2Like, rng } from '../kit/random.mjs';

export interface Case {
  name: string;
  d: number;
  eps: number;
  x: Float32Array;
  gamma: Float32Array | null;
  beta: Float32Array | null;
}

const DATA = new URL('../data/', import.meta.url);

/** Every case of tests/data/hard_cases.txt, with its values from hard_cases.f32. */
export function hardCases(): Case[] {
  const bytes = readFileSync(new URL('hard_cases.f32', DATA));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values = new Float32Array(bytes.byteLength / 4).map((_, i) => view.getFloat32(4 * i, true));
  const slice = (offset: number, count: number, what: string): Float32Array | null => {
    if (offset < 0) return null;
    if (offset + count > values.length) throw new Error(`hard_cases.txt: ${what} lies beyond hard_cases.f32`);
    return values.slice(offset, offset + count);
  };
  const cases: Case[] = [];
  for (const line of readFileSync(new URL('hard_cases.txt', DATA), 'utf8').split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const [name, ...fields] = line.split(' ');
    const [rows, d, eps, x, gamma, beta] = fields.map(Number);
    if (!name || [rows, d, eps, x, gamma, beta].some((v) => !Number.isFinite(v)) || x! < 0) {
      throw new Error(`hard_cases.txt: cannot read the line "${line}"`);
    }
    cases.push({
      name,
      d: d!,
      eps: eps!,
      x: slice(x!, rows! * d!, `${name} x`)!,
      gamma: slice(gamma!, d!, `${name} gamma`),
      beta: slice(beta!, d!, `${name} beta`),
    });
  }
  if (cases.length === 0) throw new Error('hard_cases.txt lists no cases');
  return cases;
}

/** The executor's chunk: the elements one call into wasm handles at a time. */
export const CHUNK = 1 << 16;
/** Widths: 1, around the 8-float tile, GPT-2's and one past it, and one row wider than a chunk. */
export const WIDTHS = [1, 7, 8, 9, 768, 769, 70_000];
/** Rows enough for 2½ chunks of narrow rows (so calls cross chunk boundaries), 3 wide rows. */
export const rowsFor = (d: number) => (d > CHUNK ? 3 : Math.ceil((2.5 * CHUNK) / d));
