// A page whose LayerNorm runs in the package's own worker (layernorm-wasm/worker).
import { initOptions } from './init-options.js';
import { checkInWorker } from './package-worker.js';

window.lnwCheck = (options) => checkInWorker({ ...initOptions, ...options });
window.lnwCheck().then((result) => {
  window.lnwResult = result;
});
