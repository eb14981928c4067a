/**
 * <layernorm-explainer> from HTML alone: `activations-src` (.npy with `tokens-src`, or JSON with
 * the tokens inside), an inline `<script type="application/json">` child, the empty element saying
 * what to set, properties set before the element is defined, an HTML page answered for a file's
 * URL, and attributes whose values fall back to the default with a note.
 */
import { npy as writeNpy } from '../../kit/checkpoints/index.mjs';
import { test, expect, HF_URL, GAMMA, BETA } from '../fixtures';
import { explainerPage, hiddenStates, open } from './pages';
import { IMPORT_MAP, serveSite } from './site';
import { specBlocks } from '../../readme/blocks';
import type { Page } from '@playwright/test';

const site = serveSite();
const TOKENS = ['<|endoftext|>', 'The', ' cat', ' sat'];
const X = hiddenStates(TOKENS.length);
const HTML_PAGE = '<!doctype html><html><head><title>Home</title></head><body>Welcome</body></html>';

/** A page with only markup: the module is imported, nothing else is scripted. */
function markupPage(name: string, body: string): string {
  return site.put(`/m/${name}.html`, markupPageHtml(name, body));
}

function markupPageHtml(name: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title>${IMPORT_MAP}</head>
<body><main><h1>${name}</h1>${body}</main>
<script type="module">import 'layernorm-wasm/explainer';</script></body></html>`;
}

/** The element's stages against the runtime's layerNormStages for its row, weights and activations. */
async function sameAsRuntime(page: Page): Promise<boolean> {
  return page.evaluate(async () => {
    const el = document.querySelector('layernorm-explainer')!;
    await el.ready;
    const { init } = await import('/dist/index.js' as string);
    const rt = await init();
    const a = el.activations!;
    const w = el.weights;
    const want = rt.layerNormStages(a.data, a.shape.at(-1), el.row, { gamma: w?.gamma, beta: w?.beta, eps: 1e-5 });
    const got = el.stages!;
    return !!got && got.output.every((v: number, i: number) => Object.is(v, want.output[i]));
  });
}

test('activations-src (.npy) and tokens-src with a src: a tag alone shows the author’s token', async ({ page }) => {
  site.put('/m/hidden.npy', writeNpy(new Float32Array(X), [TOKENS.length, 768]));
  site.put('/m/tokens.json', JSON.stringify(TOKENS));
  await page.goto(
    markupPage(
      'npy',
      `<layernorm-explainer src="${HF_URL}" activations-src="hidden.npy" tokens-src="tokens.json" row="2"></layernorm-explainer>`,
    ),
  );
  await expect(page.locator('#ex-token')).toHaveText('row 2 “␣cat”');
  await expect(page.locator('#fact-norm')).toHaveText('LayerNorm (γ and β)');
  await expect(page.locator('#fact-shape')).toContainText('[4, 768]');
  expect(await sameAsRuntime(page)).toBe(true);
});

test('activations-src as JSON with the tokens inside, and an inline JSON script with weights', async ({ page }) => {
  const rows = Array.from({ length: TOKENS.length }, (_, r) => X.slice(r * 768, (r + 1) * 768));
  site.put('/m/hidden.json', JSON.stringify({ activations: rows, tokens: TOKENS }));
  await page.goto(
    markupPage('json', `<layernorm-explainer activations-src="hidden.json" row="3"></layernorm-explainer>`),
  );
  await expect(page.locator('#ex-token')).toHaveText('row 3 “␣sat”');
  expect(await sameAsRuntime(page)).toBe(true);

  const inline = JSON.stringify({
    weights: { gamma: Array.from(GAMMA), beta: Array.from(BETA) },
    activations: { data: X, shape: [TOKENS.length, 768] },
    tokens: TOKENS,
  });
  await page.goto(
    markupPage(
      'inline',
      `<layernorm-explainer row="1"><script type="application/json">${inline}</script></layernorm-explainer>`,
    ),
  );
  await expect(page.locator('#ex-token')).toHaveText('row 1 “The”');
  await expect(page.locator('#fact-norm')).toHaveText('LayerNorm (γ and β)');
  expect(await sameAsRuntime(page)).toBe(true);
});

test('the empty element says what to set, with an example; it goes once there is data', async ({ page }) => {
  await page.goto(markupPage('empty', '<layernorm-explainer></layernorm-explainer>'));
  await expect(page.locator('#ex-status')).toContainText('Nothing to explain yet');
  await expect(page.locator('#ex-status')).toContainText('activations-src="hidden.npy"');
  await expect(page.locator('#ex-status')).toContainText('el.activations = { data, shape: [tokens, d], tokens }');
  await expect(page.locator('#fact-norm')).toHaveCount(0);
  await expect(page.getByRole('listbox')).toBeHidden();
  await page.evaluate(
    (x) =>
      (document.querySelector('layernorm-explainer')!.activations = {
        data: new Float32Array(x),
        shape: [x.length / 768, 768],
      }),
    X,
  );
  await expect(page.locator('#ex-token')).toHaveText('row 0');
  await expect(page.locator('#ex-status')).toBeHidden();
});

test('properties set before the element is defined are taken up (and checked)', async ({ page }) => {
  const url = site.put(
    '/m/early.html',
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>early</title>${IMPORT_MAP}</head>
<body><main><layernorm-explainer></layernorm-explainer></main>
<script>
  const el = document.querySelector('layernorm-explainer');
  el.activations = { data: ${JSON.stringify(X)}, shape: [${TOKENS.length}, 768], tokens: ${JSON.stringify(TOKENS)} };
  el.row = 3;
</script>
<script type="module">await new Promise((r) => setTimeout(r, 50)); await import('layernorm-wasm/explainer');</script>
</body></html>`,
  );
  await page.goto(url);
  await expect(page.locator('#ex-token')).toHaveText('row 3 “␣sat”');
  expect(
    await page.evaluate(() => document.querySelector('layernorm-explainer')!.activations!.data.constructor.name),
  ).toBe('Float32Array');
  expect(await sameAsRuntime(page)).toBe(true);
});

