/**
 * Finds, fetches and instantiates the right .wasm build: the SIMD128 build where the engine
 * supports it, else the scalar build. Works in browsers, workers, bundlers and Node.
 *
 * Where the .wasm comes from, in order:
 * 1. options.wasm, when given: a base URL, or per backend a URL, bytes, a Response or a
 *    compiled module. Failures there are errors: the caller said where the file is.
 * 2. Next to this file (`new URL('./wasm/…', import.meta.url)`), which Vite and webpack rewrite
 *    to the asset they emit and Node reads from disk.
 * 3. When 2 does not answer with the file (esbuild and Rollup keep the URL but do not copy the
 *    file; a page opened from file://), the copy embedded in the package's JS as base64.
 *
 * May import: checks/, errors.ts, loading/, types.ts, wasm/.
 */
import { UnsupportedError, WasmLoadError } from './errors.js';
import { oneOf, RULES } from './checks/rules.js';
import { simdSupported } from './loading/simd-support.js';
import type { Backend, InitOptions, WasmSource } from './types.js';
import {
  NoWasmBytesError,
  asBytes,
  checkMagic,
  compileBytes,
  decodeBase64,
  errorDetail,
  readResponse,
  readUrl,
  type Origin,
} from './loading/wasm-source.js';
import type { LayerNormModule, ModuleFactory } from './wasm/module.js';

const FILE_NAMES: Record<Backend, string> = { simd: 'layernorm-simd.wasm', scalar: 'layernorm-scalar.wasm' };

// Each URL is a literal `new URL(..., import.meta.url)` so bundlers (Vite, webpack) find the
// .wasm files and emit them as assets.
function defaultUrl(backend: Backend): URL {
  return backend === 'simd'
    ? new URL('./wasm/layernorm-simd.wasm', import.meta.url)
    : new URL('./wasm/layernorm-scalar.wasm', import.meta.url);
}

async function importFactory(backend: Backend): Promise<ModuleFactory> {
  const mod =
    backend === 'simd' ? await import('./wasm/layernorm-simd.js') : await import('./wasm/layernorm-scalar.js');
  return mod.default;
}

async function embeddedBytes(backend: Backend): Promise<Uint8Array> {
  const mod =
    backend === 'simd'
      ? await import('./wasm/layernorm-simd.embedded.js')
      : await import('./wasm/layernorm-scalar.embedded.js');
  return decodeBase64(mod.default);
}

/** Overridable for tests: whether this engine validates wasm SIMD128. */
export const features = { simd: async (): Promise<boolean> => simdSupported() };

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
  throw new TypeError(RULES.mustBe('init', 'backend', oneOf(['auto', 'simd', 'scalar']), requested));
}

/** options.wasm, checked: per backend, where its .wasm comes from (absent: the default location). */
export type WasmLocations = Partial<Record<Backend, WasmSource>>;

const WASM_OPTION_SHAPE =
  'a base URL (string or URL) of the folder holding layernorm-simd.wasm and layernorm-scalar.wasm, or { simd?, scalar? } with each a URL, bytes, a Response or a WebAssembly.Module';

export function checkWasmOption(value: InitOptions['wasm'] | unknown): WasmLocations {
  if (value === undefined) return {};
  if (typeof value === 'string' || value instanceof URL) {
    const base = absoluteUrl(value, 'options.wasm');
    if (/\.wasm$/i.test(base.pathname)) {
      throw new TypeError(
        `init: options.wasm is the folder holding both .wasm files, got the file ${base.href}; for one file use { simd: url } or { scalar: url }`,
      );
    }
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    return { simd: new URL(FILE_NAMES.simd, base), scalar: new URL(FILE_NAMES.scalar, base) };
  }
  if (typeof value !== 'object' || value === null || isSource(value)) {
    throw new TypeError(RULES.mustBe('init', 'options.wasm', WASM_OPTION_SHAPE, value));
  }
  const locations: WasmLocations = {};
  for (const [key, source] of Object.entries(value)) {
    if (key !== 'simd' && key !== 'scalar') {
      throw new TypeError(
        `init: options.wasm has an unknown key ${JSON.stringify(key)}; the keys are 'simd' and 'scalar'`,
      );
    }
    if (source === undefined) continue;
    if (!isSource(source) && typeof source !== 'string') {
      throw new TypeError(
        RULES.mustBe(
          'init',
          `options.wasm.${key}`,
          'a URL (string or URL), an ArrayBuffer or typed array with the bytes, a Response or a WebAssembly.Module',
          source,
        ),
      );
    }
    locations[key] = typeof source === 'string' ? absoluteUrl(source, `options.wasm.${key}`) : source;
  }
  return locations;
}

