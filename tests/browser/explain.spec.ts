import {
  test,
  expect,
  shot,
  ready,
  openCard,
  stageRow,
  nearExtras,
  clickHeatmapRow,
  GAMMA,
  BETA,
  D,
  FORM_NAMES,
} from './fixtures';
import { layerNormReference } from 'layernorm-wasm';
import { exactStats } from '../kit/stats.mjs';
import { maxRelErr, testActivations, toText } from './helpers';
import type { Page } from '@playwright/test';

/** The bars a stage chart draws: one rect each for a few features, else one path segment each (per sign). */
async function bars(page: Page, stage: number): Promise<number> {
  return page
    .locator('#stages svg.chart')
    .nth(stage)
    .evaluate(
      (svg) =>
        svg.querySelectorAll('rect.bar').length +
        [...svg.querySelectorAll('path.bar')].reduce((n, p) => n + (p.getAttribute('d')?.match(/M/g)?.length ?? 0), 0),
    );
}

async function paste(page: Page, x: Float32Array): Promise<void> {
  await page.locator('#paste').fill(toText(x, D));
  await page.locator('#paste-btn').click();
  await expect(page.locator('#out-summary')).toContainText(`Output [${x.length / D}, 768]`);
}

test('one token through every stage: μ, σ², 1/σ and the stage table match the exact answer', async ({ page }) => {
  await ready(page);
  const x = testActivations(4, D, 9);
  await paste(page, x);
  await openCard(page, 'explain');
  await page.locator('#ex-row').fill('2');
  const ref = { ...exactStats(x, D), y: layerNormReference(x, D, { gamma: GAMMA, beta: BETA }) };
  await expect(page.locator('#ex-token')).toHaveText('row 2');
  const mu = Number(await page.locator('#ex-mean').textContent());
  const v = Number(await page.locator('#ex-var').textContent());
  const rstd = Number(await page.locator('#ex-rstd').textContent());
  expect(Math.abs(mu - ref.mean[2]!)).toBeLessThan(1e-5 * Math.abs(ref.mean[2]!) + 1e-6);
  expect(Math.abs(v - ref.variance[2]!) / ref.variance[2]!).toBeLessThan(1e-5);
  expect(Math.abs(rstd - ref.rstd[2]!) / ref.rstd[2]!).toBeLessThan(1e-5);
  const y = await stageRow(page, 'y');
  expect(y).toHaveLength(8);
  expect(maxRelErr(y, Array.from(ref.y.subarray(2 * D + 444, 2 * D + 452)))).toBeLessThan(1e-4);
  await expect(page.locator('#equation math').first()).toBeVisible();
  await expect(page.locator('#ex-insight')).toContainText('Feature 447');
  await expect(page.locator('#stages .chart')).toHaveCount(5);
  await expect.poll(() => bars(page, 0)).toBe(8);
  await shot(page, '03-explainer-window');
  // All d, zoomed to a range typed in, then reset.
  await page.locator('input[name="exview"][value="all"]').check();
  await page.locator('#ex-zoom-from').fill('400');
  await page.locator('#ex-zoom-to').fill('500');
  await page.locator('#ex-zoom-to').press('Enter');
  await expect(page.locator('#stages .chart').first()).toHaveAttribute('aria-label', /features 400 to 500/);
  await page.locator('#ex-zoom-reset').click();
  await expect(page.locator('#stages .chart').first()).toHaveAttribute('aria-label', /features 0 to 767/);
  // 768 bars, each under a pixel wide, are still drawn, in every stage.
  for (let i = 0; i < 5; i++) await expect.poll(() => bars(page, i)).toBeGreaterThan(700);
  await shot(page, '04-explainer-all');
});

test('the stages share one scale, linear or symmetric-log, or each has its own', async ({ page }) => {
  await ready(page);
  await openCard(page, 'explain');
  const charts = page.locator('#stages .chart');
  await expect(charts).toHaveCount(5);
  const ranges = async () => charts.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.range));
  // Shared symmetric log (the default): one range for all five, and it spans x's massive 447.
  await expect(charts.first()).toHaveAttribute('data-scale', 'symlog');
  let r = await ranges();
  expect(new Set(r).size, r.join(' | ')).toBe(1);
  const top = Number(r[0]!.split(' … ')[1]);
  expect(top).toBeGreaterThan(100);
  await page.locator('input[name="exscale"][value="linear"]').check();
  await expect(charts.first()).toHaveAttribute('data-scale', 'linear');
  r = await ranges();
  expect(new Set(r).size).toBe(1);
  await page.locator('input[name="exscale"][value="own"]').check();
  await expect.poll(async () => new Set(await ranges()).size).toBe(5);
  // x̂'s own range is far smaller than x's: the squeeze the shared scale shows.
  r = await ranges();
  expect(Number(r[2]!.split(' … ')[1])).toBeLessThan(Number(r[0]!.split(' … ')[1]) / 10);
});

