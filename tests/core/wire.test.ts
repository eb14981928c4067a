// The wire between the façade and the C++ core, field by field: web/src/core/wire-call.ts's table
// (WIRE_LAYOUT) is the one the wasm build generates cpp/bindings/embind.cc's WireCall from
// (web/scripts/wire-header.mjs), whose static_asserts refuse a table the compiler would lay out
// otherwise (shown here by compiling embind.cc against a wrong one), and Wire.write puts every field
// of a call where the table says, and nothing outside the struct.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModule } from '../../dist/loader.js';
import { NORMS, normWire } from '../../dist/norms.js';
import { Wire, WIRE_BYTES, WIRE_LAYOUT, WIRE_TYPE_BYTES, type WireCall } from '../../dist/core/wire-call.js';
import { wireBytes, wireHeader, wireRows } from '../../web/scripts/wire-header.mjs';

const root = join(import.meta.dirname, '..', '..');
const WIRE_TS = readFileSync(join(root, 'web', 'src', 'core', 'wire-call.ts'), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'layernorm-wasm-wire-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Field {
  name: string;
  offset: number;
  type: string;
}

/** Compiles embind.cc (syntax and static_asserts only) against the header generated from `source`. */
function compileAgainst(name: string, source: string) {
  const dir = join(work, name);
  execFileSync('mkdir', ['-p', dir]);
  writeFileSync(join(dir, 'wire_layout.h'), wireHeader(wireRows(source)));
  const include = ['cpp/include', 'cpp/src', dir].flatMap((d) => ['-I', d]);
  return spawnSync('em++', ['-std=c++17', '-fsyntax-only', ...include, 'cpp/bindings/embind.cc'], {
    cwd: root,
    encoding: 'utf8',
  });
}

describe('the wire struct’s one table', () => {
  it('the generated header lists every field of WIRE_LAYOUT at its offset, and the table covers every byte once', () => {
    const rows = wireRows(WIRE_TS);
    expect(rows).toEqual(WIRE_LAYOUT.map(([name, offset, type]) => ({ name, offset, type })));
    expect(wireBytes(rows)).toBe(WIRE_BYTES);
    expect(WIRE_BYTES).toBe(64);
    const header = wireHeader(rows);
    expect(header).toContain('#define LNW_WIRE_BYTES 64\n');
    expect(header).toContain('  X(sum_out, 40, u32) \\\n');
    expect(header).toContain('  X(eps, 56, f64)\n');
    // Every byte of the struct is one field's (no padding a field could hide in, no overlap).
    const owner = new Array<string | null>(WIRE_BYTES).fill(null);
    for (const [name, offset, type] of WIRE_LAYOUT) {
      for (let b = offset; b < offset + WIRE_TYPE_BYTES[type]; b++) {
        expect(owner[b], `byte ${b} of WireCall`).toBeNull();
        owner[b] = name;
      }
    }
    expect(owner.filter((o) => o === null)).toEqual([]);
  });

  it('a line of the table that is not a row stops the generator, naming it', () => {
    const broken = WIRE_TS.replace("['rows', 8, 'u32'],", "['rows', 8, 'u64'],");
    expect(() => wireRows(broken)).toThrow(
      "wire-call.ts: a WIRE_LAYOUT line that is not a ['name', offset, 'type'] row: ['rows', 8, 'u64'],",
    );
  });

  it('embind.cc builds against the table, and not against one whose offset the compiler would not give', () => {
    const good = compileAgainst('good', WIRE_TS);
    expect(good.stderr).toBe('');
    expect(good.status).toBe(0);
    // eps moved 4 bytes on: the struct declared from this table puts it at 56 (8-aligned) all the same.
    const moved = compileAgainst('moved', WIRE_TS.replace("['eps', 56, 'f64'],", "['eps', 60, 'f64'],"));
    expect(moved.status).not.toBe(0);
    expect(moved.stderr).toContain('web/src/core/wire-call.ts writes WireCall::eps at byte 60');
  });
});

