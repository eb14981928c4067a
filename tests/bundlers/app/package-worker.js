// The check of check.js through the package's own worker (layernorm-wasm/worker): init in the
// worker, one LayerNorm call whose input moves there and back. The worker is kept, as an app
// keeps it (and the runner reads what it loaded); in Node an idle one does not hold the process.
import { initWorker } from 'layernorm-wasm/worker';
import { evalAllowed } from './eval-allowed.js';
import { D, inputs } from './inputs.js';

export async function checkInWorker(options) {
  try {
    const w = await initWorker(options);
    const { x, gamma, beta } = inputs();
    const y = await w.layerNorm(x, D, { gamma, beta });
    if (x.length !== 0) throw new Error('x was not moved to the worker');
    return { backend: w.backend, kernel: w.kernel, y: Array.from(y), evalAllowed: evalAllowed() };
  } catch (e) {
    return { error: `${e?.name}: ${e?.message}`, evalAllowed: evalAllowed() };
  }
}