function isSource(value: unknown): boolean {
  return (
    value instanceof URL ||
    value instanceof ArrayBuffer ||
    ArrayBuffer.isView(value) ||
    (typeof Response === 'function' && value instanceof Response) ||
    value instanceof WebAssembly.Module
  );
}

/** A URL resolved as fetch() would: against the document's base URL, or the worker's location. */
function absoluteUrl(value: string | URL, what: string): URL {
  const g = globalThis as { document?: { baseURI?: string }; location?: { href?: string } };
  const base = g.document?.baseURI ?? g.location?.href;
  try {
    return new URL(value, base);
  } catch {
    throw new TypeError(
      base === undefined
        ? `init: ${what} must be an absolute URL here (there is no page to resolve a relative one against), got ${JSON.stringify(String(value))}`
        : `init: ${what} is not a valid URL: ${JSON.stringify(String(value))}`,
    );
  }
}

/** Compiles the module from an explicit source (options.wasm): any failure is the caller's to see. */
async function compileSource(
  source: WasmSource,
  what: string,
): Promise<{ module: WebAssembly.Module; origin: Origin }> {
  if (source instanceof WebAssembly.Module)
    return { module: source, origin: { source: `the WebAssembly.Module given as ${what}` } };
  let read: { bytes: Uint8Array; origin: Origin };
  if (source instanceof URL) {
    read = await readUrl(source);
  } else if (typeof Response === 'function' && source instanceof Response) {
    read = await readResponse(source, source.url || `the Response given as ${what}`);
  } else {
    const origin = { source: `the bytes given as ${what}` };
    const bytes = asBytes(source as ArrayBuffer | ArrayBufferView);
    checkMagic(bytes, origin);
    read = { bytes, origin };
  }
  return { module: await compileBytes(read.bytes, read.origin), origin: read.origin };
}

/** The default location, and the embedded copy when that location does not answer with the file. */
async function compileDefault(backend: Backend): Promise<{ module: WebAssembly.Module; origin: Origin }> {
  const url = defaultUrl(backend);
  let read: { bytes: Uint8Array; origin: Origin };
  try {
    read = await readUrl(url);
  } catch (first) {
    if (!(first instanceof NoWasmBytesError)) throw first;
    try {
      read = {
        bytes: await embeddedBytes(backend),
        origin: { source: `the ${backend} build embedded in layernorm-wasm` },
      };
    } catch (second) {
      throw new WasmLoadError(
        `could not load the ${backend} build: ${first.message.replace(/^init: /, '')}; and its embedded copy failed too: ${errorDetail(second)}`,
        { source: url.href, status: first.status, contentType: first.contentType, cause: second },
      );
    }
  }
  return { module: await compileBytes(read.bytes, read.origin), origin: read.origin };
}

/** The ISA part of the kernel names each build registers, e.g. f32_layernorm_ukernel__wasmsimd_u8. */
const KERNEL_ISA: Record<Backend, RegExp> = { simd: /__wasmsimd/, scalar: /__scalar/ };

export async function loadModule(backend: Backend, locations: WasmLocations = {}): Promise<LayerNormModule> {
  const explicit = locations[backend];
  const [factory, { module: compiled, origin }] = await Promise.all([
    importFactory(backend),
    explicit === undefined ? compileDefault(backend) : compileSource(explicit, `options.wasm.${backend}`),
  ]);
  const module = await instantiate(factory, compiled, backend, origin);
  const kernel = module._kernelName();
  if (!KERNEL_ISA[backend].test(kernel)) {
    throw new WasmLoadError(
      `${origin.source} is not the ${backend} build of layernorm-wasm: its kernel is ${kernel}`,
      origin,
    );
  }
  return module;
}

function instantiate(
  factory: ModuleFactory,
  compiled: WebAssembly.Module,
  backend: Backend,
  origin: Origin,
): Promise<LayerNormModule> {
  return new Promise<LayerNormModule>((resolve, reject) => {
    const misfit = (cause: unknown) =>
      reject(
        new WasmLoadError(
          `${origin.source} does not fit this version's ${backend} build of layernorm-wasm (${errorDetail(cause)}); is it from another version?`,
          { ...origin, cause },
        ),
      );
    factory({
      // The glue calls this instead of fetching the .wasm itself; `receive` finishes its setup.
      instantiateWasm(imports, receive) {
        WebAssembly.instantiate(compiled, imports)
          .then((instance) => receive(instance, compiled))
          .catch(misfit);
        return {};
      },
      print: () => {},
      printErr: () => {},
      onAbort: (what) => reject(new Error(`layernorm-wasm: the ${backend} module aborted: ${String(what)}`)),
    }).then(resolve, misfit);
  });
}
