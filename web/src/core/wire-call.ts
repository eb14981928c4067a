/**
 * A call as the C++ core takes it: the wire struct, written into the runtime's own reserved bytes
 * before each call into the core that takes it (`_statistics`, `_stages`; the normalizing calls take
 * arguments: cpp/bindings/embind.cc says why). WIRE_LAYOUT is its one
 * table: the wasm build generates cpp/bindings/embind.cc's WireCall from it
 * (web/scripts/wire-header.mjs) and static_asserts there hold the compiler's offsets and size to
 * it, so a field is one row here (and one line of Wire.write, which gives it its value).
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

/** Each field's index in a view of the struct of its type: 32-bit (offset / 4) or float64 (offset / 8). */
const WIRE_SLOT = Object.fromEntries(
  WIRE_LAYOUT.map(([name, offset, type]) => [name, offset / WIRE_TYPE_BYTES[type]]),
) as Readonly<Record<keyof WireCall, number>>;

/** A call of every field 0, in the table's order (one hidden class for every call written). */
export function newWireCall(): WireCall {
  return Object.fromEntries(WIRE_LAYOUT.map(([name]) => [name, 0])) as unknown as WireCall;
}

/**
 * The wire struct at `at` (8-aligned) in the module's memory, which write() fills for the next call:
 * a field per store into views of the struct kept between calls (through the module's HEAP views
 * a write measured 30-50 ns against 11-13: web/bench/NOTES.md).
 * A count or address that does not fit its 32 bits would be stored modulo 2^32 (rows 2^32 as 0):
 * the façade's checks keep every one far below, so one past them is a defect, said so before the
 * core runs.
 */
export class Wire {
  #i32: Int32Array = new Int32Array(0);
  #u32: Uint32Array = new Uint32Array(0);
  #f64: Float64Array = new Float64Array(0);

  constructor(
    readonly module: LayerNormModule,
    readonly at: number,
  ) {}

  write(c: WireCall): void {
    // Checked in one expression, no call per field: V8 stops inlining deep in a one-row call's
    // chain, and a call per field measured ~65 ns of it (web/bench/NOTES.md).
    if (
      c.rows >>> 0 !== c.rows ||
      c.d >>> 0 !== c.d ||
      c.x >>> 0 !== c.x ||
      c.y >>> 0 !== c.y ||
      c.gamma >>> 0 !== c.gamma ||
      c.beta >>> 0 !== c.beta ||
      c.residual >>> 0 !== c.residual ||
      c.bias >>> 0 !== c.bias ||
      c.sumOut >>> 0 !== c.sumOut ||
      c.mean >>> 0 !== c.mean ||
      c.rstd >>> 0 !== c.rstd ||
      c.scratch >>> 0 !== c.scratch
    ) {
      refuse(c);
    }
    // Memory growth detaches the views (length 0): they are made again.
    const u32 = this.#u32.length === 0 ? this.#view() : this.#u32;
    const i32 = this.#i32;
    i32[WIRE_SLOT.norm] = c.norm;
    i32[WIRE_SLOT.dtype] = c.dtype;
    u32[WIRE_SLOT.rows] = c.rows;
    u32[WIRE_SLOT.d] = c.d;
    u32[WIRE_SLOT.x] = c.x;
    u32[WIRE_SLOT.y] = c.y;
    u32[WIRE_SLOT.gamma] = c.gamma;
    u32[WIRE_SLOT.beta] = c.beta;
    u32[WIRE_SLOT.residual] = c.residual;
    u32[WIRE_SLOT.bias] = c.bias;
    u32[WIRE_SLOT.sumOut] = c.sumOut;
    u32[WIRE_SLOT.mean] = c.mean;
    u32[WIRE_SLOT.rstd] = c.rstd;
    u32[WIRE_SLOT.scratch] = c.scratch;
    this.#f64[WIRE_SLOT.eps] = c.eps;
  }

  #view(): Uint32Array {
    const buffer = this.module.HEAPU8.buffer;
    this.#i32 = new Int32Array(buffer, this.at, WIRE_BYTES / 4);
    this.#f64 = new Float64Array(buffer, this.at, WIRE_BYTES / 8);
    return (this.#u32 = new Uint32Array(buffer, this.at, WIRE_BYTES / 4));
  }
}

/** Throws for the first 32-bit field of `c` that does not fit (write() found one). */
function refuse(c: WireCall): void {
  for (const [name, , type] of WIRE_LAYOUT) {
    const value = c[name];
    if (type === 'u32' && value >>> 0 !== value) {
      throw new Error(`the core's call: ${name} = ${value} does not fit its 32 bits (a defect)`);
    }
  }
}
