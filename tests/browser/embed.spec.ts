import { test, expect, ready, openCard, shot, D } from './fixtures';
import { exactStats } from '../kit/stats.mjs';
import { testActivations } from './helpers';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

/** Waits until the explainer shows a computed token. */
async function explained(page: Page): Promise<void> {
  await expect(page.locator('layernorm-explainer')).toBeVisible();
  await expect(page.locator('#ex-token')).toContainText('row');
}

test('?embed=explain is the <layernorm-explainer> alone on a bare page, sized for an <iframe>', async ({ page }) => {
  await page.setViewportSize({ width: 720, height: 900 });
  await page.goto('./?embed=explain&row=3');
  await explained(page);
  await expect(page.locator('#ex-token')).toHaveText('row 3 (b 0, t 3)');
  await expect(page.locator('body > main > *')).toHaveCount(4);
  await expect(page.locator('.step')).toHaveCount(0);
  for (const hidden of [
    'header.site',
    '#weights-card',
    '#act-card',
    '#output-card',
    '#check',
    '#speed',
    '.site-foot',
  ]) {
    await expect(page.locator(hidden)).toBeHidden();
  }
  await expect(page.getByRole('link', { name: 'Open the full page ↗' })).toBeVisible();
  await expect(page.locator('#copy-link')).toBeHidden();
  await expect(page.locator('#stages .chart')).toHaveCount(5);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(720);
  // Only the explainer's code was loaded: none of the other cards' panels, no engine worker.
  const scripts = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
  expect(scripts.filter((u) => /\/assets\/(page|check|worker)-[\w-]+\.js$/.test(u))).toEqual([]);
  await shot(page, '14-embed');
});

test('embedded in an article: the frame shows the explainer and reports its height', async ({ page, baseURL }) => {
  const src = new URL('./?embed=explain&row=2&v=nobias', baseURL).href;
  await page.setContent(
    `<h1>An article</h1><iframe id="f" src="${src}" title="LayerNorm explainer" width="640" height="600"></iframe>`,
  );
  await page.evaluate(() => {
    const w = window as unknown as { heights: number[] };
    w.heights = [];
    addEventListener('message', (e) => {
      if ((e.data as { type?: string })?.type === 'layernorm-embed:height')
        w.heights.push((e.data as { height: number }).height);
    });
  });
  const frame = page.frameLocator('#f');
  await expect(frame.locator('#ex-token')).toHaveText('row 2 (b 0, t 2)', { timeout: 30_000 });
  await expect(frame.locator('#param-count')).toHaveText('γ 768 = 768 (no β)');
  await expect
    .poll(() => page.evaluate(() => Math.max(0, ...(window as unknown as { heights: number[] }).heights)))
    .toBeGreaterThan(1000);
});

