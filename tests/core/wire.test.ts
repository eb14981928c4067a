// The wire between the façade and the C++ core: web/src/core/wire-call.ts's table (AREAS_LAYOUT)
// and the form's bits are what the wasm build generates cpp/bindings/embind.cc's CallAreas from
// (web/scripts/wire-header.mjs), whose static_asserts refuse a table the compiler would lay out
// otherwise (shown here by compiling embind.cc against a wrong one); and the core reads the areas
// a call's form names, and only those.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { init } from '../../dist/index.js';
import { DTYPE_CODES } from '../../dist/checks/activations.js';
import { loadModule } from '../../dist/loader.js';
import { NORMS, normWire } from '../../dist/norms.js';
import { AREA_BIT, AREAS_BYTES, AREAS_LAYOUT, formOf, WIRE_TYPE_BYTES, writeAreas } from '../../dist/core/wire-call.js';
import { gaussian, rng } from '../kit/random.mjs';
import { wireBytes, wireHeader, wireRows } from '../../web/scripts/wire-header.mjs';

const root = join(import.meta.dirname, '..', '..');
const WIRE_TS = readFileSync(join(root, 'web', 'src', 'core', 'wire-call.ts'), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'layernorm-wasm-wire-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

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

describe('the CallAreas struct’s one table', () => {
  it('the generated header lists every field of AREAS_LAYOUT at its offset, and the table covers every byte once', () => {
    const rows = wireRows(WIRE_TS);
    expect(rows).toEqual(AREAS_LAYOUT.map(([name, offset, type]) => ({ name, offset, type })));
    expect([wireBytes(rows), AREAS_BYTES]).toEqual([24, 24]);
    const header = wireHeader(WIRE_TS);
    expect(header).toContain('#define LNW_AREAS_BYTES 24\n');
    expect(header).toContain('  X(sum_out, 8, u32) \\\n');
    expect(header).toContain('  X(scratch, 20, u32)\n');
    expect(header).toContain('#define LNW_FORM_DTYPE_SHIFT 12\n#define LNW_FORM_AREAS_SHIFT 16\n');
    // Every byte of the struct is one field's (no padding a field could hide in, no overlap).
    const owner = new Array<string | null>(AREAS_BYTES).fill(null);
    for (const [name, offset, type] of AREAS_LAYOUT) {
      for (let b = offset; b < offset + WIRE_TYPE_BYTES[type]; b++) {
        expect(owner[b], `byte ${b} of CallAreas`).toBeNull();
        owner[b] = name;
      }
    }
    expect(owner.filter((o) => o === null)).toEqual([]);
    // An area's bit follows its row; the norm's and dtype's codes stay below the first.
    expect(Object.values(AREA_BIT)).toEqual([1 << 16, 1 << 17, 1 << 18, 1 << 19, 1 << 20, 1 << 21]);
    expect(formOf(normWire(NORMS.rmsnorm), DTYPE_CODES.bfloat16)).toBe(0x2100);
  });

  it('a line of the table that is not a row stops the generator, naming it', () => {
    const broken = WIRE_TS.replace("['mean', 12, 'u32'],", "['mean', 12, 'u64'],");
    expect(() => wireRows(broken)).toThrow(
      "wire-call.ts: a AREAS_LAYOUT line that is not a ['name', offset, 'type'] row: ['mean', 12, 'u64'],",
    );
  });

  it('embind.cc builds against the table, and not against one whose offset the compiler would not give', () => {
    const good = compileAgainst('good', WIRE_TS);
    expect(good.stderr).toBe('');
    expect(good.status).toBe(0);
    // rstd moved 4 bytes on: the struct declared from this table puts it at 16 all the same.
    const moved = compileAgainst('moved', WIRE_TS.replace("['rstd', 16, 'u32'],", "['rstd', 20, 'u32'],"));
    expect(moved.status).not.toBe(0);
    expect(moved.stderr).toContain('web/src/core/wire-call.ts writes CallAreas::rstd at byte 20');
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
