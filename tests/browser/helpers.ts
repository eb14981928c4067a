/** Data builders and float64 math for the browser tests (independent of the package under test). */
import type { Route } from '@playwright/test';

export const D = 768;

/** Deterministic ln_f weights for the fixture checkpoint. */
export function fixtureWeights(d = D): { gamma: Float32Array; beta: Float32Array } {
  const gamma = new Float32Array(d);
  const beta = new Float32Array(d);
  for (let j = 0; j < d; j++) {
    gamma[j] = 1 + 0.5 * Math.sin(j * 0.37);
    beta[j] = 0.1 * Math.cos(j * 0.11);
  }
  return { gamma, beta };
}

/**
 * A checkpoint with GPT-2's safetensors layout: embeddings first (the bulk of the file), a block's
 * tensors, and ln_f last, little-endian float32, header padded to 8 bytes.
 */
export function gpt2Safetensors(opts: { vocabRows?: number; d?: number } = {}): Buffer {
  const d = opts.d ?? D;
  const vocab = opts.vocabRows ?? 4096;
  const { gamma, beta } = fixtureWeights(d);
  const tensors: [string, number[], Float32Array | null][] = [
    ['wte.weight', [vocab, d], null],
    ['wpe.weight', [64, d], null],
    ['h.0.ln_1.weight', [d], new Float32Array(d).fill(1)],
    ['h.0.ln_1.bias', [d], new Float32Array(d)],
    ['ln_f.bias', [d], beta],
    ['ln_f.weight', [d], gamma],
  ];
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 4;
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + json.length) % 8)) % 8);
  const out = Buffer.alloc(8 + json.length + offset);
  out.writeBigUInt64LE(BigInt(json.length), 0);
  out.write(json, 8, 'latin1');
  let pos = 8 + json.length;
  for (const [, shape, data] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 4;
    if (data) Buffer.from(data.buffer, data.byteOffset, data.byteLength).copy(out, pos);
    else for (let i = 0; i < bytes; i += 4) out.writeFloatLE(((i / 4) % 97) / 97 - 0.5, pos + i);
    pos += bytes;
  }
  return out;
}

/** Serves `file` like a CDN that honours single byte ranges; counts the bytes it sent. */
export function rangeServer(file: Buffer) {
  const stats = { bytesServed: 0, requests: 0 };
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-allow-headers': '*',
    'access-control-expose-headers': 'Content-Range, Content-Length, Accept-Ranges, ETag',
  };
  const handler = async (route: Route) => {
    const req = route.request();
    if (req.method() === 'OPTIONS') return route.fulfill({ status: 204, headers: cors });
    stats.requests++;
    const range = (await req.allHeaders())['range'];
    const m = range ? /^bytes=(\d+)-(\d*)$/.exec(range) : null;
    if (!m) {
      stats.bytesServed += file.length;
      return route.fulfill({ status: 200, body: file, headers: { ...cors, 'accept-ranges': 'bytes' } });
    }
    const start = Number(m[1]);
    const end = Math.min(m[2] ? Number(m[2]) : file.length - 1, file.length - 1);
    const body = file.subarray(start, end + 1);
    stats.bytesServed += body.length;
    return route.fulfill({
      status: 206,
      body,
      headers: {
        ...cors,
        'accept-ranges': 'bytes',
        'content-type': 'application/octet-stream',
        'content-range': `bytes ${start}-${end}/${file.length}`,
      },
    });
  };
  return { handler, stats };
}

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
