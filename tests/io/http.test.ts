import { mkdtempSync, openSync, closeSync, writeSync, ftruncateSync, rmSync, openAsBlob } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FetchError,
  FormatError,
  GPT2_SAFETENSORS_URL,
  loadLayerNormWeights,
  openByteSource,
} from '../../web/src/io/index.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { rejection, thrown } from '../helpers/errors.js';
import {
  buildSafetensors,
  f32Bytes,
  gpt2Gguf,
  gpt2Safetensors,
  lnfValues,
  npy,
  rawSafetensors,
  sparseFile,
  toBytes,
  u16Bytes,
} from '../kit/checkpoints/index.mjs';

const SEED = 548105;
const GPT2_SIZE_MIN = 548_000_000;

const plain = gpt2Safetensors(SEED);
const prefixed = gpt2Safetensors(SEED + 1, 'transformer.');
const gguf = gpt2Gguf(SEED + 2);
const small = lnfValues(SEED + 3, 64);
const smallFile = toBytes(
  buildSafetensors([
    { name: 'ln_f.bias', dtype: 'F32', shape: [64], data: f32Bytes(small.beta) },
    { name: 'ln_f.weight', dtype: 'F32', shape: [64], data: f32Bytes(small.gamma) },
  ]).file,
);
const f16File = toBytes(
  buildSafetensors([
    { name: 'ln_f.bias', dtype: 'BF16', shape: [3], data: u16Bytes(Uint16Array.of(0x0001, 0x8000, 0x7f80)) },
    { name: 'ln_f.weight', dtype: 'F16', shape: [3], data: u16Bytes(Uint16Array.of(0x0001, 0x3c00, 0xfc00)) },
  ]).file,
);

let server: FixtureServer;