/** A call whose every field has a value of its own, so that a field written in another's place shows. */
const CALL: WireCall = {
  norm: normWire(NORMS.rmsnorm),
  dtype: 2,
  rows: 0x01020304,
  d: 0xfffffff0,
  x: 0x10000010,
  y: 0x20000020,
  gamma: 0x30000030,
  beta: 0x40000040,
  residual: 0x50000050,
  bias: 0x60000060,
  sumOut: 0x70000070,
  mean: 0x80000080,
  rstd: 0x90000090,
  scratch: 0xa00000a0,
  eps: 1.2345678901234567e-5,
};

describe.each(['simd', 'scalar'] as const)('Wire.write (%s build)', (backend) => {
  it('Wire.write puts each field where the table has it, and writes nothing around the struct', async () => {
    const module = await loadModule(backend);
    const fields: Field[] = WIRE_LAYOUT.map(([name, offset, type]) => ({ name, offset, type }));
    const guard = 16;
    const block = module._malloc(WIRE_BYTES + 2 * guard);
    try {
      module.HEAPU8.fill(0xa5, block, block + WIRE_BYTES + 2 * guard);
      const at = block + guard;
      new Wire(module, at).write(CALL);
      const view = new DataView(module.HEAPU8.buffer);
      const read = (f: Field) =>
        f.type === 'f64'
          ? view.getFloat64(at + f.offset, true)
          : f.type === 'i32'
            ? view.getInt32(at + f.offset, true)
            : view.getUint32(at + f.offset, true);
      const written = Object.fromEntries(fields.map((f) => [f.name, read(f)]));
      expect(written).toEqual({
        norm: normWire(NORMS.rmsnorm),
        dtype: CALL.dtype,
        rows: CALL.rows,
        d: CALL.d,
        x: CALL.x,
        y: CALL.y,
        gamma: CALL.gamma,
        beta: CALL.beta,
        residual: CALL.residual,
        bias: CALL.bias,
        sumOut: CALL.sumOut,
        mean: CALL.mean,
        rstd: CALL.rstd,
        scratch: CALL.scratch,
        eps: CALL.eps,
      });
      const around = [
        ...module.HEAPU8.subarray(block, at),
        ...module.HEAPU8.subarray(at + WIRE_BYTES, at + WIRE_BYTES + guard),
      ];
      expect(around).toEqual(new Array(2 * guard).fill(0xa5));
      // Memory growth detaches the views a Wire keeps: its next write makes them again.
      const wire = new Wire(module, at);
      wire.write(CALL);
      const before = module.HEAPU8.length;
      const big = module._malloc(before);
      expect(module.HEAPU8.length).toBeGreaterThan(before);
      wire.write({ ...CALL, rows: 7 });
      expect(new DataView(module.HEAPU8.buffer).getUint32(at + 8, true)).toBe(7);
      module._free(big);
    } finally {
      module._free(block);
    }
  });

  it('a count or address past 32 bits is refused before the core reads it, not stored modulo 2^32', async () => {
    const module = await loadModule(backend);
    const block = module._malloc(WIRE_BYTES);
    try {
      module.HEAPU8.fill(0xa5, block, block + WIRE_BYTES);
      for (const [name, value] of [
        ['rows', 2 ** 32],
        ['d', 2 ** 32 + 3],
        ['x', -8],
        ['mean', 2 ** 31 + 0.5],
      ] as const) {
        expect(() => new Wire(module, block).write({ ...CALL, [name]: value })).toThrow(
          `the core's call: ${name} = ${value} does not fit its 32 bits (a defect)`,
        );
      }
      new Wire(module, block).write({ ...CALL, rows: 2 ** 32 - 1 });
      expect(new DataView(module.HEAPU8.buffer).getUint32(block + 8, true)).toBe(2 ** 32 - 1);
    } finally {
      module._free(block);
    }
  });
});
