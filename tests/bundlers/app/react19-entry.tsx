// A React 19 app in TypeScript showing <layernorm-explainer> with the matrix inputs (as number[], what JSON
// gives): it walks the rows through React state, hears the reader's pick (`onrowchange`), passes a
// bad property and then the good one again, and reports the output stage of each row as
// app/explainer-entry.js does, with what the app saw.
import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import 'layernorm-wasm/explainer';
import 'layernorm-wasm/explainer/react';
import { drive } from './framework-driver.js';
import { D, ROWS, inputs } from './inputs.js';

const { x, gamma, beta } = inputs();
const GOOD = { gamma: Array.from(gamma), beta: Array.from(beta) };
// What a JSON file with a mistake in it gives: typed `any`, so only the element can refuse it.
const BAD = JSON.parse(JSON.stringify({ gamma: 'not numbers', beta: GOOD.beta }));
const activations = { data: Array.from(x), shape: [ROWS, D], tokens: ['a', 'b', 'c', 'd'] };
const seen: { picks: string[]; errors: string[] } = { picks: [], errors: [] };
let setWeights: (weights: typeof GOOD) => void = () => {};
let setRow: (row: number) => void = () => {};

function App() {
  const [weights, setW] = useState(GOOD);
  const [row, setR] = useState(0);
  setWeights = setW;
  setRow = setR;
  return (
    <main>
      <p id="app-row">row {row}</p>
      <layernorm-explainer
        weights={weights}
        activations={activations}
        row={row}
        onrowchange={(e) => (seen.picks.push(e.detail.token ?? ''), setR(e.detail.row))}
        onerror={(e) => seen.errors.push(e.detail.message)}
      />
    </main>
  );
}

const root = document.createElement('div');
document.body.append(root);
createRoot(root).render(<App />);
// Through arrows: React hands over its setters only when it first renders the app.
drive({
  setRow: (row: number) => setRow(row),
  setWeights: (w: typeof GOOD) => setWeights(w),
  GOOD,
  seen,
  bad: BAD,
  refusal: 'weights.gamma',
}).then((result) => {
  (window as unknown as { lnwResult: unknown }).lnwResult = result;
});