test('γ and β of the loaded weights, with callouts for the notable features', async ({ page }) => {
  await ready(page);
  await openCard(page, 'explain');
  const top = GAMMA.indexOf(Math.max(...GAMMA));
  const low = GAMMA.indexOf(Math.min(...GAMMA));
  const bigBeta = Array.from(BETA).reduce((a, v, j) => (Math.abs(v) > Math.abs(BETA[a]!) ? j : a), 0);
  await nearExtras(page);
  const callouts = page.locator('#gb-callouts li');
  await expect(callouts.first()).toContainText(`Feature ${top} has the largest gain`);
  await expect(page.locator('#gb-callouts')).toContainText(`Feature ${bigBeta} has the largest bias`);
  await expect(page.locator('#gb-callouts')).toContainText(`Feature ${low} has the smallest gain`);
  await expect(page.locator('#gb-callouts')).toContainText("Feature 447, one of GPT-2's massive channels");
  await expect(page.locator('#gb-chart path.line')).toHaveCount(2);
  await expect(page.locator('#gb-chart')).toHaveAttribute('aria-label', /γ and β for all 768 features/);
});

test('where ln_f sits in GPT-2, and how bias-free LayerNorm and RMSNorm differ on this token', async ({ page }) => {
  await ready(page);
  const x = testActivations(2, D, 3);
  for (let j = 0; j < D; j++) x[D + j]! += 5; // row 1: a mean far from 0
  await paste(page, x);
  await openCard(page, 'explain');
  const steps = page.getByRole('list', { name: 'GPT-2 small from tokens to logits' }).locator('li strong');
  await expect(steps).toHaveText(['Tokens', 'Embeddings', '12 transformer blocks', 'ln_f', 'Unembedding', 'Logits']);
  await page.locator('#ex-row').fill('1');
  const { mean: means, variance } = exactStats(x, D);
  const mean = means[1]!;
  const rms = 1 / exactStats(x, D, { norm: 'rmsnorm' }).rstd[1]!; // √(mean(x²) + ε)
  await nearExtras(page);
  const text = page.locator('#variants-text');
  await expect(text).toContainText(`For row 1: μ = ${Number(mean.toPrecision(4))}`);
  await expect(text).toContainText(`(with ε)`);
  const shown = Number(/root mean square √\(σ² \+ μ²\) = ([\d.]+)/.exec((await text.textContent()) ?? '')![1]);
  expect(Math.abs(shown - rms) / rms).toBeLessThan(1e-3);
  await expect(text).toContainText(`μ/σ = ${Number((mean / Math.sqrt(variance[1]!)).toPrecision(3))} here`);
  await expect(text).toContainText('Bias-free LayerNorm is LayerNorm minus β');
  // A chart per form (LayerNorm, bias-free, RMSNorm) side by side on one value axis, each named.
  expect(FORM_NAMES.slice(0, 3)).toEqual(['LayerNorm', 'bias-free', 'RMSNorm']);
  await expect(page.locator('#variants-chart figure strong')).toHaveText(FORM_NAMES);
  await expect(page.locator('#variants-chart svg.chart')).toHaveCount(FORM_NAMES.length);
});

test('clicking or pressing Enter on a heatmap row explains that token', async ({ page }) => {
  await ready(page);
  await openCard(page, 'explain');
  // 16 rows: click in the middle of row 5.
  await clickHeatmapRow(page, 5, 16);
  await expect(page.locator('#ex-row')).toHaveValue('5');
  await expect(page.locator('#ex-token')).toHaveText('row 5 (b 0, t 5)');
  await page.locator('#heatmap').focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page.locator('#ex-row')).toHaveValue('7');
  await expect(page.locator('#ex-token')).toHaveText('row 7 (b 0, t 7)');
  // The heatmap zooms on the features.
  await page.locator('#heat-zoom').selectOption('4');
  await expect(page.locator('#heat-axes')).toHaveText('rows (tokens) ↓ · features 351 … 542 →');
});
