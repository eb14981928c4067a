// Where the .wasm comes from: init({ wasm }) with a base URL or, per backend, a URL, bytes, a
// Response or a compiled module; and every way a source can fail, each a WasmLoadError (or a
// TypeError for a malformed option) naming the source, the status and what came.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WasmLoadError, init, layerNormReference, type Backend, type InitOptions } from '../../dist/index.js';
import { checkWasmOption, loadModule } from '../../dist/loader.js';
import { Runtime } from '../../dist/core/runtime.js';
import { rejection } from '../helpers/errors.js';

const wasmDir = join(import.meta.dirname, '..', '..', 'dist', 'wasm');
const bytes: Record<Backend, Uint8Array> = {
  simd: new Uint8Array(readFileSync(join(wasmDir, 'layernorm-simd.wasm'))),
  scalar: new Uint8Array(readFileSync(join(wasmDir, 'layernorm-scalar.wasm'))),
};
const KERNEL: Record<Backend, string> = {
  simd: 'f32_layernorm_ukernel__wasmsimd_u8',
  scalar: 'f32_layernorm_ukernel__scalar_u8',
};
const HTML = '<!doctype html><html><head><title>App</title></head><body><div id="app"></div></body></html>';
/** The smallest valid module: magic and version, nothing else. */
const EMPTY_MODULE = Uint8Array.of(0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00);

// /wasm/<file>: the files as application/wasm; /octet/<file>: as application/octet-stream (as many
// static servers send them); /spa/*: an SPA fallback page; /missing/*: 404 with an HTML page;
// /garbage, /empty, /truncated: 200 application/wasm with a body that is not a whole module.
let server: http.Server;
let origin: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const [, route, file = ''] = path.split('/');
    const wasm = file === 'layernorm-simd.wasm' ? bytes.simd : file === 'layernorm-scalar.wasm' ? bytes.scalar : null;
    const send = (status: number, type: string, body: Uint8Array | string) => {
      res.writeHead(status, { 'Content-Type': type });
      res.end(body);
    };
    if (route === 'wasm' && wasm) return send(200, 'application/wasm', wasm);
    if (route === 'octet' && wasm) return send(200, 'application/octet-stream', wasm);
    if (route === 'spa') return send(200, 'text/html; charset=utf-8', HTML);
    if (route === 'garbage') return send(200, 'application/wasm', 'not a module at all');
    if (route === 'empty') return send(200, 'application/wasm', '');
    if (route === 'truncated') return send(200, 'application/wasm', bytes.simd.subarray(0, 1000));
    return send(404, 'text/html', HTML);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const x = new Float32Array(3 * 768).map((_, i) => Math.sin(i) * 3 + (i >= 768 ? 1e4 : 0));
const reference = layerNormReference(x, 768);

/** Loads `backend` from the option (as init does, without its per-backend cache) and runs one call. */
async function loadWith(backend: Backend, wasm: InitOptions['wasm']) {
  const runtime = new Runtime(await loadModule(backend, checkWasmOption(wasm)), backend);
  const y = runtime.layerNorm(x, 768);
  let maxAbs = 0;
  for (let i = 0; i < y.length; i++) maxAbs = Math.max(maxAbs, Math.abs(y[i] - reference[i]));
  return { kernel: runtime.kernel, maxAbs };
}

async function loadError(backend: Backend, wasm: InitOptions['wasm']): Promise<WasmLoadError> {
  const e = await rejection(loadModule(backend, checkWasmOption(wasm)));
  expect(e).toBeInstanceOf(WasmLoadError);
  return e as WasmLoadError;
}

describe('options.wasm loads the module from', () => {
  const sources: [string, (b: Backend) => InitOptions['wasm']][] = [
    ['a base URL string over HTTP', () => `${origin}/wasm/`],
    ['a base URL without its trailing slash', () => `${origin}/wasm`],
    ['a base URL object (file:, read from disk)', () => pathToFileURL(wasmDir)],
    ['a server sending application/octet-stream', () => `${origin}/octet/`],
    ['the file URL per backend', (b) => ({ [b]: `${origin}/wasm/layernorm-${b}.wasm` })],
    ['a Uint8Array', (b) => ({ [b]: bytes[b] })],
    ['an ArrayBuffer', (b) => ({ [b]: bytes[b].slice().buffer })],
    [
      'a view into the middle of a larger buffer',
      (b) => {
        const big = new Uint8Array(bytes[b].length + 100);
        big.set(bytes[b], 37);
        return { [b]: new DataView(big.buffer, 37, bytes[b].length) };
      },
    ],
    ['a Response', (b) => ({ [b]: new Response(bytes[b]) })],
    ['a compiled WebAssembly.Module', (b) => ({ [b]: new WebAssembly.Module(bytes[b]) })],
  ];
  for (const [name, option] of sources) {
    for (const backend of ['simd', 'scalar'] as const) {
      it(`${name} (${backend})`, async () => {
        const { kernel, maxAbs } = await loadWith(backend, option(backend));
        expect(kernel).toBe(KERNEL[backend]);
        expect(maxAbs).toBeLessThan(1e-5);
      });
    }
  }

  it('a fetched Response', async () => {
    const { kernel } = await loadWith('simd', { simd: await fetch(`${origin}/wasm/layernorm-simd.wasm`) });
    expect(kernel).toBe(KERNEL.simd);
  });

  it('the default location for a backend the object leaves out', async () => {
    const { kernel } = await loadWith('scalar', { simd: `${origin}/missing/layernorm-simd.wasm` });
    expect(kernel).toBe(KERNEL.scalar);
  });
});

