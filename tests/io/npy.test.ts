import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parse as npyjsParse } from 'npyjs';
import {
  decodeNpyData,
  FormatError,
  loadLayerNormWeights,
  readNpy,
  readNpyHeader,
  writeNpy,
  writeNpyHeader,
} from '../../web/src/io/index.js';
import { rejection, thrown } from '../helpers/errors.js';
import { rawNpy } from '../kit/checkpoints/index.mjs';
import { rng } from '../kit/random.mjs';

const SEED = 20261130;

function randomArray(n: number, seed: number): Float32Array {
  const r = rng(seed);
  return Float32Array.from({ length: n }, () => (r() - 0.5) * 1000);
}

/** A Python with NumPy: `python3` on PATH, else Debian's (python3-numpy installs there). */
function findNumpyPython(): string | null {
  for (const python of ['python3', '/usr/bin/python3']) {
    try {
      execFileSync(python, ['-c', 'import numpy'], { stdio: 'ignore' });
      return python;
    } catch {
      // try the next one
    }
  }
  return null;
}
const numpyPython = findNumpyPython();

function expectFormatError(fn: () => unknown, ...fragments: string[]): FormatError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(FormatError);
  for (const f of fragments) expect((caught as Error).message).toContain(f);
  return caught as FormatError;
}

