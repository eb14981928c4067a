/**
 * The first load of an author's Vite app that shows only <layernorm-explainer>: at most 160 KiB of
 * JavaScript, CSS and WebAssembly (decoded bytes, fonts aside: the element uses none) before it
 * renders its first token, and still once it has read the checkpoint of its `src` (the loader's
 * code included), from the network log; and axe-core finds nothing with it open. What the γ/β
 * section adds when it comes near the viewport is reported beside the test.
 */
import AxeBuilder from '@axe-core/playwright';
import { test, expect, nearExtras, HF_URL } from '../fixtures';
import { viteApp } from './apps';
import { serveSite } from './site';
import type { Response } from '@playwright/test';

const BUDGET = 160 * 1024;
const site = serveSite();

const MAIN = `import 'layernorm-wasm/explainer';

const d = 768;
const tokens = ['The', ' norm', ' of', ' every', ' token'];
let s = 7;
const u = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
const data = new Float32Array(tokens.length * d).map((_, i) => (i % d === 447 ? 600 : (u() + u() + u() - 1.5) * 2));
const el = document.querySelector('layernorm-explainer');
el.addEventListener('render', () => (window.rendered = true), { once: true });
el.activations = { data, shape: [tokens.length, d], tokens };
`;

test('a Vite app with only the element: at most 160 KiB of JS + CSS + wasm before it renders, axe-clean', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const app = await viteApp(
    {
      'index.html': `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><meta name="viewport" content="width=device-width, initial-scale=1" /><title>An article</title></head>
  <body>
    <main>
      <h1>What a final LayerNorm does</h1>
      <layernorm-explainer src="${HF_URL}"></layernorm-explainer>
    </main>
    <script type="module" src="/src/main.js"></script>
  </body>
</html>`,
      'src/main.js': MAIN,
    },
    '/budget/',
  );
  try {
    site.mount('/budget/', app.out);
    const files = new Map<string, number>();
    const bodies: Promise<void>[] = [];
    page.on('response', (r: Response) => {
      const name = new URL(r.url()).pathname;
      if (!/\.(m?js|css|wasm)$/.test(name)) return;
      bodies.push(r.body().then((b) => void files.set(name.split('/').pop()!, b.length)));
    });
    await page.goto(`${site.origin()}/budget/index.html`);
    await page.waitForFunction(() => (window as unknown as { rendered?: boolean }).rendered === true);
    await Promise.all(bodies);
    const sum = () => [...files.values()].reduce((a, b) => a + b, 0);
    const list = () => [...files].map(([f, n]) => `${f} ${n}`).join(', ');
    const total = sum();
    test.info().annotations.push({ type: 'first load', description: `${total} bytes: ${list()}` });
    expect(
      [...files.keys()].some((f) => /^layernorm-simd.*\.wasm$/.test(f)),
      list(),
    ).toBe(true);
    expect(total, `first load: ${list()}`).toBeLessThanOrEqual(BUDGET);
    await expect(page.locator('#fact-norm')).toHaveText('LayerNorm (γ and β)');
    await Promise.all(bodies);
    const withSrc = sum();
    test.info().annotations.push({ type: 'with the weights of src', description: `${withSrc} bytes: ${list()}` });
    expect(withSrc, `first load with src: ${list()}`).toBeLessThanOrEqual(BUDGET);
    await nearExtras(page);
    await expect(page.locator('#gb-callouts')).toContainText('largest gain');
    await Promise.all(bodies);
    test.info().annotations.push({ type: 'with the γ/β section', description: `${sum()} bytes: ${list()}` });
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  } finally {
    app.remove();
  }
});
