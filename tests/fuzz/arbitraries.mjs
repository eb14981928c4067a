// Inputs that several I/O targets share: mutated bytes of a valid file, text, and input nested
// deeper than any engine's call stack.
import fc from 'fast-check';
import { NPY_MAGIC, concat, le32, le64, utf8 } from '../kit/checkpoints/index.mjs';

/** Random edits of a valid file: byte flips, truncation, insertion, little-endian integer overwrites. */
export function mutatedBytes(sample) {
  const edit = fc.oneof(
    fc.record({ kind: fc.constant('set'), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ kind: fc.constant('truncate'), at: fc.nat() }),
    fc.record({ kind: fc.constant('insert'), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 8 }) }),
    fc.record({
      kind: fc.constant('int'),
      at: fc.nat(),
      value: fc.constantFrom(0, 1, 2, 7, 255, 0x7fffffff, 0xffffffff, 2 ** 40, 2 ** 53 - 1, 2 ** 64 - 1),
    }),
  );
  return fc.array(edit, { minLength: 1, maxLength: 4 }).map((edits) => {
    let b = sample.slice();
    for (const e of edits) {
      const at = b.length === 0 ? 0 : e.at % (b.length + 1);
      if (e.kind === 'set' && at < b.length) b[at] = e.value;
      else if (e.kind === 'truncate') b = b.slice(0, at);
      else if (e.kind === 'insert') b = concat([b.slice(0, at), e.bytes, b.slice(at)]);
      else if (e.kind === 'int') {
        const v = le64(BigInt.asUintN(64, BigInt(e.value)));
        for (let i = 0; i < 8 && at + i < b.length; i++) b[at + i] = v[i];
      }
    }
    return b;
  });
}

export function bytesArbitrary(sample) {
  return fc.oneof(
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 96 }) },
    { weight: 4, arbitrary: mutatedBytes(sample) },
  );
}

/** Text inputs: arbitrary strings, JSON-ish structures, and edits of valid activations. */
export const textArbitrary = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.json({ maxDepth: 3 }),
  fc
    .tuple(
      fc.array(
        fc.array(fc.oneof(fc.double(), fc.constantFrom('NaN', 'inf', '-Infinity', '1e39', '0x10', '')), {
          minLength: 0,
          maxLength: 4,
        }),
        { maxLength: 4 },
      ),
      fc.constantFrom('json', 'shape', 'text', 'csv'),
    )
    .map(([rows, style]) => {
      const cells = rows.map((r) => r.map((v) => (typeof v === 'number' ? String(v) : v)));
      if (style === 'json') return `[${cells.map((r) => `[${r.join(',')}]`).join(',')}]`;
      if (style === 'shape')
        return JSON.stringify({ shape: [cells.length, cells[0]?.length ?? 0], data: cells.flat() });
      return cells.map((r) => r.join(style === 'csv' ? ',' : ' ')).join('\n');
    }),
  fc.tuple(fc.string({ maxLength: 40 }), fc.nat(), fc.string({ maxLength: 4 })).map(([s, at, ins]) => {
    const base = `[[1, 2, 3], [4.5, -6e-3, 7]]${s}`;
    const i = at % (base.length + 1);
    return base.slice(0, i) + ins + base.slice(i + 1);
  }),
);

/** Text nested up to 30,000 deep (beyond any engine's call stack): arrays or objects, closed or cut off. */
export const deepTextArbitrary = fc
  .record({
    depth: fc.integer({ min: 1, max: 30_000 }),
    open: fc.constantFrom('[', '{"a": ', '{"shape": [1], "data": [', '[1, '),
    closed: fc.boolean(),
    inner: fc.constantFrom('1', '', '"x"', '[]', 'NaN'),
  })
  .map(({ depth, open, closed, inner }) => {
    const close = open.startsWith('{"shape"') ? ']}' : open.startsWith('{') ? '}' : ']';
    return open.repeat(depth) + inner + (closed ? close.repeat(depth) : '');
  });

/** .npy files whose header nests brackets n deep in the shape, the dtype or fortran_order. */
export function deepNpyArbitrary() {
  return fc
    .record({
      depth: fc.integer({ min: 1, max: 30_000 }),
      key: fc.constantFrom('shape', 'descr', 'fortran_order'),
      open: fc.constantFrom('(', '[', '{'),
      closed: fc.boolean(),
    })
    .map(({ depth, key, open, closed }) => {
      const close = { '(': ')', '[': ']', '{': '}' }[open];
      const nested = open.repeat(depth) + (closed ? close.repeat(depth) : '');
      const fields = { descr: "'<f4'", fortran_order: 'False', shape: '(1,)', [key]: nested };
      const dict = `{'descr': ${fields.descr}, 'fortran_order': ${fields.fortran_order}, 'shape': ${fields.shape}, }`;
      const header = utf8(dict + '\n');
      return concat([NPY_MAGIC, Uint8Array.of(2, 0), le32(header.length), header, new Uint8Array(4)]);
    });
}

/** Mostly mutations of a valid file, now and then one nested too deep (when the format has such input). */
export function mutatedOrDeep(sample, deep) {
  return fc.oneof({ weight: 4, arbitrary: bytesArbitrary(sample) }, { weight: 1, arbitrary: deep });
}

/** What the text parsers get: mostly text of the right shape, now and then nested too deep. */
export const textInputs = fc.oneof(
  { weight: 12, arbitrary: textArbitrary },
  { weight: 1, arbitrary: deepTextArbitrary },
);
