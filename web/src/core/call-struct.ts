/**
 * A call as the C++ core takes it (cpp/bindings/embind.cc's WireCall), laid out by WIRE_LAYOUT:
 * 32-bit fields, heap addresses 0 for "not used", then eps as a double. Written into the runtime's
 * own reserved bytes before `_statistics` / `_stages` (the normalizing calls take plain arguments).
 */
import { NORMS, type NormKind } from '../norms.js';
import type { LayerNormModule } from '../wasm/module.js';

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

export type WireType = 'i32' | 'u32' | 'f64';
export const WIRE_TYPE_BYTES: Readonly<Record<WireType, number>> = { i32: 4, u32: 4, f64: 8 };

/**
 * WireCall's fields as the C++ struct lays them out, in its order: [name, byte offset, type].
 * writeWire writes by this table, and tests/core/wire.test.ts compares it field by field with the
 * layout the module reports (`_wireLayout`, from offsetof and sizeof). Tuples, not objects: the
 * table is in the page's first load.
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

/** sizeof(WireCall): the bytes the runtime reserves for it. */
export const WIRE_BYTES = 64;

export function writeWire(module: LayerNormModule, at: number, c: WireCall): void {
  // wasm memory is little-endian; a 32-bit field's bits are the same signed or not.
  const view = new DataView(module.HEAPU8.buffer, at, WIRE_BYTES);
  for (const [name, offset, type] of WIRE_LAYOUT) {
    const value = name === 'norm' ? NORMS[c.norm].wire : ((c[name] as number | undefined) ?? 0);
    if (type === 'f64') view.setFloat64(offset, value, true);
    else if (type === 'u32' && !(value >= 0 && value <= 0xffffffff && Number.isInteger(value))) {
      // setUint32 would store it modulo 2^32 (rows 2^32 as 0): the façade's checks keep every
      // count and address far below, so one past them is a defect, said so before the core runs.
      throw new Error(`the core's call: ${name} = ${value} does not fit its 32 bits (a defect)`);
    } else view.setUint32(offset, value, true);
  }
}
