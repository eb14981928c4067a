/** Data builders and float64 math for the browser tests (independent of the package under test). */

export const D = 768;

/** float64 LayerNorm over the last axis (the test's own oracle). */
export function layerNorm64(
  x: ArrayLike<number>,
  d: number,
  gamma: ArrayLike<number> | null,
  beta: ArrayLike<number> | null,
  eps = 1e-5,
): { y: Float64Array; mean: Float64Array; variance: Float64Array } {
  const rows = x.length / d;
  const y = new Float64Array(x.length);
  const mean = new Float64Array(rows);
  const variance = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let j = 0; j < d; j++) s += x[r * d + j]!;
    const m = s / d;
    let v = 0;
    for (let j = 0; j < d; j++) v += (x[r * d + j]! - m) ** 2;
    v /= d;
    mean[r] = m;
    variance[r] = v;
    const rs = 1 / Math.sqrt(v + eps);
    for (let j = 0; j < d; j++) {
      y[r * d + j] = (x[r * d + j]! - m) * rs * (gamma ? gamma[j]! : 1) + (beta ? beta[j]! : 0);
    }
  }
  return { y, mean, variance };
}

/** Seeded activations in float32: N(0,1)-ish plus one large channel, row-dependent. */
export function testActivations(rows: number, d = D, seed = 1): Float32Array {
  let s = seed >>> 0;
  const u = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const x = new Float32Array(rows * d);
  for (let i = 0; i < x.length; i++) x[i] = (u() + u() + u() - 1.5) * 2;
  for (let r = 0; r < rows; r++) x[r * d + (447 % d)] = 50 * (r + 1);
  return x;
}

export function npy(data: Float32Array | Float64Array, shape: number[]): Buffer {
  const descr = data instanceof Float64Array ? '<f8' : '<f4';
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(', ');
  let h = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  h += ' '.repeat((64 - ((10 + h.length + 1) % 64)) % 64) + '\n';
  const head = Buffer.alloc(10 + h.length);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(h.length, 8);
  head.write(h, 10, 'latin1');
  return Buffer.concat([head, Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}

export function parseNpy(buf: Buffer): { data: Float32Array; shape: number[] } {
  if (buf.subarray(0, 6).toString('latin1') !== '\x93NUMPY') throw new Error('not an npy file');
  const major = buf[6]!;
  const hl = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const h = buf.subarray(start, start + hl).toString('latin1');
  if (!h.includes("'<f4'")) throw new Error(`unexpected dtype in ${h}`);
  const shape = /'shape': \(([^)]*)\)/
    .exec(h)![1]!
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  const body = buf.subarray(start + hl);
  const copy = new Uint8Array(body.length);
  copy.set(body);
  return { data: new Float32Array(copy.buffer), shape };
}

/** Largest |a − b| / (1 + |b|): absolute error for small values, relative for large ones. */
export function maxRelErr(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < b.length; i++) {
    const e = Math.abs(a[i]! - b[i]!) / (1 + Math.abs(b[i]!));
    if (!(e <= worst)) worst = e;
  }
  return worst;
}

export function toText(x: Float32Array, d: number): string {
  const lines: string[] = [];
  for (let r = 0; r < x.length / d; r++)
    lines.push(Array.from(x.subarray(r * d, r * d + d), (v) => String(v)).join(' '));
  return lines.join('\n');
}