beforeAll(async () => {
  server = await startFixtureServer({
    files: {
      'gpt2/model.safetensors': plain.file,
      'pt/model.safetensors': prefixed.file,
      'gpt2.gguf': gguf.bytes,
      'small.safetensors': smallFile,
      'f16.safetensors': f16File,
      'gamma.npy': npy(small.gamma, [64]),
      'beta.npy': npy(small.beta, [64]),
      'config.json': new TextEncoder().encode(JSON.stringify({ model_type: 'gpt2', layer_norm_epsilon: 1e-5 })),
    },
    slowDelayMs: 40,
    slowChunkBytes: 512,
  });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

describe('GPT-2 layout over HTTP', () => {
  it('the fixture has the real layout: 160 tensors, 548 MB', () => {
    expect(plain.ranges.size).toBe(160);
    expect(plain.file.size).toBeGreaterThan(GPT2_SIZE_MIN);
    expect(plain.ranges.get('wte.weight')![1] - plain.ranges.get('wte.weight')![0]).toBe(50257 * 768 * 4);
    expect(GPT2_SAFETENSORS_URL).toBe('https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors');
  });

  it('loads ln_f reading a few KB of a 548 MB file', async () => {
    const progress: Array<[number, number]> = [];
    const r = await loadLayerNormWeights(server.url('gpt2/model.safetensors'), {
      onProgress: (read, expected) => progress.push([read, expected]),
    });
    expect(r.gamma).toEqual(plain.gamma);
    expect(r.beta).toEqual(plain.beta);
    expect(r.names).toEqual({ weight: 'ln_f.weight', bias: 'ln_f.bias' });
    expect([r.d, r.dtype, r.format]).toEqual([768, 'F32', 'safetensors']);
    expect(r.source).toBe(server.url('gpt2/model.safetensors'));
    // 8-byte length + header + both tensors, fetched in three requests.
    expect(r.bytesRead).toBe(8 + plain.headerLength + 2 * 768 * 4);
    expect(r.bytesRead).toBeLessThan(32 * 1024);
    await server.idle();
    expect(server.bytesSent()).toBe(r.bytesRead);
    expect(server.requests.map((q) => q.range)).toEqual([
      'bytes=0-7',
      `bytes=8-${8 + plain.headerLength - 1}`,
      `bytes=${plain.ranges.get('ln_f.bias')![0]}-${plain.ranges.get('ln_f.weight')![1] - 1}`,
    ]);
    expect(progress.at(-1)).toEqual([r.bytesRead, r.bytesRead]);
    expect(progress.every(([read, expected]) => read <= expected)).toBe(true);
  });

  it('loads transformer.ln_f from a PyTorch-style export', async () => {
    const r = await loadLayerNormWeights(server.url('pt/model.safetensors'));
    expect(r.names).toEqual({ weight: 'transformer.ln_f.weight', bias: 'transformer.ln_f.bias' });
    expect(r.gamma).toEqual(prefixed.gamma);
    expect(r.bytesRead).toBeLessThan(32 * 1024);
  });

  it('follows redirects, as the Hub does to its CDN', async () => {
    const r = await loadLayerNormWeights(server.url('gpt2/model.safetensors', 'redirect'), { bias: null });
    expect(r.gamma).toEqual(plain.gamma);
    expect(r.beta).toBeNull();
    expect(server.requests.filter((q) => q.status === 302)).toHaveLength(3);
  });

  it('loads a GGUF and a .npy pair over HTTP', async () => {
    const g = await loadLayerNormWeights(server.url('gpt2.gguf'));
    expect(g.gamma).toEqual(gguf.gamma);
    expect(g.bytesRead).toBeLessThan(gguf.bytes.length / 2);
    const n = await loadLayerNormWeights({ gamma: server.url('gamma.npy'), beta: server.url('beta.npy') });
    expect(n.gamma).toEqual(small.gamma);
    expect(n.beta).toEqual(small.beta);
    expect(n.format).toBe('npy');
    expect(n.bytesRead).toBe(2 * (128 + 64 * 4));
  });

  it('converts F16/BF16 fetched over HTTP', async () => {
    const r = await loadLayerNormWeights(server.url('f16.safetensors'));
    expect(Array.from(r.gamma)).toEqual([2 ** -24, 1, -Infinity]);
    expect(Array.from(r.beta!)).toEqual([2 ** -133, -0, Infinity]);
  });
});

describe('which fetch is called, and how', () => {
  // A browser's fetch throws "Illegal invocation" when called as a method of anything but its
  // global; Node's ignores `this`. These fetches insist on a plain call as the browser's does.
  const nodeFetch = globalThis.fetch;
  const strictFetch = (calls: unknown[]) =>
    function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      calls.push(this);
      if (this !== undefined && this !== globalThis)
        throw new TypeError("Failed to execute 'fetch': Illegal invocation");
      return nodeFetch(input, init);
    };

  it('calls the global fetch as a plain function, for the checkpoint and its config.json', async () => {
    const calls: unknown[] = [];
    globalThis.fetch = strictFetch(calls) as typeof fetch;
    try {
      const r = await loadLayerNormWeights(server.url('gpt2/model.safetensors'), {
        config: server.url('config.json'),
      });
      expect([r.d, r.eps, r.architecture]).toEqual([768, 1e-5, 'gpt2']);
      expect(r.gamma).toEqual(plain.gamma);
    } finally {
      globalThis.fetch = nodeFetch;
    }
    expect(calls.length).toBeGreaterThanOrEqual(4);
    expect(calls.every((t) => t === undefined)).toBe(true);
  });

  it('calls options.fetch as a plain function too, so the global fetch itself may be passed', async () => {
    const calls: unknown[] = [];
    const r = await loadLayerNormWeights(server.url('small.safetensors'), {
      fetch: strictFetch(calls) as typeof fetch,
    });
    expect(r.gamma).toEqual(small.gamma);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.every((t) => t === undefined)).toBe(true);
  });
});

