// Browser side of the benchmark: loaded by page.html, driven by run-browser.mjs.
import { initBackends, runBenchmark } from './core.mjs';

const ORT_DIR = '/node_modules/onnxruntime-web/dist/';

function log(s) {
  console.log(s);
  const el = document.getElementById('log');
  if (el) el.textContent += s + '\n';
}

async function loadLayerNormWasm() {
  let mod;
  try {
    const head = await fetch('/dist/index.js', { method: 'HEAD' });
    if (!head.ok) {
      log('NOTE: /dist/index.js not found (run `npm run build`); layernorm-wasm candidates skipped.');
      return null;
    }
    mod = await import('/dist/index.js');
  } catch (e) {
    log(`NOTE: importing /dist/index.js failed (${e?.message ?? e}); layernorm-wasm candidates skipped.`);
    return null;
  }
  return initBackends(mod, log);
}

async function loadOrt(url, key, label, extra = {}) {
  try {
    const ort = await import(url);
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.proxy = false;
    ort.env.wasm.wasmPaths = ORT_DIR;
    return { key, label, ort, sessionOptions: { executionProviders: ['wasm'] }, ...extra };
  } catch (e) {
    log(`NOTE: ${label} unavailable: ${e?.message ?? e}`);
    return null;
  }
}

async function loadTfjs() {
  try {
    const tf = await import('@tensorflow/tfjs-core');
    const tfw = await import('/node_modules/@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.fesm.min.js');
    tfw.setThreadsCount(1);
    tfw.setWasmPaths('/node_modules/@tensorflow/tfjs-backend-wasm/dist/');
    if (!(await tf.setBackend('wasm'))) throw new Error('setBackend(wasm) failed');
    await tf.ready();
    return tf;
  } catch (e) {
    log(`NOTE: tfjs-wasm unavailable, skipped: ${e?.message ?? e}`);
    return null;
  }
}

window.runBench = async (opts) => {
  const lnw = await loadLayerNormWasm();
  const orts = [
    await loadOrt(ORT_DIR + 'ort.wasm.min.mjs', 'ortweb', 'onnxruntime-web wasm, 1 thread'),
    await loadOrt('onnxruntime-web', 'ortweb-default', "onnxruntime-web, default import 'onnxruntime-web'", {
      variants: ['gb'],
    }),
  ].filter(Boolean);
  const tf = await loadTfjs();
  const t0 = performance.now();
  const res = await runBenchmark(
    {
      lnw,
      orts,
      tf,
      gc: typeof globalThis.gc === 'function' ? globalThis.gc : null,
      nativeKey: null,
      ortRefKey: 'ortweb',
      ortRefLabel: 'onnxruntime-web',
      log,
    },
    opts,
  );
  res.seconds = (performance.now() - t0) / 1000;
  res.lnwAvailable = !!lnw;
  res.kernels = lnw ? Object.fromEntries(Object.entries(lnw).map(([b, rt]) => [b, rt.kernel])) : null;
  res.userAgent = navigator.userAgent;
  res.hardwareConcurrency = navigator.hardwareConcurrency;
  res.crossOriginIsolated = self.crossOriginIsolated;
  return res;
};
window.benchReady = true;
