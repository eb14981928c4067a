/**
 * A call as the C++ core takes it (cpp/bindings/embind.cc's WireCall): 14 32-bit fields, heap
 * addresses 0 for "not used", then eps as a double at byte 56. Written into the runtime's own
 * reserved bytes before `_statistics` / `_stages` (the normalizing calls take plain arguments).
 */
import { NORMS, type NormKind } from './norms.js';
import type { LayerNormModule } from './wasm/module.js';

export const WIRE_BYTES = 64;

export interface WireCall {
  norm: NormKind;
  dtype: number; // DTYPE_CODES
  rows: number;
  d: number;
  x: number;
  y: number;
  gamma: number;
  beta: number;
  residual: number;
  bias: number;
  sumOut: number;
  mean: number;
  rstd: number;
  /** d floats the core may use for 16-bit rows wider than its stack staging (0: none needed). */
  scratch?: number;
  eps: number;
}

export function writeWire(module: LayerNormModule, at: number, c: WireCall): void {
  const u = new Uint32Array(module.HEAPU8.buffer, at, 14);
  u[0] = NORMS[c.norm].wire;
  u[1] = c.dtype;
  u[2] = c.rows;
  u[3] = c.d;
  u[4] = c.x;
  u[5] = c.y;
  u[6] = c.gamma;
  u[7] = c.beta;
  u[8] = c.residual;
  u[9] = c.bias;
  u[10] = c.sumOut;
  u[11] = c.mean;
  u[12] = c.rstd;
  u[13] = c.scratch ?? 0;
  module.HEAPF64[(at + 56) >>> 3] = c.eps;
}
