import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parse as npyjsParse } from 'npyjs';
import { FormatError, loadLayerNormWeights, readNpy, writeNpy } from '../../web/src/io/index.js';
import { rawNpy, rng } from './fixtures.js';

const SEED = 20261130;

function randomArray(n: number, seed: number): Float32Array {
  const r = rng(seed);
  return Float32Array.from({ length: n }, () => (r() - 0.5) * 1000);
}

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

  it('loads in NumPy when NumPy is installed', () => {
    let hasNumpy = false;
    try {
      execFileSync('python3', ['-c', 'import numpy'], { stdio: 'ignore' });
      hasNumpy = true;
    } catch {
      // NumPy is optional on test machines; npyjs above is the always-on check.
    }
    if (!hasNumpy) return;
    const dir = mkdtempSync(join(tmpdir(), 'npy-'));
    const data = randomArray(12, SEED);
    writeFileSync(join(dir, 'a.npy'), writeNpy(data, [3, 4]));
    const out = execFileSync('python3', [
      '-c',
      `import numpy as n;a=n.load(${JSON.stringify(join(dir, 'a.npy'))});print(a.dtype,a.shape,repr(float(a[2,3])))`,
    ]);
    expect(out.toString().trim()).toBe(`float32 (3, 4) ${JSON.stringify(data[11])}`.replace(/"/g, ''));
  });

  it('rejects a shape that does not match the data', () => {
    expect(() => writeNpy(new Float32Array(5), [2, 3])).toThrow(RangeError);
    expect(() => writeNpy(new Float32Array(5), [2, 3])).toThrow('shape [2, 3] holds 6 values, data has 5');
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

  it('reads the layout np.save writes for a 1-D float32 array', () => {
    // The byte layout NumPy 1.x produces for np.save(np.arange(3, dtype='<f4')), written out by hand.
    const header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
    const file = rawNpy(header, new Uint8Array(Float32Array.of(0, 1, 2).buffer));
    expect(readNpy(file)).toEqual({ data: Float32Array.of(0, 1, 2), shape: [3], dtype: 'float32' });
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
