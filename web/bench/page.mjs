// Browser side of the benchmark: loaded by page.html, driven by run-browser.mjs.
import { initBackends, initWorkerRuntime, loadOrtWeb, loadTfjsWasm } from './backends.mjs';
import { runBenchmark } from './benchmark.mjs';

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
      log('NOTE: /dist/index.js not found (run `npm run build`); the benchmark needs it.');
      return null;
    }
    mod = await import('/dist/index.js');
  } catch (e) {
    log(`NOTE: importing /dist/index.js failed (${e?.message ?? e}); the benchmark needs it.`);
    return null;
  }
  return initBackends(mod, log);
}

window.runBench = async (opts) => {
  const lnw = await loadLayerNormWasm();
  const lnwWorker = lnw ? await initWorkerRuntime(() => import('/dist/worker/index.js'), log) : null;
  const orts = [
    await loadOrtWeb(
      () => import(ORT_DIR + 'ort.wasm.min.mjs'),
      { key: 'ortweb', label: 'onnxruntime-web wasm, 1 thread', wasmPaths: ORT_DIR },
      log,
    ),
    await loadOrtWeb(
      () => import('onnxruntime-web'),
      {
        key: 'ortweb-default',
        label: "onnxruntime-web, default import 'onnxruntime-web'",
        wasmPaths: ORT_DIR,
        variants: ['gb'],
      },
      log,
    ),
  ].filter(Boolean);
  const tf = await loadTfjsWasm(
    () => import('@tensorflow/tfjs-core'),
    () => import('/node_modules/@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.fesm.min.js'),
    '/node_modules/@tensorflow/tfjs-backend-wasm/dist/',
    log,
  );
  const t0 = performance.now();
  const res = await runBenchmark(
    {
      lnw,
      lnwWorker,
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
  lnwWorker?.dispose();
  res.seconds = (performance.now() - t0) / 1000;
  res.lnwAvailable = !!lnw;
  res.kernels = lnw ? Object.fromEntries(Object.entries(lnw).map(([b, rt]) => [b, rt.kernel])) : null;
  res.userAgent = navigator.userAgent;
  res.hardwareConcurrency = navigator.hardwareConcurrency;
  res.crossOriginIsolated = self.crossOriginIsolated;
  return res;
};
window.benchReady = true;
