#!/usr/bin/env node
// Writes the C++ header of the core's calling convention from web/src/core/wire-call.ts (the
// CallAreas table AREAS_LAYOUT and the form's bit positions):
// `node web/scripts/wire-header.mjs <wire-call.ts> <out.h>`. The wasm build runs it
// (CMakeLists.txt), and cpp/bindings/embind.cc declares CallAreas from the header's field list and
// checks each field's offset and the struct's size with static_asserts, so a layout the compiler
// would lay out otherwise does not build. Read as text: the table is one row per line, and a line
// between its brackets that is not a row stops the build rather than being skipped.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const TYPE_BYTES = { i32: 4, u32: 4, f64: 8 };

/** The rows of `table` in `source` (wire-call.ts's text): [{ name, offset, type }]. */
export function wireRows(source, table = 'AREAS_LAYOUT') {
  const start = source.indexOf(`export const ${table}`);
  const open = source.indexOf('= [', start);
  const close = source.indexOf('\n];', open);
  if (start < 0 || open < 0 || close < 0)
    throw new Error(`wire-call.ts: no \`export const ${table} … = [ … ];\` table`);
  const rows = [];
  for (const line of source.slice(open + 3, close).split('\n')) {
    if (line.trim() === '') continue;
    const m = /^\s*\['([a-z][A-Za-z0-9]*)', (\d+), '(i32|u32|f64)'\],?\s*$/.exec(line);
    if (!m) throw new Error(`wire-call.ts: a ${table} line that is not a ['name', offset, 'type'] row: ${line.trim()}`);
    rows.push({ name: m[1], offset: Number(m[2]), type: m[3] });
  }
  return rows;
}

/** The struct's size: past its last field, rounded up to its widest field (as the compiler does). */
export function wireBytes(rows) {
  const end = Math.max(...rows.map((r) => r.offset + TYPE_BYTES[r.type]));
  const align = Math.max(...rows.map((r) => TYPE_BYTES[r.type]));
  return Math.ceil(end / align) * align;
}

/** sumOut → sum_out: the C++ name of a field. */
const cppName = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The value of `export const NAME = <integer>;` in `source`. */
export function wireConstant(source, name) {
  const m = new RegExp(`^export const ${name} = (\\d+);$`, 'm').exec(source);
  if (!m) throw new Error(`wire-call.ts: no \`export const ${name} = <integer>;\``);
  return Number(m[1]);
}

/** The header for wire-call.ts's text. */
export function wireHeader(source) {
  const areas = wireRows(source, 'AREAS_LAYOUT');
  return [
    '// Generated from web/src/core/wire-call.ts by web/scripts/wire-header.mjs.',
    '#pragma once',
    '',
    `#define LNW_AREAS_BYTES ${wireBytes(areas)}`,
    "// X(name, byte offset, type), in the struct's order.",
    '#define LNW_AREAS_FIELDS(X) \\',
    ...areas.map((r, i) => `  X(${cppName(r.name)}, ${r.offset}, ${r.type})${i < areas.length - 1 ? ' \\' : ''}`),
    '',
    `#define LNW_FORM_DTYPE_SHIFT ${wireConstant(source, 'FORM_DTYPE_SHIFT')}`,
    `#define LNW_FORM_AREAS_SHIFT ${wireConstant(source, 'FORM_AREAS_SHIFT')}`,
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [from, to] = process.argv.slice(2);
  if (!from || !to) {
    console.error('usage: node web/scripts/wire-header.mjs <web/src/core/wire-call.ts> <out.h>');
    process.exit(2);
  }
  mkdirSync(dirname(to), { recursive: true });
  writeFileSync(to, wireHeader(readFileSync(from, 'utf8')));
}
