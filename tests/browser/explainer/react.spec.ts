/**
 * <layernorm-explainer> in a React 19 app built by Vite: React sets a custom element's properties
 * during its commit, where a throwing setter would unmount the whole tree. A wrong property (γ as
 * a string, an ε given as text) keeps the app's page standing, is said in the element in place of
 * its drawing and reaches the app through `onerror`; γ as number[] (what JSON gives) just works.
 */
import { test, expect, GAMMA, BETA } from '../fixtures';
import { viteApp } from './apps';
import { hiddenStates } from './pages';
import { serveSite } from './site';

const site = serveSite();
const TOKENS = ['The', ' cat', ' sat'];

const MAIN = `import { useState } from 'react';
import { createRoot } from 'react-dom/client';
import 'layernorm-wasm/explainer';

const { x, gamma, beta, tokens } = await (await fetch('/react-bad/data.json')).json();
const activations = { data: new Float32Array(x), shape: [tokens.length, 768], tokens };
const GOOD = { gamma, beta };
const BAD = { gamma: 'not numbers', beta, eps: '1e-5' };

function App() {
  const [weights, setWeights] = useState(GOOD);
  const [said, setSaid] = useState('');
  const [row, setRow] = useState(0);
  return (
    <>
      <h1>Row {row}</h1>
      <button id="bad" onClick={() => setWeights(BAD)}>bad</button>
      <button id="good" onClick={() => setWeights(GOOD)}>good</button>
      <p id="said">{said}</p>
      <layernorm-explainer
        weights={weights}
        activations={activations}
        row={row}
        onrowchange={(e) => setRow(e.detail.row)}
        onerror={(e) => setSaid(e.detail.message)}
      />
    </>
  );
}

createRoot(document.getElementById('root')).render(<App />);
`;

test('a React 19 app passing a bad property keeps its page and shows the element’s message', async ({ page }) => {
  test.setTimeout(120_000);
  const app = await viteApp(
    {
      'index.html':
        '<!doctype html><html lang="en"><head><meta charset="utf-8" /><title>React</title></head>' +
        '<body><main id="root"></main><script type="module" src="/src/main.jsx"></script></body></html>',
      'src/main.jsx': MAIN,
    },
    '/react-bad/',
  );
  try {
    site.mount('/react-bad/', app.out);
    site.put(
      '/react-bad/data.json',
      JSON.stringify({ x: hiddenStates(3), gamma: Array.from(GAMMA), beta: Array.from(BETA), tokens: TOKENS }),
    );
    await page.goto(`${site.origin()}/react-bad/index.html`);
    // γ and β as number[], straight from JSON.
    await expect(page.locator('#fact-norm')).toHaveText('LayerNorm (γ and β)');
    await page.getByRole('option', { name: '␣sat' }).click();
    await expect(page.locator('h1')).toHaveText('Row 2');
    await page.locator('#bad').click();
    const message =
      '<layernorm-explainer>: weights.gamma must be a Float32Array, another typed array or an array of numbers, got string "not numbers"';
    await expect(page.locator('#said')).toHaveText(message);
    await expect(page.locator('#ex-status')).toHaveText(message);
    await expect(page.locator('#stages')).toBeHidden();
    // The app is still there and still answers.
    await expect(page.locator('h1')).toHaveText('Row 2');
    await page.locator('#good').click();
    await expect(page.locator('#ex-status')).toBeHidden();
    await expect(page.locator('#ex-token')).toHaveText('row 2 “␣sat”');
    await page.getByRole('option', { name: 'The' }).click();
    await expect(page.locator('h1')).toHaveText('Row 0');
  } finally {
    app.remove();
  }
});