describe('HTTP failures', () => {
  it('refuses to download a 548 MB body from a server that ignores Range', async () => {
    const url = server.url('gpt2/model.safetensors', 'ignore-range');
    const error = await rejection(loadLayerNormWeights(url));
    expect(error).toBeInstanceOf(FetchError);
    expect(error.message).toContain(url);
    // The 8-byte length and the header come from the start of the body (then the stream is
    // cancelled); the tensors lie 390 MB in, so that read is refused.
    const [start] = plain.ranges.get('ln_f.bias')!;
    expect(error.message).toContain(`the server ignored the Range request for bytes ${start}-`);
    expect(error.message).toContain(`answered 200 with the whole ${plain.file.size}-byte file; reading up to byte`);
    expect(error.message).toContain('would download more than the 16777216-byte limit (maxWholeBodyBytes)');
    expect((error as FetchError).status).toBe(200);
    await server.idle();
    // Cancelled at once: at most what sat in socket buffers, not the file.
    expect(server.bytesSent()).toBeLessThan(16 * 1024 * 1024);
    expect(server.requests.map((q) => q.closedEarly)).toEqual([true, true, true]);
  });

  it('uses a small file from a server that ignores Range, downloading it once', async () => {
    const r = await loadLayerNormWeights(server.url('small.safetensors', 'ignore-range'));
    expect(r.gamma).toEqual(small.gamma);
    expect(r.bytesRead).toBe(smallFile.length);
    expect(server.requests).toHaveLength(1);
  });

  it('stops reading a 200 body once the needed prefix is in when the file is over the limit', async () => {
    const source = openByteSource(server.url('gpt2/model.safetensors', 'ignore-range'), { maxWholeBodyBytes: 1 << 20 });
    const first = await source.read(0, 8);
    expect(new DataView(first.buffer).getBigUint64(0, true)).toBe(BigInt(plain.headerLength));
    expect(source.size).toBe(plain.file.size);
    expect(source.bytesRead).toBeLessThan(256 * 1024);
    await server.idle();
    expect(server.bytesSent()).toBeLessThan(16 * 1024 * 1024);
  });

  it('names the URL and status for 404 and 500', async () => {
    const missing = server.url('gpt2/model.safetensors', 'not-found');
    const e404 = await rejection(loadLayerNormWeights(missing));
    expect(e404).toBeInstanceOf(FetchError);
    expect(e404.message).toBe(`${missing}: not found; expected 206 Partial Content for bytes 0-7 (HTTP 404)`);
    expect((e404 as FetchError).status).toBe(404);
    const e500 = await rejection(loadLayerNormWeights(server.url('small.safetensors', 'error')));
    expect(e500.message).toContain(
      'unexpected response Internal Server Error; expected 206 Partial Content for bytes 0-7 (HTTP 500)',
    );
  });

  it('detects a truncated body', async () => {
    const url = server.url('gpt2/model.safetensors', 'truncate');
    const error = await rejection(loadLayerNormWeights(url));
    expect(error).toBeInstanceOf(FetchError);
    expect(error.message).toMatch(/of 8 bytes for bytes 0-7 \(truncated body\) \(HTTP 206\)$/);
    expect(error.message.startsWith(url)).toBe(true);
  });

  it('checks Content-Range against the request', async () => {
    const error = await rejection(loadLayerNormWeights(server.url('small.safetensors', 'wrong-range')));
    expect(error).toBeInstanceOf(FetchError);
    expect(error.message).toContain(`asked for bytes 0-7, got Content-Range "bytes 1-8/${smallFile.length}"`);
  });

  it('refuses a Content-Range stating a size past 2^53 bytes', async () => {
    const url = server.url('small.safetensors', 'huge-size');
    const error = await rejection(loadLayerNormWeights(url));
    expect(error).toBeInstanceOf(FetchError);
    expect(error.message).toBe(
      `${url}: asked for bytes 0-7, got Content-Range "bytes 0-7/99999999999999999999": a size past 2^53 bytes, which no file has (HTTP 206)`,
    );
  });

  it('reports network errors with the URL', async () => {
    const closed = await startFixtureServer();
    const url = closed.url('x.safetensors');
    await closed.close();
    const error = await rejection(loadLayerNormWeights(url));
    expect(error).toBeInstanceOf(FetchError);
    expect(error.message).toBe(
      `${url}: network error or CORS refusal while requesting bytes 0-7 (a cross-origin server must allow the Range header)`,
    );
    expect((error as FetchError).status).toBeUndefined();
  });

  it('aborts a slow download through the AbortSignal: the transfer stops and nothing more is asked', async () => {
    const controller = new AbortController();
    let chunks = 0;
    // Abort once the header (the second request) has started to arrive, chunk by chunk.
    const error = await rejection(
      loadLayerNormWeights(server.url('gpt2/model.safetensors', 'slow'), {
        signal: controller.signal,
        onProgress: () => {
          if (++chunks === 2) controller.abort();
        },
      }),
    );
    expect(error.name).toBe('AbortError');
    await server.idle();
    expect(server.requests.map((q) => q.range)).toEqual(['bytes=0-7', `bytes=8-${8 + plain.headerLength - 1}`]);
    const header = server.requests[1]!;
    expect(header.closedEarly).toBe(true);
    expect(header.bytesSent).toBeLessThan(plain.headerLength);
  });

  it('reads through a slow server and reports progress chunk by chunk', async () => {
    const seen: number[] = [];
    const r = await loadLayerNormWeights(server.url('small.safetensors', 'slow'), {
      onProgress: (read) => seen.push(read),
    });
    expect(r.gamma).toEqual(small.gamma);
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.at(-1)).toBe(r.bytesRead);
  });

  it('accepts only http: and https: URLs', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/x.safetensors', 'data:,hello']) {
      const error = await rejection(loadLayerNormWeights(url));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toBe(
        `expected an http: or https: URL, got "${url}" (for a local file pass a Blob/File; in Node use await fs.openAsBlob(path))`,
      );
    }
    // In Node a bare path is not a URL at all (in a page it would resolve against the page's URL).
    const path = thrown(() => openByteSource('model.safetensors'));
    expect(path).toBeInstanceOf(TypeError);
    expect(path.message).toBe('expected an http: or https: URL, got "model.safetensors"');
  });

  it('explains a 206 whose Content-Range is hidden by CORS', async () => {
    const fakeFetch = (async () =>
      new Response(new Uint8Array(8), { status: 206, headers: { 'Content-Length': '8' } })) as typeof fetch;
    const error = await rejection(loadLayerNormWeights('https://example.org/m.safetensors', { fetch: fakeFetch }));
    expect(error).toBeInstanceOf(FetchError);
    expect(error.message).toBe(
      'https://example.org/m.safetensors: asked for bytes 0-7, got 206 without a readable Content-Range header ' +
        '(a cross-origin server must send Access-Control-Expose-Headers: Content-Range) (HTTP 206)',
    );
  });

  it('says so when a file is shorter than a read', async () => {
    server.addFile('tiny.bin', new Uint8Array(5));
    const error = await rejection(loadLayerNormWeights(server.url('tiny.bin')));
    expect(error).toBeInstanceOf(FetchError);
    expect(error.message).toBe(
      `${server.url('tiny.bin')}: asked for bytes 0-7 but the file is only 5 bytes (HTTP 206)`,
    );
  });

  it('refuses a header longer than the file before allocating it', async () => {
    server.addFile('lying.safetensors', rawSafetensors('', new Uint8Array(56), 1000));
    const error = await rejection(loadLayerNormWeights(server.url('lying.safetensors')));
    expect(error).toBeInstanceOf(FormatError);
    expect(error.message).toContain('header length 1000 bytes is larger than the 56 bytes after the length field');
  });
});

