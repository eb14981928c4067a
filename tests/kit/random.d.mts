export { rng } from '../../web/shared/rng.mjs';
export function normal(rand: () => number): number;
export function gaussian(rand: () => number, n: number, mean?: number, std?: number): Float32Array;
export function gpt2Like(rand: () => number, rows: number, d?: number): Float32Array;
