// Browser side of the benchmark: loaded by page.html, driven by run-browser.mjs.
import { initBackends, initWorkerRuntime, loadOrtWeb, loadTfjsWasm } from './backends.mjs';
import { runBenchmark } from './benchmark.mjs';
import { createF32Stats } from './f32stats.mjs';
import { BIAS } from './forms.mjs';

const ORT_DIR = '/node_modules/onnxruntime-web/dist/';

function log(s) {
  console.log(s);
  const el = document.getElementById('log');
  if (el) el.textContent += s + '\n';
}

async function loadLayerNormWasm() {
  const head = await fetch('/dist/index.js', { method: 'HEAD' });
  if (!head.ok)
    throw new Error(
      `/dist/index.js answered HTTP ${head.status}: the benchmark needs the built package (npm run build)`,
    );
  return initBackends(await import('/dist/index.js'), log);
}

// Built by run-browser.mjs before it opens the page (web/bench/f32stats-build.mjs).
async function loadF32Stats() {
  const r = await fetch('/build/bench/f32-stats.wasm');
  if (!r.ok) throw new Error(`/build/bench/f32-stats.wasm answered HTTP ${r.status} (run-browser.mjs builds it)`);
  return createF32Stats(await r.arrayBuffer());
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
        variants: [BIAS],
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
  const f32stats = await loadF32Stats();
  const t0 = performance.now();
  const res = await runBenchmark(
    {
      lnw,
      lnwWorker,
      orts,
      tf,
      f32stats,
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
  res.kernels = Object.fromEntries(Object.entries(lnw).map(([b, rt]) => [b, rt.kernel]));
  res.userAgent = navigator.userAgent;
  res.hardwareConcurrency = navigator.hardwareConcurrency;
  res.crossOriginIsolated = self.crossOriginIsolated;
  return res;
};
window.benchReady = true;
