/**
 * How the façade calls the C++ core: plain arguments, and the address of a CallAreas struct
 * (AREAS_LAYOUT, its one table here, which the wasm build generates cpp/bindings/embind.cc's struct
 * from with web/scripts/wire-header.mjs; static_asserts there hold the compiler's offsets and size
 * to it). Every call takes its form (the norm's facts, the dtype and which of its optional areas it
 * uses: formOf, AREA_BIT), its rows and their width, its input, ε and the areas; the normalizing
 * call (`_lnw_normalize`, a plain wasm export, what a model calls per token) its output, gain and
 * bias too; the statistics and the stages (Embind functions) where their records go. A plan's
 * areas stay where they are from call to call, so their struct is written when they are laid out
 * (writeAreas), not per call: a struct of every argument written per call measured 4-8% slower at
 * one row (web/bench/NOTES.md).
 */
import type { LayerNormModule } from '../wasm/module.js';

export type WireType = 'i32' | 'u32' | 'f64';
export const WIRE_TYPE_BYTES: Readonly<Record<WireType, number>> = { i32: 4, u32: 4, f64: 8 };

/** A struct's size: past its last field, rounded up to its widest (as the compiler lays it out). */
function structBytes(layout: readonly (readonly [string, number, WireType])[]): number {
  const end = Math.max(...layout.map(([, offset, type]) => offset + WIRE_TYPE_BYTES[type]));
  const align = Math.max(...layout.map(([, , type]) => WIRE_TYPE_BYTES[type]));
  return Math.ceil(end / align) * align;
}

/**
 * The addresses of a call's optional areas, as the core reads them through its `areas` argument;
 * only those the call's form names are read (0: none).
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

/**
 * CallAreas's fields in the struct's order: [name, byte offset, type], one row a line (the header
 * generator reads this text). Tuples, not objects: the table is in the page's first load.
 */
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

/** A call's form without its areas: its norm's wire code and its dtype's code. */
export const formOf = (norm: number, dtype: number): number => norm | (dtype << FORM_DTYPE_SHIFT);

/**
 * Writes `a` as a CallAreas struct at `at` (4-aligned). Called when a plan's areas are laid out:
 * rarely, so through the module's current view.
 */
export function writeAreas(module: LayerNormModule, at: number, a: CallAreas): void {
  const u32 = new Uint32Array(module.HEAPU8.buffer, at, AREAS_BYTES / 4);
  for (const [name, offset] of AREAS_LAYOUT) u32[offset / 4] = a[name];
}
