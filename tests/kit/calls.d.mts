import type { NormKind } from '../../dist/index.js';

export const D: number;
export const ROWS: number;
export const DATA: Record<'x' | 'r' | 'gamma' | 'beta' | 'bias' | 'scale', Float32Array>;
export function halfBits(values: ArrayLike<number>, dtype: 'float16' | 'bfloat16'): Uint16Array;

/** An array a call only reads, with its values when it was handed out. */
export interface ReadOnlyInput {
  array: Float32Array | Uint16Array;
  values: Float32Array | Uint16Array;
}
export interface Inputs {
  x(): Float32Array;
  bits(dtype: 'float16' | 'bfloat16'): Uint16Array;
  r(): Float32Array;
  rBits(dtype: 'float16' | 'bfloat16'): Uint16Array;
  gamma(): Float32Array;
  beta(): Float32Array;
  bias(): Float32Array;
  scale(): Float32Array;
  f32(n: number): Float32Array;
  f64(n: number): Float64Array;
  u16(n: number): Uint16Array;
}
export function inputs(readOnly?: ReadOnlyInput[]): Inputs;

/** What a call computes, for the oracle. */
export interface CallSpec {
  norm: NormKind;
  x: Float32Array;
  d: number;
  gamma: Float32Array | null;
  beta: Float32Array | null;
  eps: number;
  residual: Float32Array | null;
  bias: Float32Array | null;
  dtype: 'float32' | 'float16' | 'bfloat16';
  /** The stages' row. */
  row?: number;
  /** A resident norm's [norm, d, eps, dtype, hasGamma, hasBeta]. */
  props?: unknown[];
}
/** What a call returns to compare: y, sumOut, mean, variance, rstd, and more (stages, shapes, props). */
export type CallRecord = Record<string, unknown>;
export interface CallCase {
  name: string;
  spec: CallSpec;
  run(t: any, a: Inputs, extra?: object): CallRecord | Promise<CallRecord>;
}
export const CALLS: CallCase[];