describe('writeNpy', () => {
  it('writes a v1.0 header padded to 64 bytes ending in a newline', () => {
    const bytes = writeNpy(new Float32Array(6), [2, 3]);
    const headerLength = bytes[8]! | (bytes[9]! << 8);
    expect(Array.from(bytes.subarray(0, 8))).toEqual([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
    expect((10 + headerLength) % 64).toBe(0);
    const header = new TextDecoder().decode(bytes.subarray(10, 10 + headerLength));
    expect(header.endsWith('\n')).toBe(true);
    expect(header.trimEnd()).toBe("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
    expect(bytes.length).toBe(10 + headerLength + 24);
    expect(new TextDecoder().decode(writeNpy(new Float32Array(5), [5]).subarray(10, 70))).toContain("'shape': (5,)");
  });

  it('writeNpyHeader is the file without its data, for writers that stream the data', () => {
    const data = randomArray(12, SEED);
    const whole = writeNpy(data, [3, 4]);
    const header = writeNpyHeader([3, 4]);
    expect(Array.from(header)).toEqual(Array.from(whole.subarray(0, header.length)));
    expect(whole.length - header.length).toBe(48);
    const negative = thrown(() => writeNpyHeader([2, -1]));
    expect(negative.constructor).toBe(RangeError);
    expect(negative.message).toBe('writeNpyHeader: shape[1] must be an integer >= 0, got number -1');
  });

  it('round-trips through npyjs (a parser written elsewhere), seed ' + SEED, () => {
    for (const shape of [[7], [3, 5], [2, 4, 768], [1, 1], [0, 4]]) {
      const n = shape.reduce((a, b) => a * b, 1);
      const data = randomArray(n, SEED + n);
      const bytes = writeNpy(data, shape);
      const parsed = npyjsParse(
        bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
      );
      expect(parsed.dtype).toBe('f4');
      expect(parsed.shape).toEqual(shape);
      expect(parsed.fortranOrder).toBe(false);
      expect(Array.from(parsed.data as Float32Array)).toEqual(Array.from(data));
      const back = readNpy(bytes);
      expect(back.shape).toEqual(shape);
      expect(back.dtype).toBe('float32');
      expect(Array.from(back.data)).toEqual(Array.from(data));
    }
  });

  // `npm test` installs NumPy (Debian's python3-numpy) when run as root; elsewhere this is
  // reported as skipped, and npyjs above is the always-on check.
  it.skipIf(numpyPython === null)('loads in NumPy (python3 with numpy; skipped without it)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'npy-'));
    const data = randomArray(12, SEED);
    writeFileSync(join(dir, 'a.npy'), writeNpy(data, [3, 4]));
    const out = execFileSync(numpyPython!, [
      '-c',
      `import numpy as n;a=n.load(${JSON.stringify(join(dir, 'a.npy'))});print(a.dtype,a.shape,repr(float(a[2,3])))`,
    ]);
    expect(out.toString().trim()).toBe(`float32 (3, 4) ${JSON.stringify(data[11])}`.replace(/"/g, ''));
  });

  it('rejects a shape that does not match the data', () => {
    const e = thrown(() => writeNpy(new Float32Array(5), [2, 3]));
    expect(e.constructor).toBe(RangeError);
    expect(e.message).toBe('writeNpy: data must have 6 values (the product of shape [2, 3]), got 5');
  });

  it('a shape with a 0 holds no values whatever its other dimensions; one past 2^53 values says so', async () => {
    // 24 dimensions of 2^53 - 1 multiply to Infinity, and Infinity × 0 would be NaN values.
    const empty = [...new Array<number>(24).fill(Number.MAX_SAFE_INTEGER), 0];
    const file = writeNpy(new Float32Array(0), empty);
    expect((await readNpy(file)).data.length).toBe(0);
    const e = thrown(() => writeNpy(new Float32Array(1), [2 ** 31, 2 ** 32]));
    expect(e.constructor).toBe(RangeError);
    expect(e.message).toBe(
      'writeNpy: data must have more than 2^53 values (the product of shape [2147483648, 4294967296]), got 1',
    );
  });
});

describe('readNpy', () => {
  const f64 = (values: number[]) => new Uint8Array(Float64Array.from(values).buffer);
  const f16 = (codes: number[]) => new Uint8Array(Uint16Array.from(codes).buffer);

  it('reads float64 (rounded once to float32) and float16 (exact)', () => {
    const a = readNpy(rawNpy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", f64([0.1, -2, 1e300, 3])));
    expect(a.dtype).toBe('float64');
    expect(a.shape).toEqual([2, 2]);
    expect(Array.from(a.data)).toEqual([Math.fround(0.1), -2, Infinity, 3]);
    const b = readNpy(
      rawNpy("{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }", f16([0x3c00, 0x0001, 0xfc00])),
    );
    expect(b.dtype).toBe('float16');
    expect(Array.from(b.data)).toEqual([1, 2 ** -24, -Infinity]);
  });

  it('reads version 2.0 headers and unaligned data', () => {
    const bytes = rawNpy(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
      new Uint8Array(Float32Array.of(1.5, -7).buffer),
      2,
    );
    const shifted = new Uint8Array(bytes.length + 1).subarray(1);
    shifted.set(bytes);
    expect(Array.from(readNpy(shifted).data)).toEqual([1.5, -7]);
  });

  it('names each malformed file clearly', () => {
    const data = new Uint8Array(Float32Array.of(1, 2, 3, 4).buffer);
    const dict = (descr: string, fortran = 'False', shape = '(4,)') =>
      `{'descr': '${descr}', 'fortran_order': ${fortran}, 'shape': ${shape}, }`;
    const bad = new Uint8Array(80);
    bad.set([0x50, 0x4b, 3, 4]);
    expectFormatError(
      () => readNpy(bad, 'x.npy'),
      'x.npy: invalid npy',
      'magic bytes 93 4e 55 4d 50 59',
      'got 50 4b 03 04 00 00',
    );
    expectFormatError(
      () => readNpy(rawNpy(dict('<f4', 'True', '(2, 2)'), data)),
      'expected C order',
      'fortran_order: true',
      'np.ascontiguousarray',
    );
    expectFormatError(() => readNpy(rawNpy(dict('>f4'), data)), "big-endian '>f4'", "astype('<f4')");
    expectFormatError(() => readNpy(rawNpy(dict('|O'), data)), "object dtype '|O'");
    expectFormatError(() => readNpy(rawNpy(dict('<i4'), data)), "expected dtype '<f4', '<f8' or '<f2', got '<i4'");
    expectFormatError(
      () => readNpy(rawNpy(dict('<f4', 'False', '(5,)'), data)),
      'shape (5) of float32 needs 20 data bytes, the file has 16',
    );
    expectFormatError(
      () => readNpy(rawNpy(dict('<f4', 'False', '(3,)'), data)),
      'needs 12 data bytes, the file has 16',
    );
    expectFormatError(
      () => readNpy(rawNpy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }", data)),
      'structured dtype',
    );
    expectFormatError(
      () => readNpy(rawNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (4,", data)),
      'the header ends before its dict is closed',
    );
    expectFormatError(() => readNpy(new Uint8Array(4)), 'magic bytes');
  });

  it('refuses a header too short to hold a dict, from memory and through a byte source', async () => {
    for (const length of [0, 1]) {
      const file = new Uint8Array(16);
      file.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, length, 0]);
      const message = `expected a header dict after the 10-byte preamble, got a header length of ${length}`;
      const direct = thrown(() => readNpy(file, 'x.npy'));
      expect(direct).toBeInstanceOf(FormatError);
      expect(direct.message).toBe(`x.npy: invalid npy: ${message}`);
      // Each started when awaited: one left waiting while the other rejects would be an unhandled rejection.
      for (const loading of [() => loadLayerNormWeights(file), () => readNpyHeader(new Blob([file]))]) {
        const error = await rejection(loading());
        expect(error).toBeInstanceOf(FormatError);
        expect(error.message).toContain(message);
      }
    }
  });

  it('parses a header of a million brackets without recursion: a FormatError, not a stack overflow', () => {
    const dict = `{'descr': '<f4', 'fortran_order': False, 'shape': ${'('.repeat(1_000_000)}`;
    const error = thrown(() => readNpy(rawNpy(dict, new Uint8Array(0), 2), 'deep.npy'));
    expect(error).toBeInstanceOf(FormatError);
    expect(error.message).toBe('deep.npy: invalid npy: the header ends before its dict is closed');
    const nested = thrown(() =>
      readNpy(
        rawNpy(
          `{'descr': '<f4', 'fortran_order': False, 'shape': ${'['.repeat(50_000)}${']'.repeat(50_000)}, }`,
          new Uint8Array(0),
          2,
        ),
      ),
    );
    expect(nested).toBeInstanceOf(FormatError);
    expect(nested.message).toBe(
      'npy data: invalid npy: expected the shape to be a tuple of non-negative integers, got [[[…]]]',
    );
  });

  it('takes dtype names from the file as data, not as property names', () => {
    for (const descr of ['constructor', '__proto__', 'toString']) {
      const error = thrown(() =>
        readNpy(rawNpy(`{'descr': '${descr}', 'fortran_order': False, 'shape': (1,), }`, new Uint8Array(4))),
      );
      expect(error).toBeInstanceOf(FormatError);
      expect(error.message).toBe(
        `npy data: invalid npy: expected dtype '<f4', '<f8' or '<f2', got '${descr}'; convert with a.astype('<f4')`,
      );
    }
    const proto = thrown(() =>
      readNpy(rawNpy("{'__proto__': {'descr': '<f4', 'fortran_order': False, 'shape': (1,)}}", new Uint8Array(4))),
    );
    expect(proto.message).toContain('got a structured dtype undefined');
  });

  it('takes bytes only', () => {
    const error = thrown(() => readNpy(5 as unknown as Uint8Array));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('readNpy: input must be a Uint8Array or ArrayBuffer, got number 5');
  });

  it('reads the layout np.save writes for a 1-D float32 array', () => {
    // The byte layout NumPy 1.x produces for np.save(np.arange(3, dtype='<f4')), written out by hand.
    const header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
    const file = rawNpy(header, new Uint8Array(Float32Array.of(0, 1, 2).buffer));
    expect(readNpy(file)).toEqual({ data: Float32Array.of(0, 1, 2), shape: [3], dtype: 'float32' });
  });
});

describe('readNpyHeader and decodeNpyData: a .npy read in slices', () => {
  const f16 = (codes: number[]) => new Uint8Array(Uint16Array.from(codes).buffer);

  it('reads the header of a float16 file from a Blob, then any slice of its data', async () => {
    const codes = Array.from({ length: 6 * 4 }, (_, i) => 0x3c00 + i); // 1, 1.0009765625, …
    const file = rawNpy("{'descr': '<f2', 'fortran_order': False, 'shape': (6, 4), }", f16(codes));
    const header = await readNpyHeader(new File([file], 'x16.npy'));
    expect(header).toEqual({ dtype: 'float16', shape: [6, 4], dataOffset: file.length - 48, itemSize: 2, count: 24 });
    const rows2to3 = file.subarray(header.dataOffset + 2 * 4 * 2, header.dataOffset + 4 * 4 * 2);
    expect(Array.from(decodeNpyData(rows2to3, header.dtype, 8))).toEqual(
      codes.slice(8, 16).map((c) => 1 + (c - 0x3c00) / 1024),
    );
  });

  it('reads a version 2.0 header longer than the first 4 KB', async () => {
    const dict = `{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'note': '${'x'.repeat(6000)}', }`;
    const header = await readNpyHeader(rawNpy(dict, new Uint8Array(8), 2));
    expect([header.dtype, header.shape, header.dataOffset]).toEqual(['float32', [2], 6144]);
  });

  it('checks the file size against the header, naming the file', async () => {
    const file = rawNpy("{'descr': '<f2', 'fortran_order': False, 'shape': (6, 4), }", new Uint8Array(40));
    const error = await rejection(readNpyHeader(new File([file], 'cut.npy')));
    expect(error).toBeInstanceOf(FormatError);
    expect(error.message).toBe(
      'cut.npy (168 bytes): invalid npy: shape (6, 4) of float16 needs 48 data bytes, the file has 40',
    );
  });

  it('decodeNpyData rejects a count the bytes do not hold and an unknown dtype', () => {
    const count = thrown(() => decodeNpyData(new Uint8Array(6), 'float32', 2));
    expect(count.constructor).toBe(RangeError);
    expect(count.message).toBe(
      'decodeNpyData: count must be an integer from 0 to 1 (the float32 values in 6 bytes), got number 2',
    );
    // A dtype is a name from a fixed set: another name is a TypeError, like a wrong type.
    const dtype = thrown(() => decodeNpyData(new Uint8Array(8), 'int8' as 'float32', 2));
    expect(dtype.constructor).toBe(TypeError);
    expect(dtype.message).toBe(`decodeNpyData: dtype must be 'float32', 'float64' or 'float16', got string "int8"`);
  });
});

describe('loadLayerNormWeights: .npy weights', () => {
  const gamma = randomArray(8, SEED + 1);
  const beta = randomArray(8, SEED + 2);

  it('loads a { gamma, beta } pair of .npy files, and a lone gain', async () => {
    const pair = await loadLayerNormWeights({ gamma: writeNpy(gamma, [8]), beta: new Blob([writeNpy(beta, [8])]) });
    expect(pair.gamma).toEqual(gamma);
    expect(pair.beta).toEqual(beta);
    expect([pair.d, pair.format, pair.dtype]).toEqual([8, 'npy', 'float32']);
    expect(pair.names).toEqual({ weight: 'Uint8Array (160 bytes)', bias: 'Blob (160 bytes)' });
    expect(pair.bytesRead).toBe(320);
    const lone = await loadLayerNormWeights(writeNpy(gamma, [8]));
    expect(lone.beta).toBeNull();
    expect(lone.gamma).toEqual(gamma);
    const f64 = await loadLayerNormWeights({
      gamma: rawNpy(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
        new Uint8Array(Float64Array.of(0.1, 2).buffer),
      ),
    });
    expect(Array.from(f64.gamma)).toEqual([Math.fround(0.1), 2]);
    expect(f64.dtype).toBe('float64');
  });

  it('rejects mismatched lengths, matrices and truncated data', async () => {
    const mismatch = loadLayerNormWeights({ gamma: writeNpy(gamma, [8]), beta: writeNpy(beta.subarray(0, 7), [7]) });
    await expect(mismatch).rejects.toThrow(FormatError);
    await expect(mismatch).rejects.toThrow(
      'Uint8Array (160 bytes): invalid npy: gamma has 8 values but beta (Uint8Array (156 bytes)) has 7; expected equal lengths',
    );
    await expect(loadLayerNormWeights({ gamma: writeNpy(gamma, [2, 4]) })).rejects.toThrow(
      'expected a vector of shape (d,), got shape (2, 4)',
    );
    await expect(loadLayerNormWeights({ gamma: writeNpy(gamma, [8]).subarray(0, 150) })).rejects.toThrow(
      'shape (8,) of float32 needs 32 data bytes, the file has 22',
    );
  });
});
