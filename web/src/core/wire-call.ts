/**
 * Calls as the C++ core takes them, in two conventions, each one table here that the wasm build
 * generates cpp/bindings/embind.cc's structs from (web/scripts/wire-header.mjs), with static_asserts
 * there holding the compiler's offsets and sizes to them: a field is one row here.
 *
 * - The statistics and the stages pass the wire struct (WireCall, WIRE_LAYOUT), written into the
 *   runtime's reserved bytes before each call (Wire.write).
 * - The normalizing calls, which a model makes per token, pass plain arguments to one wasm export,
 *   `_lnw_normalize(form, rows, d, x, y, gamma, beta, eps, areas)`: the call's form (its norm's
 *   facts, its dtype, which optional areas it uses: formOf) and the address of a CallAreas struct
 *   (AREAS_LAYOUT) holding where those areas are. A plan's areas stay where they are across calls,
 *   so that struct is written when they are laid out (writeAreas), not per call. Per call, the
 *   wire struct measured 4-8% slower at one row (cpp/bindings/embind.cc, web/bench/NOTES.md).
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

/** A struct's size: past its last field, rounded up to its widest (as the compiler lays it out). */
function structBytes(layout: readonly (readonly [string, number, WireType])[]): number {
  const end = Math.max(...layout.map(([, offset, type]) => offset + WIRE_TYPE_BYTES[type]));
  const align = Math.max(...layout.map(([, , type]) => WIRE_TYPE_BYTES[type]));
  return Math.ceil(end / align) * align;
}

/** sizeof(WireCall). */
export const WIRE_BYTES = structBytes(WIRE_LAYOUT);

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

/**
 * The addresses of a normalizing call's optional areas, as `_lnw_normalize` reads them through its
 * `areas` argument; only those the call's form names are read (0: none).
 */
export interface CallAreas {
  residual: number;
  bias: number;
  sumOut: number;
  mean: number;
  rstd: number;
  /** d floats of float32 staging for a 16-bit row the core's own stack staging (4096) cannot hold. */
  scratch: number;
}

/** CallAreas's fields in the struct's order: [name, byte offset, type], one row a line, as WIRE_LAYOUT. */
export const AREAS_LAYOUT: readonly (readonly [name: keyof CallAreas, offset: number, type: WireType])[] = [
  ['residual', 0, 'u32'],
  ['bias', 4, 'u32'],
  ['sumOut', 8, 'u32'],
  ['mean', 12, 'u32'],
  ['rstd', 16, 'u32'],
  ['scratch', 20, 'u32'],
];

/** sizeof(CallAreas). */
export const AREAS_BYTES = structBytes(AREAS_LAYOUT);

/**
 * A form's bits: the norm's wire code below FORM_DTYPE_SHIFT (normWire: at most 0x1ff), the dtype's
 * code (DTYPE_CODES) from there, and from FORM_AREAS_SHIFT one bit per AREAS_LAYOUT row, in order,
 * set when the call uses that area.
 */
export const FORM_DTYPE_SHIFT = 12;
export const FORM_AREAS_SHIFT = 16;

/** The bit of each area in a form. */
export const AREA_BIT = Object.fromEntries(
  AREAS_LAYOUT.map(([name], i) => [name, 1 << (FORM_AREAS_SHIFT + i)]),
) as Readonly<Record<keyof CallAreas, number>>;

/** A normalizing call's form without its areas: its norm's wire code and its dtype's code. */
export const formOf = (norm: number, dtype: number): number => norm | (dtype << FORM_DTYPE_SHIFT);

/**
 * Writes `a` as a CallAreas struct at `at` (4-aligned). Called when a plan's areas are laid out:
 * rarely, so through the module's current view.
 */
export function writeAreas(module: LayerNormModule, at: number, a: CallAreas): void {
  const u32 = new Uint32Array(module.HEAPU8.buffer, at, AREAS_BYTES / 4);
  for (const [name, offset] of AREAS_LAYOUT) u32[offset / 4] = a[name];
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
