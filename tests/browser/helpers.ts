/**
 * Test data and small comparisons for the browser tests. The references and the .npy codec are the
 * package's own (`layerNormReference`, `rmsNormReference`, `readNpy`, `writeNpy`, `writeNpyHeader`),
 * imported from the built package by name as an application would; the statistics the page lists
 * are checked against the test kit's (tests/kit/stats.mjs).
 */
import { writeNpy } from 'layernorm-wasm/io';

export const D = 768;

/** Seeded activations in float32: N(0,1)-ish plus one large channel, row-dependent. */
export function testActivations(rows: number, d = D, seed = 1): Float32Array {
  let s = seed >>> 0;
  const u = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const x = new Float32Array(rows * d);
  for (let i = 0; i < x.length; i++) x[i] = (u() + u() + u() - 1.5) * 2;
  for (let r = 0; r < rows; r++) x[r * d + (447 % d)] = 50 * (r + 1);
  return x;
}

/** A float32 .npy (the package's writer) as the Buffer Playwright's setInputFiles takes. */
export function npy(data: Float32Array, shape: number[]): Buffer {
  return Buffer.from(writeNpy(data, shape));
}

/** Largest |a − b| / (1 + |b|): absolute error for small values, relative for large ones. */
export function maxRelErr(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < b.length; i++) {
    const e = Math.abs(a[i]! - b[i]!) / (1 + Math.abs(b[i]!));
    if (!(e <= worst)) worst = e;
  }
  return worst;
}

export function toText(x: Float32Array, d: number): string {
  const lines: string[] = [];
  for (let r = 0; r < x.length / d; r++)
    lines.push(Array.from(x.subarray(r * d, r * d + d), (v) => String(v)).join(' '));
  return lines.join('\n');
}
