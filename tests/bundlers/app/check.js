// What every matrix app does with the package: init (with the options its setup needs), one
// LayerNorm call with γ and β, and a report the runner checks against Node and the reference.
// The entry it takes init from is src/lnw.js ('layernorm-wasm', or 'layernorm-wasm/inline').
import { init } from './lnw.js';
import { evalAllowed } from './eval-allowed.js';
import { D, inputs } from './inputs.js';

export async function check(options) {
  try {
    const rt = await init(options);
    const { x, gamma, beta } = inputs();
    const y = rt.layerNorm(x, D, { gamma, beta });
    return { backend: rt.backend, kernel: rt.kernel, y: Array.from(y), evalAllowed: evalAllowed() };
  } catch (e) {
    return { error: `${e?.name}: ${e?.message}`, evalAllowed: evalAllowed() };
  }
}
