// initWorker forwards init()'s options to the worker in a form it can receive (a Response as its
// bytes, a URL as its href, a compiled module as is), and init()'s loading errors come back as
// the WasmLoadError init() throws, fields included.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WasmLoadError, layerNormReference } from '../../dist/index.js';
import { checkWasmOption, loadModule } from '../../dist/loader.js';
import { initWorker } from '../../dist/worker/index.js';
import { rejection } from '../helpers/errors.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';

const wasmDir = join(import.meta.dirname, '..', '..', 'dist', 'wasm');
const bytes = {
  simd: new Uint8Array(readFileSync(join(wasmDir, 'layernorm-simd.wasm'))),
  scalar: new Uint8Array(readFileSync(join(wasmDir, 'layernorm-scalar.wasm'))),
};
const x = new Float32Array(2 * 768).map((_, i) => Math.sin(i) * 4 + 1e3);

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer({ files: { 'layernorm-scalar.wasm': bytes.scalar } });
});
afterAll(() => server.close());

describe('options.wasm reaches the worker as', () => {
  it.each([
    ['bytes', () => ({ scalar: bytes.scalar })],
    ['a Response (sent as its bytes)', () => ({ scalar: new Response(bytes.scalar) })],
    ['a compiled WebAssembly.Module', () => ({ scalar: new WebAssembly.Module(bytes.scalar) })],
    ['a base URL object (sent as its href)', () => pathToFileURL(`${wasmDir}/`)],
    ['a URL string over HTTP', () => ({ scalar: server.url('layernorm-scalar.wasm') })],
  ])('%s', async (_, wasm) => {
    const w = await initWorker({ backend: 'scalar', wasm: wasm() as never });
    try {
      expect(w.kernel).toBe('f32_layernorm_ukernel__scalar_u8');
      const y = await w.layerNorm(x.slice(), 768);
      const ref = layerNormReference(x, 768);
      expect(Math.max(...y.map((v, i) => Math.abs(v - ref[i]!)))).toBeLessThan(1e-5);
    } finally {
      w.dispose();
    }
  });
});

describe("init()'s loading errors, from the worker", () => {
  it('a 404: WasmLoadError with the message and fields init() gives', async () => {
    const url = server.url('layernorm-simd.wasm', 'not-found');
    const expected = await rejection(loadModule('simd', checkWasmOption({ simd: url })));
    const got = await rejection(initWorker({ wasm: { simd: url } }));
    expect(got).toBeInstanceOf(WasmLoadError);
    expect(got.message).toBe(expected.message);
    const fields = (e: Error) => {
      const { source, status, contentType } = e as WasmLoadError;
      return { source, status, contentType };
    };
    expect(fields(got)).toEqual(fields(expected));
    expect(fields(got).status).toBe(404);
  });
});
