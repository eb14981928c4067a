/**
 * layernorm-wasm/inline: the same API as 'layernorm-wasm', with the WebAssembly carried inside
 * the JavaScript, so init() fetches nothing. For bundlers that keep the package's
 * `new URL('./wasm/…', import.meta.url)` but do not copy the file it names (esbuild, Rollup): the
 * default entry would ask for that .wasm once, get a 404 (a red line in every visitor's console)
 * and only then fall back to its embedded copy; this entry starts from the copy.
 *
 * The SIMD build is imported statically (it is what almost every engine runs), the scalar one only
 * where it is needed.
 *
 * May import: checks/, index.ts, loader.ts, loading/, types.ts, wasm/.
 */
import { init as initFromSources } from './index.js';
import { resolveBackend } from './loader.js';
import type { Backend, InitOptions, LayerNormRuntime } from './types.js';
import { oneOf, RULES } from './checks/rules.js';
import { checkOptions } from './checks/validate.js';
import { decodeBase64 } from './loading/wasm-source.js';
import simdBase64 from './wasm/layernorm-simd.embedded.js';

// Everything 'layernorm-wasm' exports; the init() below takes the place of its init.
export * from './index.js';

const decoded = new Map<Backend, Promise<Uint8Array>>();

/**
 * The bytes of a build's .wasm, decoded from the copy in this package's JavaScript: e.g. for
 * `initWorker({ wasm: { simd: await embeddedWasm('simd') } })`, so a worker fetches nothing either.
 */
export function embeddedWasm(backend: Backend): Promise<Uint8Array> {
  if (backend !== 'simd' && backend !== 'scalar') {
    return Promise.reject(new TypeError(RULES.mustBe('embeddedWasm', 'backend', oneOf(['simd', 'scalar']), backend)));
  }
  let bytes = decoded.get(backend);
  if (!bytes) {
    bytes =
      backend === 'simd'
        ? Promise.resolve(decodeBase64(simdBase64))
        : import('./wasm/layernorm-scalar.embedded.js').then((m) => decodeBase64(m.default));
    decoded.set(backend, bytes);
  }
  // A copy each time: the caller may transfer or change it.
  return bytes.then((b) => b.slice());
}

/**
 * init() with the embedded build as the default source of the backend that runs. `options.wasm`,
 * when it names a source for that backend, is used as is (as by 'layernorm-wasm').
 */
export async function init(options?: InitOptions): Promise<LayerNormRuntime> {
  const o = checkOptions('init', options) as InitOptions;
  const backend = await resolveBackend(o.backend);
  const wasm = o.wasm;
  // A base URL or a source for this backend (the caller said where the file is), or anything
  // init() refuses (it says why): as given.
  const perBackend =
    wasm === undefined || (typeof wasm === 'object' && Object.getPrototypeOf(wasm) === Object.prototype);
  if (!perBackend || (wasm as Record<string, unknown> | undefined)?.[backend] !== undefined) return initFromSources(o);
  return initFromSources({ ...o, backend, wasm: { ...(wasm as object), [backend]: await embeddedWasm(backend) } });
}