describe('a source that is not the .wasm fails with a WasmLoadError naming it', () => {
  it('HTTP 404: URL, status and content type', async () => {
    const url = `${origin}/missing/layernorm-simd.wasm`;
    const e = await loadError('simd', { simd: url });
    expect(e.message).toBe(
      `init: fetching ${url} answered HTTP 404, Content-Type text/html, expected 200 with the .wasm file`,
    );
    expect(e).toMatchObject({ source: url, status: 404, contentType: 'text/html' });
  });

  it("a dev server's HTML fallback page (200, text/html)", async () => {
    const e = await loadError('simd', `${origin}/spa/`);
    const url = `${origin}/spa/layernorm-simd.wasm`;
    expect(e.message).toBe(
      `init: ${url} (HTTP 200, Content-Type text/html; charset=utf-8, ${HTML.length} bytes) is not a WebAssembly module: ` +
        'it starts with 3c 21 64 6f 63 74 79 70 ("<!doctyp") instead of the wasm magic bytes 00 61 73 6d; ' +
        'it looks like an HTML page, which is what many servers answer for a file they do not have: check the URL, or tell init() where the .wasm is with options.wasm',
    );
    expect(e).toMatchObject({ source: url, status: 200, contentType: 'text/html; charset=utf-8' });
  });

  it('wrong magic bytes under the right content type', async () => {
    const url = `${origin}/garbage/layernorm-simd.wasm`;
    const e = await loadError('simd', { simd: url });
    expect(e.message).toBe(
      `init: ${url} (HTTP 200, Content-Type application/wasm, 19 bytes) is not a WebAssembly module: ` +
        'it starts with 6e 6f 74 20 61 20 6d 6f ("not a mo") instead of the wasm magic bytes 00 61 73 6d',
    );
  });

  it('an empty body', async () => {
    const e = await loadError('simd', { simd: `${origin}/empty/x.wasm` });
    expect(e.message).toMatch(
      /\(HTTP 200, Content-Type application\/wasm, 0 bytes\) is not a WebAssembly module: it is empty instead/,
    );
  });

  it('bytes that are not wasm', async () => {
    const e = await loadError('scalar', { scalar: new TextEncoder().encode('{"error": "nope"}') });
    expect(e.message).toBe(
      'init: the bytes given as options.wasm.scalar is not a WebAssembly module: it starts with 7b 22 65 72 72 6f 72 22 ("{\\"error\\"") instead of the wasm magic bytes 00 61 73 6d',
    );
  });

  it('a truncated module', async () => {
    const url = `${origin}/truncated/layernorm-simd.wasm`;
    const e = await loadError('simd', { simd: url });
    expect(e.message).toMatch(
      new RegExp(`^init: ${url.replace(/[.]/g, '\\.')} is not a valid WebAssembly module: CompileError: `),
    );
    expect(e.status).toBe(200);
  });

  it('the other backend’s build', async () => {
    const e = await loadError('simd', { simd: bytes.scalar });
    expect(e.message).toBe(
      'init: the bytes given as options.wasm.simd is not the simd build of layernorm-wasm: its kernel is f32_layernorm_ukernel__scalar_u8',
    );
  });

  it('a module that is not layernorm-wasm', async () => {
    const e = await loadError('simd', { simd: new WebAssembly.Module(EMPTY_MODULE) });
    expect(e.message).toMatch(
      /^init: the WebAssembly\.Module given as options\.wasm\.simd does not fit this version's simd build of layernorm-wasm \(.+\); is it from another version\?$/,
    );
  });

  it('a server that is not there', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const url = `http://127.0.0.1:${port}/layernorm-simd.wasm`;
    const e = await loadError('simd', { simd: url });
    expect(e.message).toMatch(
      new RegExp(`^init: could not fetch ${url.replace(/[.]/g, '\\.')}: TypeError: fetch failed \\(.*ECONNREFUSED`),
    );
    expect(e.source).toBe(url);
  });

  it('a file: URL that does not exist', async () => {
    const url = pathToFileURL(join(wasmDir, 'nowhere')).href + '/';
    const e = await loadError('scalar', url);
    expect(e.message).toMatch(/^init: could not read file:\/\/\/.+\/nowhere\/layernorm-scalar\.wasm: Error: ENOENT/);
  });

  it('a Response whose body was already read', async () => {
    const response = new Response(bytes.simd);
    await response.arrayBuffer();
    const e = await loadError('simd', { simd: response });
    expect(e.message).toBe(
      'init: the body of the Response given as options.wasm.simd was already read; pass a fresh Response',
    );
  });
});

