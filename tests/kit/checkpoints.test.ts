// The kit's checkpoint writers write each format as its own reference writer does: .npy byte for
// byte as NumPy's np.save (where a Python with NumPy is found), safetensors and GGUF read back by
// hand here, field by field.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { buildGguf, buildSafetensors, f32Bytes, npy, npyHeader, toBytes } from './checkpoints/index.mjs';

/** A Python that imports NumPy (Debian's python3-numpy installs for /usr/bin/python3), or null. */
function numpyPython(): string | null {
  for (const python of ['python3', '/usr/bin/python3']) {
    try {
      execFileSync(python, ['-c', 'import numpy'], { stdio: 'ignore' });
      return python;
    } catch {
      // try the next
    }
  }
  return null;
}
const python = numpyPython();

describe('npy', () => {
  it.skipIf(python === null)('writes what np.save writes, for float32, float64 and float16 (needs NumPy)', () => {
    const script = [
      'import io, sys, numpy as n',
      'for dt, shape in [("<f4", (4,)), ("<f4", (2, 3)), ("<f8", (1, 3, 1, 4)), ("<f2", (5,)), ("<f4", (0,))]:',
      '  a = n.arange(int(n.prod(shape)), dtype=dt).reshape(shape); b = io.BytesIO(); n.save(b, a)',
      '  sys.stdout.write(b.getvalue().hex() + "\\n")',
    ].join('\n');
    const saved = execFileSync(python!, ['-c', script], { encoding: 'utf8' }).trim().split('\n');
    const range = (n: number) => Array.from({ length: n }, (_, i) => i);
    const float16 = Uint16Array.of(0x0000, 0x3c00, 0x4000, 0x4200, 0x4400); // 0, 1, 2, 3, 4
    const ours = [
      npy(Float32Array.from(range(4)), [4]),
      npy(Float32Array.from(range(6)), [2, 3]),
      npy(Float64Array.from(range(12)), [1, 3, 1, 4]),
      npy(float16, [5]),
      npy(new Float32Array(0), [0]),
    ].map((b) => Buffer.from(b).toString('hex'));
    expect(ours).toEqual(saved);
  });

  it('pads the header to 64 bytes with a newline last; npyHeader is the file without its data', () => {
    const file = npy(Float32Array.of(1, 2, 3, 4, 5, 6), [2, 3]);
    expect(file.length).toBe(128 + 24);
    expect(new TextDecoder().decode(file.subarray(10, 128))).toBe(
      `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.padEnd(117, ' ') + '\n',
    );
    expect(Array.from(npyHeader([2, 3]))).toEqual(Array.from(file.subarray(0, 128)));
    expect(new Float32Array(file.slice(128).buffer)).toEqual(Float32Array.of(1, 2, 3, 4, 5, 6));
  });
});

describe('safetensors', () => {
  it('an 8-byte length, a JSON header padded to 8 bytes, tensors back to back; holes read as zeros', () => {
    const gamma = Float32Array.of(1, 2, 3);
    const built = buildSafetensors([
      { name: 'b', dtype: 'BF16', shape: [2, 2] },
      { name: 'a', dtype: 'F32', shape: [3], data: f32Bytes(gamma) },
    ]);
    const bytes = toBytes(built.file);
    const length = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect(length % 8).toBe(0);
    expect(length).toBe(built.headerLength);
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + length)));
    expect(header).toEqual({
      __metadata__: { format: 'pt' },
      b: { dtype: 'BF16', shape: [2, 2], data_offsets: [0, 8] },
      a: { dtype: 'F32', shape: [3], data_offsets: [8, 20] },
    });
    expect(bytes.length).toBe(8 + length + 20);
    expect(built.ranges.get('a')).toEqual([8 + length + 8, 8 + length + 20]);
    expect(Array.from(bytes.subarray(8 + length, 8 + length + 8))).toEqual(new Array(8).fill(0));
    expect(new Float32Array(bytes.slice(8 + length + 8).buffer)).toEqual(gamma);
  });
});

describe('GGUF', () => {
  it('magic, version, counts, metadata, tensor infos, and each tensor at an aligned offset', () => {
    const data = (n: number) => f32Bytes(Float32Array.from({ length: n }, (_, i) => i + 1));
    const file = buildGguf(
      [['general.architecture', { type: 'string', value: 'gpt2' }]],
      [
        { name: 'w', dims: [3], type: 0, data: data(3) },
        { name: 'v', dims: [2], type: 0, data: data(2) },
      ],
      { alignment: 16 },
    );
    const view = new DataView(file.buffer);
    let at = 0;
    const u32 = () => ((at += 4), view.getUint32(at - 4, true));
    const u64 = () => ((at += 8), Number(view.getBigUint64(at - 8, true)));
    const str = () => {
      const n = u64();
      at += n;
      return new TextDecoder().decode(file.subarray(at - n, at));
    };
    expect(new TextDecoder().decode(file.subarray(0, 4))).toBe('GGUF');
    at = 4;
    expect([u32(), u64(), u64()]).toEqual([3, 2, 1]);
    expect([str(), u32(), str()]).toEqual(['general.architecture', 8, 'gpt2']);
    const infos = [0, 1].map(() => ({ name: str(), dims: [u32(), u64()], type: u32(), offset: u64() }));
    expect(infos).toEqual([
      { name: 'w', dims: [1, 3], type: 0, offset: 0 },
      { name: 'v', dims: [1, 2], type: 0, offset: 16 },
    ]);
    const start = Math.ceil(at / 16) * 16;
    expect(new Float32Array(file.slice(start, start + 12).buffer)).toEqual(Float32Array.of(1, 2, 3));
    expect(new Float32Array(file.slice(start + 16, start + 24).buffer)).toEqual(Float32Array.of(1, 2));
    expect(file.length).toBe(start + 32);
  });
});
