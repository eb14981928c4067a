/**
 * A call as the C++ core takes it: the wire struct, written into the runtime's own reserved bytes
 * before each call into the core (`_normalize`, `_statistics`, `_stages`). WIRE_LAYOUT is its one
 * table: the wasm build generates cpp/bindings/embind.cc's WireCall from it
 * (web/scripts/wire-header.mjs) and static_asserts there hold the compiler's offsets and size to
 * it, so a field is one row here (and one line of writeWire, which gives it its value).
 */
import type { LayerNormModule } from '../wasm/module.js';

export interface WireCall {
  norm: number; // normWire(NORMS[…]): the norm's facts
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
  scratch: number;
  eps: number;
}

export type WireType = 'i32' | 'u32' | 'f64';
export const WIRE_TYPE_BYTES: Readonly<Record<WireType, number>> = { i32: 4, u32: 4, f64: 8 };

/**
 * WireCall's fields in the struct's order: [name, byte offset, type], one row a line (the header
 * generator reads this text). 32-bit fields, heap addresses 0 for "not used", then eps as a double.
 * Tuples, not objects: the table is in the page's first load.
 */
export const WIRE_LAYOUT: readonly (readonly [name: keyof WireCall, offset: number, type: WireType])[] = [
  ['norm', 0, 'i32'],
  ['dtype', 4, 'i32'],
  ['rows', 8, 'u32'],
  ['d', 12, 'u32'],
  ['x', 16, 'u32'],
  ['y', 20, 'u32'],
  ['gamma', 24, 'u32'],
  ['beta', 28, 'u32'],
  ['residual', 32, 'u32'],
  ['bias', 36, 'u32'],
  ['sumOut', 40, 'u32'],
  ['mean', 44, 'u32'],
  ['rstd', 48, 'u32'],
  ['scratch', 52, 'u32'],
  ['eps', 56, 'f64'],
];

/** sizeof(WireCall): past the last field, rounded up to the widest (as the compiler lays it out). */
export const WIRE_BYTES = ((end: number) => Math.ceil(end / 8) * 8)(
  Math.max(...WIRE_LAYOUT.map(([, offset, type]) => offset + WIRE_TYPE_BYTES[type])),
);

/** Each field's index in the heap view of its type: HEAP32 / HEAPU32 (offset / 4) or HEAPF64 (offset / 8). */
const SLOT = Object.fromEntries(
  WIRE_LAYOUT.map(([name, offset, type]) => [name, offset / WIRE_TYPE_BYTES[type]]),
) as Readonly<Record<keyof WireCall, number>>;

/**
 * Writes `c` at `at` (8-aligned), a field per store into the heap's views (a DataView, or a loop
 * over the table, would be a visible share of a one-row call). A count or address that does not
 * fit its 32 bits would be stored modulo 2^32 (rows 2^32 as 0): the façade's checks keep every one
 * far below, so one past them is a defect, said so before the core runs.
 */
export function writeWire(module: LayerNormModule, at: number, c: WireCall): void {
  const i32 = module.HEAP32,
    u32 = module.HEAPU32,
    i = at >>> 2;
  i32[i + SLOT.norm] = c.norm;
  i32[i + SLOT.dtype] = c.dtype;
  u32[i + SLOT.rows] = fit('rows', c.rows);
  u32[i + SLOT.d] = fit('d', c.d);
  u32[i + SLOT.x] = fit('x', c.x);
  u32[i + SLOT.y] = fit('y', c.y);
  u32[i + SLOT.gamma] = fit('gamma', c.gamma);
  u32[i + SLOT.beta] = fit('beta', c.beta);
  u32[i + SLOT.residual] = fit('residual', c.residual);
  u32[i + SLOT.bias] = fit('bias', c.bias);
  u32[i + SLOT.sumOut] = fit('sumOut', c.sumOut);
  u32[i + SLOT.mean] = fit('mean', c.mean);
  u32[i + SLOT.rstd] = fit('rstd', c.rstd);
  u32[i + SLOT.scratch] = fit('scratch', c.scratch);
  module.HEAPF64[(at >>> 3) + SLOT.eps] = c.eps;
}

function fit(name: keyof WireCall, value: number): number {
  if (value >>> 0 !== value) throw new Error(`the core's call: ${name} = ${value} does not fit its 32 bits (a defect)`);
  return value;
}
