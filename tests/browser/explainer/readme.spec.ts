/**
 * README.md's "Embed the explainer" examples, run as written: the plain HTML page (import map) and
 * the React app (built by Vite). Each is read from the README by its `<!-- example: spec … -->`
 * comment; the data it fetches (hidden.npy, tokens.json) is served beside it, and the Hub's GPT-2
 * checkpoint by the tests' local range server.
 */
import AxeBuilder from '@axe-core/playwright';
import { npy as writeNpy } from '../../kit/checkpoints/index.mjs';
import { test, expect, GAMMA, BETA } from '../fixtures';
import { specBlocks } from '../../readme/blocks';
import { viteApp } from './apps';
import { SAME_STAGES, hiddenStates } from './pages';
import { ROOT, serveSite } from './site';
import { join } from 'node:path';
import type { Page } from '@playwright/test';

const site = serveSite();
site.mount('/node_modules/layernorm-wasm/dist/', join(ROOT, 'dist'));
const TOKENS = ['<|endoftext|>', 'The', ' cat', ' sat', ' on', ' the', ' mat', '.'];
const hidden = writeNpy(new Float32Array(hiddenStates(TOKENS.length)), [TOKENS.length, 768]);

/** The element's stages against a fresh runtime's layerNormStages with GPT-2's γ, β and ε. */
async function stagesDiffer(page: Page): Promise<string[]> {
  return page.evaluate(
    async ([sameStagesSource, gamma, beta]) => {
      const el = document.querySelector('layernorm-explainer')!;
      await el.ready;
      const { init } = await import('/node_modules/layernorm-wasm/dist/index.js' as string);
      const rt = await init();
      const a = el.activations!;
      const expected = rt.layerNormStages(a.data, 768, el.row, {
        gamma: new Float32Array(gamma),
        beta: new Float32Array(beta),
        eps: 1e-5,
      });
      const sameStages = new Function(`${sameStagesSource}; return sameStages;`)();
      return sameStages(el.stages, expected);
    },
    [SAME_STAGES, Array.from(GAMMA), Array.from(BETA)] as const,
  );
}

async function axe(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

const [html, jsx] = specBlocks('tests/browser/explainer/readme.spec.ts');

test('the README has the two examples this spec runs: HTML, then React', () => {
  expect([html!.lang, jsx!.lang]).toEqual(['html', 'tsx']);
});

test('the plain HTML example, as written', async ({ page }) => {
  const url = site.put('/readme/index.html', html!.code);
  site.put('/readme/hidden.npy', hidden);
  site.put('/readme/tokens.json', JSON.stringify(TOKENS));
  const logged: string[] = [];
  page.on('console', (m) => m.type() === 'log' && logged.push(m.text()));
  await page.goto(url);
  await expect(page.locator('#ex-token')).toHaveText('row 2 “␣cat”');
  await expect(page.locator('#fact-norm')).toHaveText('LayerNorm (γ and β)');
  expect(await stagesDiffer(page)).toEqual([]);
  await page.getByRole('option', { name: '␣sat' }).click();
  await expect(page.locator('#ex-token')).toHaveText('row 3 “␣sat”');
  expect(await stagesDiffer(page)).toEqual([]);
  expect(logged).toContain('explaining  sat');
  expect(await axe(page)).toEqual([]);
});

test('the React example, built by Vite as written', async ({ page }) => {
  test.setTimeout(120_000);
  const app = await viteApp(
    {
      'index.html':
        '<!doctype html><html lang="en"><head><meta charset="utf-8" /><meta name="viewport" content="width=device-width, initial-scale=1" /><title>A React app</title></head>' +
        '<body><main id="root"></main><script type="module" src="/src/main.tsx"></script></body></html>',
      'src/main.tsx': jsx!.code,
    },
    '/react/',
  );
  try {
    site.mount('/react/', app.out);
    site.put('/hidden.npy', hidden);
    site.put('/tokens.json', JSON.stringify(TOKENS));
    await page.goto(`${site.origin()}/react/index.html`);
    await expect(page.locator('h1')).toHaveText('What ln_f does to “ cat”');
    await expect(page.locator('#ex-token')).toHaveText('row 2 “␣cat”');
    expect(await stagesDiffer(page)).toEqual([]);
    // The reader's pick goes through React's state and back into the element.
    await page.getByRole('option', { name: '␣mat' }).click();
    await expect(page.locator('h1')).toHaveText('What ln_f does to “ mat”');
    await expect(page.locator('layernorm-explainer')).toHaveAttribute('row', '6');
    await expect(page.locator('#ex-token')).toHaveText('row 6 “␣mat”');
    expect(await stagesDiffer(page)).toEqual([]);
    expect(await axe(page)).toEqual([]);
  } finally {
    app.remove();
  }
});
