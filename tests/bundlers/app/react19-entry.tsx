// A React 19 app in TypeScript showing <layernorm-explainer> with the matrix inputs (as number[], what JSON
// gives): it walks the rows through React state, hears the reader's pick (`onrowchange`), passes a
// bad property and then the good one again, and reports the output stage of each row as
// app/explainer-entry.js does, with what the app saw.
import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import 'layernorm-wasm/explainer';
import 'layernorm-wasm/explainer/react';
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
const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));

async function run() {
  try {
    await frame();
    const el = document.querySelector('layernorm-explainer')!;
    const y: number[] = [];
    for (let row = 0; row < ROWS; row++) {
      setRow(row);
      await frame();
      await el.ready;
      if (!el.stages)
        throw new Error(`no stages for row ${row}: ${el.shadowRoot!.querySelector('#ex-status')?.textContent}`);
      y.push(...el.stages.output);
    }
    // The reader picks a token: React hears it and sets the row back.
    el.shadowRoot!.querySelector<HTMLElement>('[role="option"][data-row="1"]')!.click();
    await frame();
    if (document.getElementById('app-row')?.textContent !== 'row 1') throw new Error('rowchange did not reach React');
    // A bad property: the app stays, the element says why, then draws again with the good one.
    setWeights(BAD);
    await frame();
    await el.ready;
    if (!document.getElementById('app-row')) throw new Error('the app is gone after a bad property');
    if (el.stages || !seen.errors[0]?.includes('weights.gamma')) throw new Error(`not refused: ${seen.errors}`);
    setWeights(GOOD);
    await frame();
    await el.ready;
    if (!el.stages) throw new Error('the good weights were not drawn again');
    return { y, heading: `${el.shadowRoot!.querySelector('h2')?.textContent} (picked ${seen.picks}; refused once)` };
  } catch (e) {
    return { error: `${(e as Error)?.name}: ${(e as Error)?.message}` };
  }
}
run().then((result) => {
  (window as unknown as { lnwResult: unknown }).lnwResult = result;
});
