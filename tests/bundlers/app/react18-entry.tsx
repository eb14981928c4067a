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
import { drive } from './framework-driver.js';
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
// Through arrows: React hands over its setters only when it first renders the app.
drive({
  setRow: (row: number) => setRow(row),
  setWeights: (w: typeof GOOD) => setWeights(w),
  GOOD,
  seen,
  bad: NARROW,
  refusal: 'd = 16',
}).then((result) => {
  (window as unknown as { lnwResult: unknown }).lnwResult = result;
});
