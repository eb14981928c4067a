import { test, expect, ready, openCard, shot, D } from './fixtures';
import type { Page } from '@playwright/test';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

/** Waits until the explainer shows a computed token. */
async function explained(page: Page): Promise<void> {
  await expect(page.locator('#explain')).toHaveAttribute('data-mounted', 'true');
  await expect(page.locator('#ex-token')).toContainText('row');
}

test('?embed=explain renders only the explainer card, sized for an <iframe>', async ({ page }) => {
  await page.setViewportSize({ width: 720, height: 900 });
  await page.goto('./?embed=explain&row=3');
  await explained(page);
  await expect(page.locator('#ex-token')).toHaveText('row 3 (b 0, t 3)');
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
  // Only the explainer's code was loaded: none of the other cards' panels.
  const scripts = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
  expect(scripts.filter((u) => /\/assets\/(page|check)-[\w-]+\.js$/.test(u))).toEqual([]);
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