describe('a malformed options.wasm is a TypeError saying what is expected', () => {
  const cases: [string, unknown, string][] = [
    [
      'a number',
      42,
      'init: options.wasm must be a base URL (string or URL) of the folder holding layernorm-simd.wasm and layernorm-scalar.wasm, or { simd?, scalar? } with each a URL, bytes, a Response or a WebAssembly.Module, got number 42',
    ],
    [
      'bytes without saying for which backend',
      bytes.simd,
      'init: options.wasm must be a base URL (string or URL) of the folder holding layernorm-simd.wasm and layernorm-scalar.wasm, or { simd?, scalar? } with each a URL, bytes, a Response or a WebAssembly.Module, got Uint8Array(' +
        bytes.simd.length +
        ')',
    ],
    [
      'the .wasm file instead of its folder',
      'https://cdn.example/layernorm/layernorm-simd.wasm',
      'init: options.wasm is the folder holding both .wasm files, got the file https://cdn.example/layernorm/layernorm-simd.wasm; for one file use { simd: url } or { scalar: url }',
    ],
    [
      'a relative URL in Node',
      'static/wasm/',
      'init: options.wasm must be an absolute URL here (there is no page to resolve a relative one against), got "static/wasm/"',
    ],
    [
      'a misspelt key',
      { SIMD: bytes.simd },
      `init: options.wasm has an unknown key "SIMD"; the keys are 'simd' and 'scalar'`,
    ],
    [
      'a per-backend value of the wrong type',
      { scalar: 7 },
      'init: options.wasm.scalar must be a URL (string or URL), an ArrayBuffer or typed array with the bytes, a Response or a WebAssembly.Module, got number 7',
    ],
  ];
  for (const [name, wasm, message] of cases) {
    it(name, async () => {
      const e = await rejection(init({ wasm } as InitOptions));
      expect(e).toBeInstanceOf(TypeError);
      expect(e.message).toBe(message);
    });
  }
});

describe('init() with options.wasm', () => {
  it('rejects a bad source, then loads from a good one, and later calls share that module', async () => {
    const missing = `${origin}/missing/`;
    const e = await rejection(init({ wasm: missing }));
    expect(e).toBeInstanceOf(WasmLoadError);
    expect((e as WasmLoadError).status).toBe(404);

    const rt = await init({ wasm: { simd: bytes.simd } });
    expect(rt.backend).toBe('simd');
    expect(rt.kernel).toBe(KERNEL.simd);
    // Loaded once per backend: a later init() returns the same runtime whatever its wasm option says.
    expect(await init({ wasm: missing })).toBe(rt);
    expect(await init()).toBe(rt);
  });
});

describe('without options.wasm, where the .wasm beside the JS is missing (e.g. bundled for Node)', () => {
  // A copy of the package without its .wasm files (and, last, without the embedded copies too),
  // run in its own Node process.
  const pkgDir = mkdtempSync(join(tmpdir(), 'layernorm-wasm-nowasm-'));
  afterAll(() => rmSync(pkgDir, { recursive: true, force: true }));
  const run = () => {
    const script = `
      import { init } from './dist/index.js';
      try {
        const rt = await init();
        console.log(JSON.stringify({ backend: rt.backend, kernel: rt.kernel, y0: rt.layerNorm(new Float32Array([1, 2, 3]), 3)[0] }));
      } catch (e) {
        console.log(JSON.stringify({ error: e.name + ': ' + e.message }));
      }`;
    return JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: pkgDir, encoding: 'utf8' }),
    );
  };

  it('loads the copy embedded in the JS', () => {
    cpSync(join(import.meta.dirname, '..', '..', 'dist'), join(pkgDir, 'dist'), { recursive: true });
    copyFileSync(join(import.meta.dirname, '..', '..', 'package.json'), join(pkgDir, 'package.json'));
    for (const b of ['simd', 'scalar']) rmSync(join(pkgDir, 'dist', 'wasm', `layernorm-${b}.wasm`));
    expect(run()).toEqual({ backend: 'simd', kernel: KERNEL.simd, y0: expect.closeTo(-1.2247, 3) });
  });

  it('names both failures when the embedded copy is gone too', () => {
    rmSync(join(pkgDir, 'dist', 'wasm', 'layernorm-simd.embedded.js'));
    const { error } = run();
    expect(error).toMatch(
      /^WasmLoadError: init: could not load the simd build: could not read file:\/\/\/.+\/dist\/wasm\/layernorm-simd\.wasm: Error: ENOENT.*; and its embedded copy failed too: Error: Cannot find module/,
    );
  });
});
