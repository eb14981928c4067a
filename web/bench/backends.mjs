// Loading the measured code: the layernorm-wasm runtimes and worker, onnxruntime-web and tfjs-wasm.
// The runners pass in how each module is imported (a file URL in Node, a served path in Chromium);
// whatever fails to load is skipped with a note.

/**
 * layernorm-wasm runtimes by backend ({ simd, scalar }, those that load), with the package module
 * itself as the non-enumerable `pkg` (its oracles and helpers, for the candidates that need them).
 */
export async function initBackends(mod, log) {
  const lnw = {};
  Object.defineProperty(lnw, 'pkg', { value: mod, enumerable: false });
  for (const backend of ['simd', 'scalar']) {
    try {
      lnw[backend] = await mod.init({ backend });
      log(`layernorm-wasm ${backend}: kernel ${lnw[backend].kernel}`);
    } catch (e) {
      log(`NOTE: init({ backend: '${backend}' }) failed (${e?.message ?? e}); skipped.`);
    }
  }
  return lnw;
}

/** A layernorm-wasm/worker runtime (SIMD) from `importEntry()`, or null (with a note) when it fails. */
export async function initWorkerRuntime(importEntry, log) {
  try {
    const w = await (await importEntry()).initWorker({ backend: 'simd' });
    log(`layernorm-wasm/worker: kernel ${w.kernel}`);
    return w;
  } catch (e) {
    log(`NOTE: layernorm-wasm/worker unavailable (${e?.message ?? e}); its candidates skipped.`);
    return null;
  }
}

/**
 * An onnxruntime-web entry from `importEntry()`, set to 1 thread without a proxy worker, as a peer
 * for runBenchmark's `orts`; null (with a note) when it does not load.
 */
export async function loadOrtWeb(importEntry, { key, label, wasmPaths, ...extra }, log) {
  try {
    const ort = await importEntry();
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.proxy = false;
    if (wasmPaths) ort.env.wasm.wasmPaths = wasmPaths;
    return { key, label, ort, sessionOptions: { executionProviders: ['wasm'] }, ...extra };
  } catch (e) {
    log(`NOTE: ${label} unavailable: ${e?.message ?? e}`);
    return null;
  }
}

/** tfjs-core on its wasm backend, 1 thread, from the two imported modules; null (with a note) when it fails. */
export async function loadTfjsWasm(importCore, importBackend, wasmDir, log) {
  try {
    const tf = await importCore();
    const tfw = await importBackend();
    tfw.setThreadsCount(1);
    tfw.setWasmPaths(wasmDir);
    if (!(await tf.setBackend('wasm'))) throw new Error('setBackend(wasm) failed');
    await tf.ready();
    return tf;
  } catch (e) {
    log(`NOTE: tfjs-wasm unavailable, skipped: ${e?.message ?? e}`);
    return null;
  }
}