describe('HTTP bodies: compression and cancellation', () => {
  it('reads a file a server sends gzip-compressed in answer to a range request', async () => {
    const url = server.url('small.safetensors', 'gzip');
    const r = await loadLayerNormWeights(url);
    expect(r.gamma).toEqual(small.gamma);
    expect(r.beta).toEqual(small.beta);
    // Content-Length counted the compressed bytes, so it says nothing about the file's size.
    expect(server.requests[0]!.bytesSent).not.toBe(smallFile.length);
    const source = openByteSource(url);
    expect(Array.from(await source.read(smallFile.length - 4, 4))).toEqual(Array.from(smallFile.subarray(-4)));
    expect(source.size).toBeUndefined();
  });

  it('trusts the body over a Content-Length that counted compressed bytes (Content-Encoding hidden by CORS)', async () => {
    // What a browser shows a cross-origin script: the decoded body, the compressed length, and no
    // Content-Encoding unless the server exposes it.
    const compressed = gzipSync(smallFile).length;
    const fakeFetch = (async () =>
      new Response(smallFile, { status: 200, headers: { 'Content-Length': String(compressed) } })) as typeof fetch;
    const r = await loadLayerNormWeights('https://example.org/small.safetensors', { fetch: fakeFetch });
    expect(r.gamma).toEqual(small.gamma);
    expect(r.bytesRead).toBe(smallFile.length);
  });

  it('with a compressed body and no usable size, reads only the bytes asked for', async () => {
    const url = server.url('small.safetensors', 'gzip');
    const source = openByteSource(url, { maxWholeBodyBytes: 16 });
    expect(Array.from(await source.read(4, 8))).toEqual(Array.from(smallFile.subarray(4, 12)));
    expect(source.size).toBeUndefined();
    const error = await rejection(source.read(smallFile.length - 8, 16));
    expect(error).toBeInstanceOf(FetchError);
    expect(error.message).toBe(
      `${url}: the server ignored the Range request for bytes ${smallFile.length - 8}-${smallFile.length + 7} and ` +
        `answered 200 with the whole file; reading up to byte ${smallFile.length + 8} would download more than the ` +
        '16-byte limit (maxWholeBodyBytes) (HTTP 200)',
    );
  });

  it('refuses a 206 whose range counts compressed bytes', async () => {
    const fakeFetch = (async () =>
      new Response(new Uint8Array(8), {
        status: 206,
        headers: { 'Content-Range': 'bytes 0-7/100', 'Content-Encoding': 'gzip' },
      })) as typeof fetch;
    const error = await rejection(loadLayerNormWeights('https://example.org/m.safetensors', { fetch: fakeFetch }));
    expect(error).toBeInstanceOf(FetchError);
    expect(error.message).toBe(
      'https://example.org/m.safetensors: asked for bytes 0-7, got 206 with Content-Encoding "gzip", whose byte ' +
        "range counts compressed bytes, not the file's; the server must send ranges of the file as stored (HTTP 206)",
    );
  });

  it('cancels the body of a response whose size contradicts an earlier one', async () => {
    server.addFile('changing.bin', smallFile);
    const url = server.url('changing.bin', 'ignore-range');
    const source = openByteSource(url, { maxWholeBodyBytes: 64 });
    await source.read(0, 8);
    expect(source.size).toBe(smallFile.length);
    // The file is replaced by a 256 MB one: the next answer states another size.
    const big = sparseFile(256 << 20, []);
    server.addFile('changing.bin', big);
    const error = await rejection(source.read(8, 8));
    expect(error).toBeInstanceOf(FetchError);
    expect(error.message).toBe(
      `${url}: the file changed size between requests (${smallFile.length} bytes, now ${big.size}) (HTTP 200)`,
    );
    // The refused response was cancelled, so the server's send loop ends instead of stalling.
    await server.idle();
    const last = server.requests.at(-1)!;
    expect(last.closedEarly).toBe(true);
    expect(last.bytesSent).toBeLessThan(big.size);
    // Without the cancel, idle() never resolves and this test fails by its timeout.
  }, 30_000);
});

describe('local files through fs.openAsBlob', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lnw-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads ln_f from a sparse 548 MB file on disk without reading the file', async () => {
    const path = join(dir, 'model.safetensors');
    const fd = openSync(path, 'w');
    try {
      ftruncateSync(fd, plain.file.size);
      writeSync(fd, plain.file.slice(0, 8 + plain.headerLength), 0, 8 + plain.headerLength, 0);
      const [start] = plain.ranges.get('ln_f.bias')!;
      const [, end] = plain.ranges.get('ln_f.weight')!;
      writeSync(fd, plain.file.slice(start, end), 0, end - start, start);
    } finally {
      closeSync(fd);
    }
    const r = await loadLayerNormWeights(await openAsBlob(path));
    expect(r.gamma).toEqual(plain.gamma);
    expect(r.beta).toEqual(plain.beta);
    expect(r.bytesRead).toBe(8 + plain.headerLength + 2 * 768 * 4);
    expect(r.source).toBe(`Blob (${plain.file.size} bytes)`);
  });
});
