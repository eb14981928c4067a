// A page showing <layernorm-explainer> for the matrix inputs: it walks the rows as a reader would
// and reports the output stage of each (el.stages, exactly layerNormStages'), which the runner
// compares with the package's layerNorm output in Node. src/explainer-runtime.js may give the
// element a runtime of the app's choosing (null: the element's default).
import 'layernorm-wasm/explainer';
import { runtime } from './explainer-runtime.js';
import { D, ROWS, inputs } from './inputs.js';

const el = document.createElement('layernorm-explainer');
document.body.append(el);
const { x, gamma, beta } = inputs();
if (runtime) el.runtime = runtime;
el.weights = { gamma, beta };
el.activations = { data: x, shape: [ROWS, D] };

async function explainEveryRow() {
  try {
    const y = [];
    for (let row = 0; row < ROWS; row++) {
      el.row = row;
      await el.ready;
      if (!el.stages)
        throw new Error(`no stages for row ${row}: ${el.shadowRoot.querySelector('#ex-status')?.textContent}`);
      y.push(...el.stages.output);
    }
    return { y, heading: el.shadowRoot.querySelector('h2')?.textContent ?? '' };
  } catch (e) {
    return { error: `${e?.name}: ${e?.message}` };
  }
}
explainEveryRow().then((result) => {
  window.lnwResult = result;
});