test.describe('a URL answered with an HTML page', () => {
  test('says the server sent an HTML page and suggests a wrong URL, for src and activations-src', async ({ page }) => {
    site.put('/m/typo/model.safetensors', HTML_PAGE);
    site.put('/m/typo/hidden.npy', HTML_PAGE);
    await page.goto(
      markupPage('html-answer', '<layernorm-explainer activations-src="typo/hidden.npy"></layernorm-explainer>'),
    );
    const errors: string[] = [];
    await page.exposeFunction('said', (m: string) => errors.push(m));
    await page.evaluate(() =>
      document
        .querySelector('layernorm-explainer')!
        .addEventListener('error', (e) =>
          (window as unknown as { said(m: string): void }).said((e as CustomEvent).detail.message),
        ),
    );
    await expect(page.locator('#ex-status')).toContainText(
      `Could not read the activations from typo/hidden.npy: the server sent an HTML page for ${site.origin()}/m/typo/hidden.npy, not the file: is the URL right?`,
    );
    await page.evaluate((x) => {
      const el = document.querySelector('layernorm-explainer')!;
      el.removeAttribute('activations-src');
      el.activations = { data: new Float32Array(x), shape: [x.length / 768, 768] };
      el.setAttribute('src', 'typo/model.safetensors');
    }, X);
    await expect(page.locator('#ex-status')).toContainText(
      `Could not load the weights from typo/model.safetensors: the server sent an HTML page for ${site.origin()}/m/typo/model.safetensors, not the file: is the URL right?`,
    );
    // The error event says the same (the activations' may have come before the listener).
    await expect
      .poll(() => errors.filter((m) => m.startsWith('Could not load the weights') && m.includes('an HTML page')).length)
      .toBe(1);
  });
});

test('scale="log", view="grid" and theme="purple" fall back to the default with a note; the charts stay', async ({
  page,
}) => {
  await open(
    page,
    explainerPage(
      site,
      'fallback',
      '<layernorm-explainer scale="log" view="grid" theme="purple"></layernorm-explainer>',
      `document.querySelector('layernorm-explainer').activations = { data: new Float32Array(${JSON.stringify(X)}), shape: [4, 768] };`,
    ),
  );
  await expect(page.locator('#ex-notes')).toHaveText(
    'scale="log" is not one of symlog, linear, own: showing symlog. view="grid" is not one of window, all: showing window. theme="purple" is not one of light, dark, auto: showing light.',
  );
  await expect(page.locator('#stages figure:visible strong')).toHaveCount(5);
  await expect(page.locator('#ex-window-ctl')).toBeVisible();
  await expect(page.locator('#ex-status')).toBeHidden();
  expect(await page.locator('layernorm-explainer').evaluate((el: HTMLElement & { theme: string }) => el.theme)).toBe(
    'light',
  );
});

test('the README’s two tags, as written: a checkpoint with a .npy and its tokens, and an inline JSON child', async ({
  page,
  server,
}) => {
  const [block] = specBlocks('tests/browser/explainer/markup.spec.ts');
  expect(block!.lang).toBe('html');
  site.put('/readme-markup/hidden.npy', writeNpy(new Float32Array(X), [TOKENS.length, 768]));
  site.put('/readme-markup/tokens.json', JSON.stringify(TOKENS));
  await page.route('**/readme-markup/model.safetensors', async (route) =>
    route.fulfill({ response: await route.fetch({ url: server.url('model.safetensors') }) }),
  );
  await page.goto(site.put('/readme-markup/index.html', markupPageHtml('readme', block!.code)));
  const [first, second] = [page.locator('layernorm-explainer').nth(0), page.locator('layernorm-explainer').nth(1)];
  await expect(first.locator('#ex-token')).toHaveText('row 0 “<|endoftext|>”');
  await expect(first.locator('#fact-norm')).toHaveText('LayerNorm (γ and β)');
  await expect(second.locator('#ex-token')).toHaveText('row 0 “Hi”');
  await expect(second.locator('#fact-shape')).toContainText('[1, 4]');
});
