// The wire between the façade and the C++ core, field by field: the layout web/src/core/call-struct.ts writes by
// (WIRE_LAYOUT) is the one the compiler gave cpp/bindings/embind.cc's WireCall, as the module itself
// reports it (`_wireLayout`, from offsetof and sizeof) in both builds, and writeWire puts every field
// of a call where the core reads it, and nothing outside the struct.
import { describe, expect, it } from 'vitest';
import { loadModule } from '../../dist/loader.js';
import { NORMS } from '../../dist/norms.js';
import { WIRE_BYTES, WIRE_LAYOUT, WIRE_TYPE_BYTES, writeWire, type WireCall } from '../../dist/core/call-struct.js';

interface Field {
  name: string;
  offset: number;
  bytes: number;
  type: string;
}

/** The module's account of WireCall: "WireCall <sizeof>", then "name offset bytes type" lines. */
function compiledLayout(text: string): { bytes: number; fields: Field[] } {
  const [head, ...lines] = text.split('\n');
  const size = /^WireCall (\d+)$/.exec(head!);
  expect(size, `first line of _wireLayout(): ${JSON.stringify(head)}`).not.toBeNull();
  const fields = lines.map((line) => {
    const m = /^(\w+) (\d+) (\d+) ([iuf]\d+)$/.exec(line);
    expect(m, `a field line of _wireLayout(): ${JSON.stringify(line)}`).not.toBeNull();
    return { name: m![1]!, offset: Number(m![2]), bytes: Number(m![3]), type: m![4]! };
  });
  return { bytes: Number(size![1]), fields };
}

/** C++ spells the fields in snake case (sum_out), TypeScript in camel case (sumOut). */
const cppName = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A call whose every field has a value of its own, so that a field written in another's place shows. */
const CALL: Required<WireCall> = {
  norm: 'rmsnorm',
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

describe.each(['simd', 'scalar'] as const)('the wire (%s build)', (backend) => {
  it("wire.ts's table is the compiled WireCall, field by field", async () => {
    const module = await loadModule(backend);
    const compiled = compiledLayout(module._wireLayout());
    expect(compiled.bytes).toBe(WIRE_BYTES);
    expect(compiled.fields).toEqual(
      WIRE_LAYOUT.map(([name, offset, type]) => ({ name: cppName(name), offset, bytes: WIRE_TYPE_BYTES[type], type })),
    );
    // Every byte of the struct is one field's (no padding a field could hide in, no overlap).
    const owner = new Array<string | null>(compiled.bytes).fill(null);
    for (const f of compiled.fields) {
      for (let b = f.offset; b < f.offset + f.bytes; b++) {
        expect(owner[b], `byte ${b} of WireCall`).toBeNull();
        owner[b] = f.name;
      }
    }
    expect(owner.filter((o) => o === null)).toEqual([]);
  });

  it('writeWire puts each field where the compiled layout has it, and writes nothing around the struct', async () => {
    const module = await loadModule(backend);
    const { fields } = compiledLayout(module._wireLayout());
    const guard = 16;
    const block = module._malloc(WIRE_BYTES + 2 * guard);
    try {
      module.HEAPU8.fill(0xa5, block, block + WIRE_BYTES + 2 * guard);
      const at = block + guard;
      writeWire(module, at, CALL);
      const view = new DataView(module.HEAPU8.buffer);
      const read = (f: Field) =>
        f.type === 'f64'
          ? view.getFloat64(at + f.offset, true)
          : f.type === 'i32'
            ? view.getInt32(at + f.offset, true)
            : view.getUint32(at + f.offset, true);
      const written = Object.fromEntries(fields.map((f) => [f.name, read(f)]));
      expect(written).toEqual({
        norm: NORMS.rmsnorm.wire,
        dtype: CALL.dtype,
        rows: CALL.rows,
        d: CALL.d,
        x: CALL.x,
        y: CALL.y,
        gamma: CALL.gamma,
        beta: CALL.beta,
        residual: CALL.residual,
        bias: CALL.bias,
        sum_out: CALL.sumOut,
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
      // A field left out of a call (scratch is optional) is written as 0, not left as it was.
      const { scratch: _, ...withoutScratch } = CALL;
      writeWire(module, at, withoutScratch);
      const scratch = fields.find((f) => f.name === 'scratch')!;
      expect(read(scratch)).toBe(0);
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
        expect(() => writeWire(module, block, { ...CALL, [name]: value })).toThrow(
          `the core's call: ${name} = ${value} does not fit its 32 bits (a defect)`,
        );
      }
      writeWire(module, block, { ...CALL, rows: 2 ** 32 - 1 });
      expect(new DataView(module.HEAPU8.buffer).getUint32(block + 8, true)).toBe(2 ** 32 - 1);
    } finally {
      module._free(block);
    }
  });
});
