import AxeBuilder from '@axe-core/playwright';
import { test, expect, ready, openCard, D, GAMMA, BETA } from './fixtures';
import { normGguf } from '../kit/checkpoints/index.mjs';
import { layerNormReference } from 'layernorm-wasm';
import { npy, testActivations } from './helpers';
import type { Page } from '@playwright/test';

async function axe(page: Page, state: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const summary = violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(summary, `axe-core violations: ${state}`).toEqual([]);
}

/** Everything on screen: every card mounted, a lab result with a failing file, the embed box open. */
async function everything(page: Page): Promise<void> {
  await ready(page);
  await openCard(page, 'explain');
  await openCard(page, 'check');
  const x = testActivations(4, D, 5);
  await page
    .locator('#npy-file')
    .setInputFiles({ name: 'x.npy', mimeType: 'application/octet-stream', buffer: npy(x, [4, D]) });
  await expect(page.locator('#out-summary')).toContainText('Output [4, 768]');
  const y = layerNormReference(x, D, { gamma: GAMMA, beta: BETA });
  y[100]! += 1;
  await page
    .locator('#expected-file')
    .setInputFiles({ name: 'y.npy', mimeType: 'application/octet-stream', buffer: npy(y, [4, D]) });
  await expect(page.locator('#lab-rows-table tbody tr')).toHaveCount(4);
  await page.locator('#scalar-btn').click();
  await expect(page.locator('#scalar-result')).toContainText('Bit-identical');
  await page.locator('#copy-embed').click();
  await page.locator('#eps').fill('x'); // an invalid field and the stale notice
  await expect(page.locator('#out-stale')).toBeVisible();
}

test('axe-core finds no violations on the whole page, in every card', async ({ page }) => {
  await everything(page);
  await axe(page, 'window of 8 features');
  await page.locator('input[name="exview"][value="all"]').check();
  await expect(page.locator('#stage-table')).toContainText('zoom in');
  await axe(page, 'all features');
});

test('axe-core finds no violations with an RMSNorm checkpoint in use', async ({ page, server }) => {
  server.addFile('llama.gguf', normGguf('llama', 'layer_norm_rms_epsilon', 1e-6));
  await ready(page);
  await page.locator('input[name="wsrc"][value="url"]').check();
  await page.locator('#weights-url').fill(server.url('llama.gguf'));
  await page.locator('#weights-url').press('Enter');
  await expect(page.locator('#out-summary')).toContainText('RMSNorm (γ only)');
  await openCard(page, 'explain');
  await expect(page.locator('#ex-ms')).toBeVisible();
  await expect(page.locator('.stage-table tbody th')).toHaveText(['x', 'x̂', 'γ', 'y']);
  await openCard(page, 'check');
  await expect(page.locator('#ref-result')).toContainText('against rmsNormReference');
  await axe(page, 'RMSNorm checkpoint');
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  test('axe-core finds no violations', async ({ page }) => {
    await everything(page);
    await axe(page, 'phone');
  });
});

test('axe-core finds no violations in embed mode, light and dark', async ({ page }) => {
  await page.goto('./?embed=explain');
  await expect(page.locator('#ex-token')).toContainText('row 0');
  await axe(page, 'embed');
  await page.goto('./?embed=explain&theme=dark');
  await expect(page.locator('#ex-token')).toContainText('row 0');
  await expect(page.locator('html')).toHaveCSS('background-color', 'rgb(22, 26, 34)');
  await axe(page, 'embed, dark');
});
