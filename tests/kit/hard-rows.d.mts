export type HardKind =
  'near-constant' | 'levels' | 'huge' | 'subnormal' | 'narrow' | 'gamma-overflow' | 'cancelling' | 'gpt2' | 'gaussian';
export const HARD_KINDS: HardKind[];

export interface HardCase {
  kind: HardKind;
  seed: number;
  d: number;
  rows: number;
  h: Float32Array;
  gamma: Float32Array | null;
  beta: Float32Array | null;
  eps: number;
  /** Kind, shape and seed, for failure messages. */
  label: string;
}
export interface HardCaseOptions {
  kind?: HardKind;
  d?: number;
  rows?: number;
  maxD?: number;
  maxElements?: number;
}
export function hardCase(seed: number, options?: HardCaseOptions): HardCase;
export function stepAway(v: number, n: number): number;
export function splitResidual(
  seed: number,
  h: Float32Array,
  d: number,
): { x: Float32Array; residual: Float32Array; bias: Float32Array | null };
