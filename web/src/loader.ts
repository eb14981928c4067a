/**
 * Finds, fetches and instantiates the right .wasm build: the SIMD128 build where the engine
 * supports it, else the scalar build. Works in browsers, workers, bundlers and Node.
 */
import { simd as detectSimd } from 'wasm-feature-detect';
import { UnsupportedError } from './errors.js';
import type { Backend } from './types.js';
import type { LayerNormModule, ModuleFactory } from './wasm/module.js';

// Each URL is a literal `new URL(..., import.meta.url)` so bundlers (Vite, webpack, esbuild)
// find the .wasm files and emit them as assets.
function wasmUrl(backend: Backend): URL {
  return backend === 'simd'
    ? new URL('./wasm/layernorm-simd.wasm', import.meta.url)
    : new URL('./wasm/layernorm-scalar.wasm', import.meta.url);
}

async function importFactory(backend: Backend): Promise<ModuleFactory> {
  const mod =
    backend === 'simd' ? await import('./wasm/layernorm-simd.js') : await import('./wasm/layernorm-scalar.js');
  return mod.default;
}

type NodeFs = { promises: { readFile(path: URL): Promise<Uint8Array> } };

function nodeFs(): NodeFs | undefined {
  // getBuiltinModule avoids a static `import 'node:fs'` that browser bundlers would trip over.
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return proc?.getBuiltinModule?.('node:fs') as NodeFs | undefined;
}

async function fetchWasm(url: URL): Promise<Uint8Array> {
  const fs = url.protocol === 'file:' ? nodeFs() : undefined;
  if (fs) return fs.promises.readFile(url);
  let response: Response;
  try {
    response = await fetch(url);
  } catch (cause) {
    throw new Error(`layernorm-wasm: could not fetch ${url.href}: ${String(cause)}`, { cause });
  }
  if (!response.ok) {
    throw new Error(
      `layernorm-wasm: fetching ${url.href} answered HTTP ${response.status}, expected 200 with the .wasm file`,
    );
  }
  return new Uint8Array(await response.arrayBuffer());
}

/** Overridable for tests: whether this engine validates wasm SIMD128. */
export const features = { simd: detectSimd };

export async function resolveBackend(requested: unknown): Promise<Backend> {
  if (requested === undefined || requested === 'auto') {
    return (await features.simd()) ? 'simd' : 'scalar';
  }
  if (requested === 'simd') {
    if (!(await features.simd())) {
      throw new UnsupportedError(
        "init: backend 'simd' was requested but this engine does not support WebAssembly SIMD128; use backend 'auto' or 'scalar'",
      );
    }
    return 'simd';
  }
  if (requested === 'scalar') return 'scalar';
  throw new TypeError(
    `init: backend must be 'auto', 'simd' or 'scalar', got ${typeof requested === 'string' ? JSON.stringify(requested) : typeof requested}`,
  );
}

export async function loadModule(backend: Backend): Promise<LayerNormModule> {
  const [factory, wasmBinary] = await Promise.all([importFactory(backend), fetchWasm(wasmUrl(backend))]);
  let aborted: unknown;
  const module = await factory({
    wasmBinary,
    print: () => {},
    printErr: () => {},
    onAbort: (what) => {
      aborted = what;
    },
  });
  if (aborted !== undefined) throw new Error(`layernorm-wasm: the ${backend} module aborted: ${String(aborted)}`);
  return module;
}
