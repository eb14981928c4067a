import { test, expect, ready, openCard, shot, GAMMA, BETA, D } from './fixtures';
import { layerNormReference } from 'layernorm-wasm';
import { npy, testActivations } from './helpers';
import type { Page } from '@playwright/test';

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

async function noSidewaysScroll(page: Page, state: string): Promise<void> {
  const widths = await page.evaluate(() => ({
    doc: document.documentElement.scrollWidth,
    body: document.body.scrollWidth,
    wide: [...document.querySelectorAll('body *')]
      .filter((e) => {
        const r = e.getBoundingClientRect();
        // Anything reaching past the right edge that is not inside a scroll container of its own.
        return r.width > 0 && r.right > innerWidth + 1 && !e.closest('.table-wrap, .eq, pre');
      })
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className}`),
  }));
  expect(widths, state).toEqual({ doc: 390, body: 390, wide: [] });
}

test('no sideways scrolling in any state of the page', async ({ page }) => {
  await ready(page);
  await noSidewaysScroll(page, 'first load');
  await openCard(page, 'explain');
  await page.locator('input[name="exview"][value="all"]').check();
  await expect(page.locator('#stages .chart').first()).toHaveAttribute('aria-label', /features 0 to 767/);
  await noSidewaysScroll(page, 'explainer, all features');
  await openCard(page, 'check');
  const x = testActivations(3, D, 2);
  await page
    .locator('#npy-file')
    .setInputFiles({ name: 'x.npy', mimeType: 'application/octet-stream', buffer: npy(x, [3, D]) });
  await expect(page.locator('#out-summary')).toContainText('Output [3, 768]');
  const y = layerNormReference(x, D, { gamma: GAMMA, beta: BETA });
  y[5]! += 1;
  await page.locator('#expected-file').setInputFiles({
    name: 'a-rather-long-name-for-the-pytorch-output.npy',
    mimeType: 'application/octet-stream',
    buffer: npy(y, [3, D]),
  });
  await expect(page.locator('#expected-result')).toContainText('FAIL');
  await page.locator('#scalar-btn').click();
  await expect(page.locator('#scalar-result')).toContainText('Bit-identical');
  await page.locator('#copy-embed').click();
  await noSidewaysScroll(page, 'lab with results, embed code open');
  await shot(page, '15-phone');
});

test('touch wording, a zoomable heatmap, and a tap that picks the token', async ({ page }) => {
  await ready(page);
  await expect(page.locator('#heat-hint')).toContainText('Tap a row to explain that token');
  const text = await page.evaluate(() => document.body.innerText);
  expect(text).not.toMatch(/\bhover\b/i);
  await page.locator('#heat-zoom').selectOption('16');
  await expect(page.locator('#heat-axes')).toHaveText('rows (tokens) ↓ · features 423 … 470 →');
  const box = (await page.locator('#heatmap').boundingBox())!;
  expect(box.height / 16, 'rows tall enough to tap').toBeGreaterThanOrEqual(20);
  await page.locator('#heatmap').tap({ position: { x: box.width / 2, y: (9.5 / 16) * box.height } });
  await expect(page.locator('#heat-readout')).toContainText('row 9 (b 0, t 9), feature 447');
  await openCard(page, 'explain');
  await expect(page.locator('#ex-token')).toHaveText('row 9 (b 0, t 9)');
  await page.locator('input[name="exview"][value="all"]').check();
  await expect(page.locator('#ex-zoom-hint .touch-only')).toHaveText('type the range to zoom');
  await expect(page.locator('#ex-zoom-hint .touch-only')).toBeVisible();
  await expect(page.locator('#ex-zoom-hint .pointer-only')).toBeHidden();
});

test('the embedded explainer fits a phone', async ({ page }) => {
  await page.goto('./?embed=explain');
  await expect(page.locator('#ex-token')).toContainText('row 0');
  await noSidewaysScroll(page, 'embed');
});