test('a permalink restores weights source, sample, row, features, scale, ε and variant', async ({ page, context }) => {
  await ready(page);
  // Change everything the link carries.
  await page.locator('input[name="wsrc"][value="synthetic"]').check();
  await page.locator('#weights-seed').fill('4');
  await page.locator('#weights-seed').dispatchEvent('change');
  await expect(page.locator('#weights-summary')).toContainText('Synthetic demo weights (seed 4)');
  await page.locator('#gen-b').fill('2');
  await page.locator('#gen-t').fill('8');
  await page.locator('#gen-seed').fill('3');
  await page.locator('#gen-btn').click();
  await expect(page.locator('#out-summary')).toContainText('Output [2, 8, 768]');
  await page.locator('input[name="preset"][value="biasfree"]').check();
  await page.locator('#eps').fill('0.001');
  await expect(page.locator('#out-summary')).toContainText('ε = 0.001, bias-free');
  await openCard(page, 'explain');
  await page.locator('#ex-row').fill('11');
  await page.locator('input[name="exview"][value="all"]').check();
  await page.locator('#ex-zoom-from').fill('400');
  await page.locator('#ex-zoom-to').fill('500');
  await page.locator('#ex-zoom-to').press('Enter');
  await page.locator('input[name="exscale"][value="linear"]').check();
  await expect(page.locator('#stages .chart').first()).toHaveAttribute('aria-label', /features 400 to 500/);
  await expect.poll(() => page.url()).toContain('scale=linear');
  const url = page.url();
  for (const p of [
    'w=synthetic',
    'ws=4',
    'v=nobias',
    'eps=0.001',
    'b=2',
    't=8',
    'seed=3',
    'row=11',
    'view=all',
    'from=400',
    'to=500',
  ]) {
    expect(url).toContain(p);
  }
  // "Copy link" gives the same address.
  await page.locator('#copy-link').click();
  await expect(page.locator('#share-msg')).toContainText('Link copied.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
  // A new visitor opening it sees the same view.
  const other = await context.newPage();
  await other.goto(url);
  await expect(other.locator('#weights-summary')).toContainText('Synthetic demo weights (seed 4)');
  await expect(other.locator('#out-summary')).toContainText('Output [2, 8, 768]: 12,288 values, ε = 0.001, bias-free');
  await expect(other.locator('input[name="preset"][value="biasfree"]')).toBeChecked();
  await expect(other.locator('#eps')).toHaveValue('0.001');
  await other.locator('#explain').scrollIntoViewIfNeeded();
  await expect(other.locator('#ex-token')).toHaveText('row 11 (b 1, t 3)');
  await expect(other.locator('input[name="exview"][value="all"]')).toBeChecked();
  await expect(other.locator('input[name="exscale"][value="linear"]')).toBeChecked();
  await expect(other.locator('#stages .chart').first()).toHaveAttribute('aria-label', /features 400 to 500/);
  await other.close();
});

test('a permalink to weights at a URL loads them with range reads; bad values in a link are ignored', async ({
  page,
  server,
}) => {
  const url = server.url('model.safetensors');
  server.reset();
  await ready(page, `./?w=${encodeURIComponent(url)}&row=-4&eps=abc&view=sideways&b=999`, url);
  await expect(page.locator('#weights-summary')).toContainText(`d = ${D}`);
  expect(server.bytesSent()).toBeLessThan(32 * 1024);
  await expect(page.locator('input[name="wsrc"][value="url"]')).toBeChecked();
  await expect(page.locator('#weights-url')).toHaveValue(url);
  await expect(page.locator('#eps')).toHaveValue('1e-5');
  await expect(page.locator('#out-summary')).toContainText('Output [1, 16, 768]');
  await openCard(page, 'explain');
  await expect(page.locator('#ex-token')).toHaveText('row 0 (b 0, t 0)');
  await expect(page.locator('input[name="exview"][value="window"]')).toBeChecked();
  // The link to share names the weights' URL.
  await page.locator('#copy-embed').click();
  await expect(page.locator('#embed-code')).toHaveValue(
    new RegExp(`^<iframe src="[^"]*w=${encodeURIComponent(url).replace(/[.]/g, '\\.')}`),
  );
  await expect(page.locator('#embed-code')).toHaveValue(/embed=explain/);
});

/**
 * An article on another origin (a second local server) embeds the explainer and talks to it:
 * it sends its own activations, tokens and row once the frame says it is ready, and receives the
 * frame's height and the rows the reader picks; a message it cannot use is answered with why.
 */
test.describe('the postMessage API, across origins', () => {
  let host: Server;
  let hostOrigin = '';
  const TOKENS = ['The', ' cat', ' sat', ' on', ' mat'];
  const x = testActivations(TOKENS.length, D, 11);
  test.beforeAll(async ({ baseURL }) => {
    const embed = new URL('./?embed=explain', baseURL);
    const article = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>An article</title></head>
<body><main><h1>An article about normalization</h1>
<iframe id="f" src="${embed.href}" title="LayerNorm explainer" width="720" height="600" style="border:0"></iframe>
</main>
<script>
  const frame = document.getElementById('f');
  window.got = { ready: 0, heights: [], rows: [], errors: [] };
  window.send = (message) => frame.contentWindow.postMessage(message, ${JSON.stringify(embed.origin)});
  addEventListener('message', (e) => {
    if (e.source !== frame.contentWindow) return;
    const m = e.data;
    if (m.type === 'layernorm-embed:ready') {
      got.ready++;
      send({ type: 'layernorm-embed:set', activations: { data: ${JSON.stringify(Array.from(x))}, shape: [1, ${TOKENS.length}, ${D}] }, tokens: ${JSON.stringify(TOKENS)}, row: 2 });
    }
    if (m.type === 'layernorm-embed:height') { got.heights.push(m.height); frame.style.height = m.height + 'px'; }
    if (m.type === 'layernorm-embed:rowchange') got.rows.push([m.row, m.token]);
    if (m.type === 'layernorm-embed:error') got.errors.push(m.message);
  });
</script></body></html>`;
    host = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(article));
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    hostOrigin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  });
  test.afterAll(() => new Promise<void>((resolve) => (host.closeAllConnections(), host.close(() => resolve()))));

  test('the article sends activations, tokens and a row; it receives the height and the reader’s picks', async ({
    page,
    baseURL,
  }) => {
    expect(new URL(baseURL!).origin).not.toBe(hostOrigin);
    await page.goto(`${hostOrigin}/article.html`);
    const frame = page.frameLocator('#f');
    await expect(frame.locator('#ex-token')).toHaveText('row 2 “␣sat”', { timeout: 30_000 });
    // The article's own numbers: its row's mean as the module computed it.
    const mean = exactStats(x, D).mean[2]!;
    expect(Math.abs(Number(await frame.locator('#ex-mean').textContent()) - mean)).toBeLessThan(
      1e-5 * (1 + Math.abs(mean)),
    );
    const got = () =>
      page.evaluate(
        () =>
          (window as unknown as { got: { ready: number; heights: number[]; rows: unknown[]; errors: string[] } }).got,
      );
    expect((await got()).ready).toBe(1);
    await expect.poll(async () => Math.max(0, ...(await got()).heights)).toBeGreaterThan(1000);
    // The frame is as tall as the explainer: the article fits it to the last height it was sent
    // (read together with the frame's, as the content may still grow or shrink while it settles).
    await expect
      .poll(async () => {
        const heights = (await got()).heights;
        return (await page.locator('#f').boundingBox())!.height - heights[heights.length - 1]!;
      })
      .toBe(0);
    // The reader picks a token in the frame: the article hears of it.
    await frame.getByRole('option', { name: '␣mat' }).click();
    await expect(frame.locator('#ex-token')).toHaveText('row 4 “␣mat”');
    await expect.poll(async () => (await got()).rows).toEqual([[4, ' mat']]);
    // A row set by the article is not the reader's pick: no rowchange.
    await page.evaluate(() =>
      (window as unknown as { send(m: unknown): void }).send({ type: 'layernorm-embed:set', row: 1 }),
    );
    await expect(frame.locator('#ex-token')).toHaveText('row 1 “␣cat”');
    // What the frame cannot use, it says.
    await page.evaluate(() =>
      (window as unknown as { send(m: unknown): void }).send({
        type: 'layernorm-embed:set',
        activations: { data: 'x', shape: [1] },
      }),
    );
    await page.evaluate(() =>
      (window as unknown as { send(m: unknown): void }).send({ type: 'layernorm-embed:set', tokens: ['a'] }),
    );
    await expect
      .poll(async () => (await got()).errors)
      .toEqual([
        'activations.data must be a Float32Array or an array of numbers',
        '<layernorm-explainer>: activations.tokens must have length 5 (one string per row), got length 1',
      ]);
    expect((await got()).rows).toEqual([[4, ' mat']]);
    // The refused tokens are said in the frame in place of the drawing, until good ones come.
    await expect(frame.locator('#ex-status')).toContainText('activations.tokens must have length 5');
    await page.evaluate(() =>
      (window as unknown as { send(m: unknown): void }).send({
        type: 'layernorm-embed:set',
        tokens: ['The', ' cat', ' sat', ' on', ' mat'],
      }),
    );
    await expect(frame.locator('#ex-token')).toHaveText('row 1 “␣cat”');
  });

  test('the article sends a d = 16 RMSNorm: its weights and its own feature window; every refusal is answered', async ({
    page,
  }) => {
    await page.goto(`${hostOrigin}/article.html`);
    const frame = page.frameLocator('#f');
    await expect(frame.locator('#ex-token')).toHaveText('row 2 “␣sat”', { timeout: 30_000 });
    const send = (m: unknown) => page.evaluate((m) => (window as unknown as { send(m: unknown): void }).send(m), m);
    const got = () => page.evaluate(() => (window as unknown as { got: { heights: number[]; errors: string[] } }).got);
    const tall = Math.max(...(await got()).heights);
    // Row 2's strongest feature is 11: the window is placed around it, as the text says.
    const x = Array.from({ length: 3 * 16 }, (_, i) => (i % 16 === 11 ? 40 : (i % 7) - 3));
    const gamma = Array.from({ length: 16 }, (_, i) => 1 + i / 16);
    await send({
      type: 'layernorm-embed:set',
      activations: { data: x, shape: [3, 16], tokens: ['a', 'b', 'c'] },
      weights: { gamma, eps: 1e-6, norm: 'rmsnorm' },
      row: 2,
    });
    await expect(frame.locator('#fact-norm')).toHaveText('RMSNorm (γ only)');
    await expect(frame.locator('#fact-eps')).toHaveText('1e-6');
    await expect(frame.locator('#fact-shape')).toContainText('[3, 16]');
    await expect(frame.locator('#ex-start')).toHaveValue('8');
    await send({ type: 'layernorm-embed:set', view: 'all', scale: 'linear' });
    await expect(frame.locator('#stages .chart').first()).toHaveAttribute('data-scale', 'linear');
    // What it cannot use: each answered, naming the key.
    await send({ type: 'layernorm-embed:set', row: 99 });
    await send({ type: 'layernorm-embed:set', row: 0, weights: { gamma: [1, 2] } });
    await send({ type: 'layernorm-embed:set', colour: 'red' });
    await send({ type: 'layernorm-embed:set', scale: 'log' });
    await expect
      .poll(async () => (await got()).errors)
      .toEqual([
        'Row 99 does not exist: these activations have 3 rows (0 to 2).',
        "The weights have d = 2 but the activations' last axis is 16 ([3, 16]): they must be equal.",
        'unknown key "colour" in a set message; the keys are activations, tokens, row, weights, start, view, scale',
        "<layernorm-explainer>: scale must be 'symlog', 'linear' or 'own', got string \"log\"",
      ]);
    // Three tokens of d = 16 are shorter than the sample: the frame shrinks with them.
    await expect.poll(async () => Math.min(...(await got()).heights.slice(1))).toBeLessThan(tall);
  });
});
