// The wire between the façade and the C++ core, field by field: web/src/core/wire-call.ts's tables
// (WIRE_LAYOUT, AREAS_LAYOUT, the form's bits) are the ones the wasm build generates
// cpp/bindings/embind.cc's WireCall and CallAreas from (web/scripts/wire-header.mjs), whose
// static_asserts refuse a table the compiler would lay out otherwise (shown here by compiling
// embind.cc against wrong ones); Wire.write puts every field of a call where the table says, and
// nothing outside the struct; and `_lnw_normalize` reads the areas its form names, and only those.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { init } from '../../dist/index.js';
import { DTYPE_CODES } from '../../dist/checks/activations.js';
import { loadModule } from '../../dist/loader.js';
import { NORMS, normWire } from '../../dist/norms.js';
import {
  AREA_BIT,
  AREAS_BYTES,
  AREAS_LAYOUT,
  formOf,
  Wire,
  WIRE_BYTES,
  WIRE_LAYOUT,
  WIRE_TYPE_BYTES,
  writeAreas,
  type WireCall,
} from '../../dist/core/wire-call.js';
import { gaussian, rng } from '../kit/random.mjs';
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
  writeFileSync(join(dir, 'wire_layout.h'), wireHeader(source));
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
    const areas = wireRows(WIRE_TS, 'AREAS_LAYOUT');
    expect(areas).toEqual(AREAS_LAYOUT.map(([name, offset, type]) => ({ name, offset, type })));
    expect([wireBytes(areas), AREAS_BYTES]).toEqual([24, 24]);
    const header = wireHeader(WIRE_TS);
    expect(header).toContain('#define LNW_WIRE_BYTES 64\n');
    expect(header).toContain('  X(sum_out, 40, u32) \\\n');
    expect(header).toContain('  X(eps, 56, f64)\n');
    expect(header).toContain('#define LNW_AREAS_BYTES 24\n');
    expect(header).toContain('  X(sum_out, 8, u32) \\\n');
    expect(header).toContain('  X(scratch, 20, u32)\n');
    expect(header).toContain('#define LNW_FORM_DTYPE_SHIFT 12\n#define LNW_FORM_AREAS_SHIFT 16\n');
    // Every byte of each struct is one field's (no padding a field could hide in, no overlap).
    for (const [struct, layout, bytes] of [
      ['WireCall', WIRE_LAYOUT, WIRE_BYTES],
      ['CallAreas', AREAS_LAYOUT, AREAS_BYTES],
    ] as const) {
      const owner = new Array<string | null>(bytes).fill(null);
      for (const [name, offset, type] of layout) {
        for (let b = offset; b < offset + WIRE_TYPE_BYTES[type]; b++) {
          expect(owner[b], `byte ${b} of ${struct}`).toBeNull();
          owner[b] = name;
        }
      }
      expect(owner.filter((o) => o === null)).toEqual([]);
    }
    // An area's bit follows its row; the norm's and dtype's codes stay below the first.
    expect(Object.values(AREA_BIT)).toEqual([1 << 16, 1 << 17, 1 << 18, 1 << 19, 1 << 20, 1 << 21]);
    expect(formOf(normWire(NORMS.rmsnorm), DTYPE_CODES.bfloat16)).toBe(0x2100);
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
    const area = compileAgainst('area', WIRE_TS.replace("['rstd', 16, 'u32'],", "['rstd', 20, 'u32'],"));
    expect(area.status).not.toBe(0);
    expect(area.stderr).toContain('web/src/core/wire-call.ts writes CallAreas::rstd at byte 20');
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

describe.each(['simd', 'scalar'] as const)('_lnw_normalize’s areas (%s build)', (backend) => {
  it('reads the areas its form names and no other: a residual and a mean when named, untouched when not', async () => {
    const rt = await init({ backend });
    const module = (rt as unknown as { heap: { module: Awaited<ReturnType<typeof loadModule>> } }).heap.module;
    const d = 96;
    const random = rng(7);
    const x = Float32Array.from({ length: d }, () => gaussian(random));
    const r = Float32Array.from({ length: d }, () => gaussian(random));
    const gamma = Float32Array.from({ length: d }, () => 1 + 0.1 * gaussian(random));
    const [xAt, rAt, yAt, gAt, areasAt, meanAt] = [4 * d, 4 * d, 4 * d, 4 * d, AREAS_BYTES, 8].map((n) =>
      module._malloc(n),
    );
    try {
      module.HEAPF32.set(x, xAt >>> 2);
      module.HEAPF32.set(r, rAt >>> 2);
      module.HEAPF32.set(gamma, gAt >>> 2);
      writeAreas(module, areasAt, { residual: rAt, bias: 0, sumOut: 0, mean: meanAt, rstd: 0, scratch: 0 });
      const run = (form: number) => {
        module.HEAPF64[meanAt >>> 3] = -42;
        const status = module._lnw_normalize(form, 1, d, xAt, yAt, gAt, 0, 1e-5, areasAt);
        return { status, y: module.HEAPF32.slice(yAt >>> 2, (yAt >>> 2) + d), mean: module.HEAPF64[meanAt >>> 3] };
      };
      const ln = formOf(normWire(NORMS.layernorm), DTYPE_CODES.float32);
      // Named: x + residual normalized, and its mean written.
      const sum = x.map((v, i) => v + r[i]!);
      const mean = new Float64Array(1);
      const expected = rt.layerNorm(sum, d, { gamma, mean });
      const named = run(ln | AREA_BIT.residual | AREA_BIT.mean);
      expect(named.status).toBe(0);
      expect(named.y).toEqual(expected);
      expect(named.mean).toBe(mean[0]);
      // Not named: the same areas are there, and neither is read or written.
      const plain = run(ln);
      expect(plain.status).toBe(0);
      expect(plain.y).toEqual(rt.layerNorm(x, d, { gamma }));
      expect(plain.mean).toBe(-42);
    } finally {
      for (const at of [xAt, rAt, yAt, gAt, areasAt, meanAt]) module._free(at);
    }
  });
});
