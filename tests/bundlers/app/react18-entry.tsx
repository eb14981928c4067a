// A React 18 app in TypeScript showing <layernorm-explainer> with the matrix inputs (as number[],
// what JSON gives). React 18 sets a custom element's attributes (strings) and adds no listeners,
// so the app gives the weights, the activations and its listeners through a ref in an effect, as
// the README says, and the row as an attribute. It walks the rows through React state, hears the
// reader's pick, passes weights of the wrong width (16 values for 768-wide activations) and then
// the good ones again, and reports the output stage of each row as app/explainer-entry.js does.
import { useEffect, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import 'layernorm-wasm/explainer';
import 'layernorm-wasm/explainer/react';
import type { LayerNormExplainer } from 'layernorm-wasm/explainer';
import { D, ROWS, inputs } from './inputs.js';

const { x, gamma, beta } = inputs();
const GOOD = { gamma: Array.from(gamma), beta: Array.from(beta) };
const NARROW = { gamma: GOOD.gamma.slice(0, 16), beta: GOOD.beta.slice(0, 16) };
const activations = { data: Array.from(x), shape: [ROWS, D], tokens: ['a', 'b', 'c', 'd'] };
const seen: { picks: string[]; errors: string[] } = { picks: [], errors: [] };
let setWeights: (weights: typeof GOOD) => void = () => {};
let setRow: (row: number) => void = () => {};

function Explainer({ weights, row, onRow }: { weights: typeof GOOD; row: number; onRow: (row: number) => void }) {
  const ref = useRef<LayerNormExplainer>(null);
  useEffect(() => {
    const el = ref.current!;
    el.activations = activations;
    const pick = (e: HTMLElementEventMap['rowchange']) => (seen.picks.push(e.detail.token ?? ''), onRow(e.detail.row));
    // The element's error is an ErrorEvent: its message is typed through HTMLElementEventMap.
    const refused = (e: HTMLElementEventMap['error']) => seen.errors.push(e.message);
    el.addEventListener('rowchange', pick);
    el.addEventListener('error', refused);
    return () => {
      el.removeEventListener('rowchange', pick);
      el.removeEventListener('error', refused);
    };
  }, [onRow]);
  useEffect(() => {
    ref.current!.weights = weights;
  }, [weights]);
  return <layernorm-explainer ref={ref} row={row} />;
}

function App() {
  const [weights, setW] = useState(GOOD);
  const [row, setR] = useState(0);
  setWeights = setW;
  setRow = setR;
  return (
    <main>
      <p id="app-row">row {row}</p>
      <Explainer weights={weights} row={row} onRow={setR} />
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
    const status = () => el.shadowRoot!.querySelector('#ex-status')?.textContent;
    const y: number[] = [];
    for (let row = 0; row < ROWS; row++) {
      setRow(row);
      await frame();
      await el.ready;
      if (!el.stages) throw new Error(`no stages for row ${row}: ${status()}`);
      y.push(...el.stages.output);
    }
    // The reader picks a token: React hears it and sets the row back.
    el.shadowRoot!.querySelector<HTMLElement>('[role="option"][data-row="1"]')!.click();
    await frame();
    if (document.getElementById('app-row')?.textContent !== 'row 1') throw new Error('rowchange did not reach React');
    // Weights of the wrong width: the app stays, the element says why, then draws again with the good ones.
    setWeights(NARROW);
    await frame();
    await el.ready;
    if (!document.getElementById('app-row')) throw new Error('the app is gone after a bad property');
    const said = seen.errors[0] ?? '';
    if (el.stages || !said.includes('d = 16') || status() !== said) throw new Error(`not refused: ${seen.errors}`);
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
