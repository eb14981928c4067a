/**
 * One test per defect of the page found as a user (the explainer issue's "Page bugs"): each
 * failed against the page before the explainer became <layernorm-explainer> and the page opened on
 * it, and passes now.
 */
import {
  test,
  expect,
  ready,
  openCard,
  forwardToServer,
  nearExtras,
  clickHeatmapRow,
  HF_URL,
  GAMMA,
  BETA,
  D,
  FORM_NAMES,
} from './fixtures';
import { QWEN_CONFIG_URL, QWEN_URL, qwenCheckpoint } from '../kit/checkpoints/index.mjs';
import { layerNormReference } from 'layernorm-wasm';
import { npy, testActivations } from './helpers';
import { buildSafetensors, f32Bytes, toBytes } from '../kit/checkpoints/index.mjs';
import type { Page } from '@playwright/test';

const QWEN_LIKE_D = 896;

/** A small Qwen-like checkpoint: the final norm beside each block's two norms, and no config. */
function qwenLike(): { file: Buffer; config: Buffer; gamma: Float32Array } {
  const gamma = new Float32Array(QWEN_LIKE_D).map((_, j) => 1 + Math.sin(j) / 4);
  const tensors = [{ name: 'model.norm.weight', shape: [QWEN_LIKE_D], dtype: 'F32', data: f32Bytes(gamma) }];
  for (let i = 0; i < 2; i++) {
    for (const n of ['input_layernorm', 'post_attention_layernorm']) {
      tensors.push({
        name: `model.layers.${i}.${n}.weight`,
        shape: [QWEN_LIKE_D],
        dtype: 'F32',
        data: f32Bytes(new Float32Array(QWEN_LIKE_D).fill(1)),
      });
    }
  }
  return {
    file: Buffer.from(toBytes(buildSafetensors(tensors).file)),
    config: Buffer.from(JSON.stringify({ model_type: 'qwen2', rms_norm_eps: 1e-6, hidden_size: QWEN_LIKE_D })),
    gamma,
  };
}

test.describe('1. a Llama or Qwen checkpoint outside the Hub', () => {
  test('a local .safetensors: the page says which norms it holds, takes the pick and the config.json', async ({
    page,
  }) => {
    const qwen = qwenLike();
    await ready(page, './', 'GPT-2 small');
    await page.locator('input[name="wsrc"][value="file"]').check();
    await page
      .locator('#weights-file')
      .setInputFiles({ name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: qwen.file });
    const notice = page.locator('#weights-notice');
    await expect(notice).toContainText('holds 5 norm gains');
    await expect(notice).toContainText('does not say which is the final one. Pick it below');
    await expect(notice).not.toContainText('pass {');
    await expect(page.locator('#weights-tensor option')).toHaveText([
      'model.norm.weight',
      'model.layers.0.input_layernorm.weight',
      'model.layers.0.post_attention_layernorm.weight',
      'model.layers.1.input_layernorm.weight',
      'model.layers.1.post_attention_layernorm.weight',
    ]);
    await expect(page.locator('#weights-summary')).toContainText('GPT-2 small ln_f');
    await page
      .locator('#weights-config-file')
      .setInputFiles({ name: 'config.json', mimeType: 'application/json', buffer: qwen.config });
    await page.locator('#weights-tensor').selectOption('model.norm.weight');
    await page.locator('#weights-pick-load').click();
    await expect(page.locator('#weights-summary')).toContainText(
      'RMSNorm model.norm.weight (qwen2), ε = 1e-6 as the checkpoint states',
    );
    await expect(page.locator('#out-summary')).toContainText(`Output [1, 16, ${QWEN_LIKE_D}]`);
    await expect(page.locator('#out-summary')).toContainText('RMSNorm (γ only)');
  });

  test('a custom URL: its config.json is given beside it, and the checkpoint runs as the RMSNorm it is', async ({
    page,
    server,
  }) => {
    const qwen = qwenLike();
    server.addFile('elsewhere/model.safetensors', qwen.file);
    server.addFile('elsewhere/config.json', qwen.config);
    await ready(page, './', 'GPT-2 small');
    await page.locator('input[name="wsrc"][value="url"]').check();
    await expect(page.locator('#config-why')).toContainText('read by itself only beside a Hugging Face URL');
    await page.locator('#weights-url').fill(server.url('elsewhere/model.safetensors'));
    await page.locator('#weights-config-url').fill(server.url('elsewhere/config.json'));
    await page.locator('#weights-url-load').click();
    await expect(page.locator('#weights-summary')).toContainText(
      'RMSNorm model.norm.weight (qwen2), ε = 1e-6 as the checkpoint states',
    );
  });
});

test('2. a permalink opens on the view it links to, in the first screen', async ({ page }) => {
  await page.goto('./?b=2&t=8&row=11&view=all&from=400&to=500&scale=linear');
  await expect(page.locator('#ex-token')).toHaveText('row 11 (b 1, t 3)');
  await expect(page.locator('#stages .chart').first()).toHaveAttribute('aria-label', /features 400 to 500/);
  expect(await page.evaluate(() => scrollY)).toBe(0);
  const stages = (await page.locator('#stages').boundingBox())!;
  expect(stages.y, 'the stages start in the first screen').toBeLessThan(900);
});

test('3. a heatmap row picked: framed in the heatmap, said where it went, and one click away', async ({ page }) => {
  await ready(page);
  const heatmap = page.locator('#heatmap');
  await clickHeatmapRow(page, 5, 16);
  await expect(page.locator('#heat-picked')).toContainText('row 5 (b 0, t 5) is now in the explainer above.');
  // Measured again: the explainer above has redrawn for row 5, and the heatmap may have moved.
  await expect(page.locator('#ex-token')).toHaveText('row 5 (b 0, t 5)');
  const now = (await heatmap.boundingBox())!;
  const frame = (await page.locator('#heat-selected').boundingBox())!;
  const rowHeight = now.height / 16;
  expect(Math.abs(frame.y + 3 - (now.y + 5 * rowHeight)), 'the frame sits around row 5').toBeLessThan(1.5);
  expect(Math.abs(frame.height - 6 - rowHeight), 'one row high').toBeLessThan(1.5);
  expect(frame.width).toBeGreaterThan(now.width);
  await page.getByRole('link', { name: 'Show it in the explainer ↑' }).click();
  await expect.poll(async () => (await page.locator('#explain').boundingBox())!.y).toBeLessThan(100);
  await expect(page.locator('#ex-token')).toHaveText('row 5 (b 0, t 5)');
});

test('4. while the weights load, what needs none is there: shape, μ, σ², x, x − μ and x̂', async ({ page }) => {
  await page.context().route(HF_URL, () => undefined); // never answered
  await page.goto('./');
  await expect(page.locator('#weights-summary')).toContainText('Loading GPT-2 small ln_f');
  await expect(page.locator('#fact-shape')).toContainText('[1, 16, 768]');
  await expect(page.locator('#ex-mean')).toBeVisible();
  await expect(page.locator('#ex-var')).toBeVisible();
  await expect(page.locator('#stages figure:visible strong')).toHaveText([
    'x',
    'x − μ',
    'x̂ = (x − μ)/√(σ² + ε)',
    'γ ⊙ x̂',
    '+ β  →  y',
  ]);
  await expect(page.locator('#stages svg.chart:visible')).toHaveCount(3);
  await expect(page.locator('#stages .pending:visible')).toHaveCount(2);
  await expect(page.locator('.stage-table tbody th')).toHaveText(['x', 'x − μ', 'x̂']);
});

test('5. what is typed into the lab before its code has loaded stays as typed', async ({ page }) => {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  await page.route(/\/assets\/check-[\w-]+\.js$/, async (route) => {
    await released;
    await route.continue();
  });
  await ready(page);
  await page.locator('input[name="tolmode"][value="ulp"]').check();
  await page.locator('#ulp-tol').fill('5');
  await page.locator('#atol').fill('0.01');
  await expect(page.locator('#check')).not.toHaveAttribute('data-mounted', 'true');
  release();
  await expect(page.locator('#check')).toHaveAttribute('data-mounted', 'true');
  await expect(page.locator('input[name="tolmode"][value="ulp"]')).toBeChecked();
  await expect(page.locator('#ulp-tol')).toHaveValue('5');
  await expect(page.locator('#atol')).toHaveValue('0.01');
  // And the lab uses it.
  const x = testActivations(2, D, 6);
  await page
    .locator('#paste')
    .fill(Array.from({ length: 2 }, (_, r) => x.subarray(r * D, r * D + D).join(' ')).join('\n'));
  await page.locator('#paste-btn').click();
  await expect(page.locator('#out-summary')).toContainText('Output [2, 768]');
  await page.locator('#expected-file').setInputFiles({
    name: 'y.npy',
    mimeType: 'application/octet-stream',
    buffer: npy(layerNormReference(x, D, { gamma: GAMMA, beta: BETA }), [2, D]),
  });
  await expect(page.locator('#expected-result')).toContainText('within 5 sULP');
});

test('6. a large sULP beside PASS says where it is and why it passes', async ({ page }) => {
  await ready(page);
  const x = testActivations(2, D, 8);
  await page
    .locator('#paste')
    .fill(Array.from({ length: 2 }, (_, r) => x.subarray(r * D, r * D + D).join(' ')).join('\n'));
  await page.locator('#paste-btn').click();
  await expect(page.locator('#out-summary')).toContainText('Output [2, 768]');
  const y = layerNormReference(x, D, { gamma: GAMMA, beta: BETA });
  // The element whose float32 steps are smallest: a tiny change there is many steps, within atol.
  let k = 0;
  for (let i = 0; i < y.length; i++) {
    const scale = (i: number) => Math.abs(y[i]! - BETA[i % D]!) + Math.abs(BETA[i % D]!);
    if (scale(i) < scale(k)) k = i;
  }
  y[k] = y[k]! + 5e-6;
  await openCard(page, 'check');
  await page
    .locator('#expected-file')
    .setInputFiles({ name: 'y.npy', mimeType: 'application/octet-stream', buffer: npy(y, [2, D]) });
  const verdict = page.locator('#expected-result .verdict');
  await expect(verdict).toContainText('PASS');
  await expect(verdict).toContainText(`(at row ${Math.floor(k / D)}, feature ${k % D}: there the expected value is`);
  await expect(verdict).toContainText('within atol; the worst element by the pass rule is the one shown below)');
});

test.describe('7. gain-only and RMSNorm weights leave nothing of GPT-2 behind', () => {
  test('a gain-only checkpoint: no β in the words or the key', async ({ page }) => {
    await ready(page);
    const file = buildSafetensors([{ name: 'ln_f.weight', shape: [D], dtype: 'F32', data: f32Bytes(GAMMA) }]).file;
    await page.locator('input[name="wsrc"][value="file"]').check();
    await page.locator('#weights-file').setInputFiles({
      name: 'gain-only.safetensors',
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(toBytes(file)),
    });
    await expect(page.locator('#weights-summary')).toContainText('no β in this checkpoint');
    await expect(page.locator('#ex-intro')).not.toContainText('β');
    await nearExtras(page);
    await expect(page.locator('#gb-h')).toHaveText('γ of these weights');
    await expect(page.locator('ul.legend')).toHaveText('γ (gain)');
  });

  test('an RMSNorm of d = 896: its own pipeline, and the speed card names RMSNorm', async ({ page, server }) => {
    const qwen = qwenCheckpoint();
    server.addFile('qwen/model.safetensors', qwen.file);
    server.addFile('qwen/config.json', qwen.config);
    await forwardToServer(page.context(), server, QWEN_URL, 'qwen/model.safetensors');
    await forwardToServer(page.context(), server, QWEN_CONFIG_URL, 'qwen/config.json');
    await ready(page, './', 'GPT-2 small');
    await page.locator('input[name="wsrc"][value="url"]').check();
    await page.locator('#weights-url').fill(QWEN_URL);
    await page.locator('#weights-url').press('Enter');
    await expect(page.locator('#out-summary')).toContainText('Output [1, 16, 896]');
    await expect(page.locator('#where-h')).toHaveText('Where the final RMSNorm sits in qwen2');
    await expect(page.locator('#pipeline')).toContainText('[T, 896]');
    await expect(page.locator('#pipeline')).not.toContainText('768');
    await expect(page.locator('#pipeline')).not.toContainText('ln_f');
    await expect(page.locator('#speed-facts')).toContainText('RMSNorm rows of the kernel set');
    await expect(page.locator('#ex-intro')).toContainText('There is no β.');
    await expect(page.locator('#ex-intro')).not.toContainText('βᵢ');
  });

  test('the embed has no step badge', async ({ page }) => {
    await page.goto('./?embed=explain');
    await expect(page.locator('#ex-token')).toContainText('row 0');
    await expect(page.locator('.step')).toHaveCount(0);
  });
});

test('8. all d, zoomed to 60 features: a table of every value', async ({ page }) => {
  await ready(page);
  await openCard(page, 'explain');
  await page.locator('input[name="exview"][value="all"]').check();
  await page.locator('#ex-zoom-from').fill('400');
  await page.locator('#ex-zoom-to').fill('459');
  await page.locator('#ex-zoom-to').press('Enter');
  await expect(page.locator('.stage-table thead th')).toHaveCount(61);
  await expect(page.locator('.stage-table tbody tr')).toHaveCount(7);
});

/** Boxes of a chart's bars and value labels, in page pixels. */
async function chartBoxes(page: Page, chart: string, n: number) {
  return page
    .locator(chart)
    .nth(n)
    .evaluate((svg) => ({
      bars: [...svg.querySelectorAll('rect.bar')].map((r) => r.getBoundingClientRect().toJSON() as DOMRect),
      labels: [...svg.querySelectorAll('text.value')].map((t) => t.getBoundingClientRect().toJSON() as DOMRect),
    }));
}

const overlap = (a: DOMRect, b: DOMRect) =>
  a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;

test('9. charts: labels clear of bars and of each other, three norms told apart, a heatmap with labels and ticks', async ({
  page,
}) => {
  await ready(page);
  await openCard(page, 'explain');
  for (let stage = 0; stage < 5; stage++) {
    const { bars, labels } = await chartBoxes(page, '#stages svg.chart', stage);
    expect(labels.length, `stage ${stage}: every value printed`).toBe(8);
    for (let i = 0; i < labels.length; i++) {
      for (const bar of bars) expect(overlap(labels[i]!, bar), `stage ${stage}: a label over a bar`).toBe(false);
      for (let j = i + 1; j < labels.length; j++) expect(overlap(labels[i]!, labels[j]!)).toBe(false);
    }
  }
  // Each form (LayerNorm, bias-free, RMSNorm) in a chart of its own, named, on one value axis.
  await nearExtras(page);
  const variants = page.locator('#variants-chart figure');
  await expect(variants.locator('strong')).toHaveText(FORM_NAMES);
  for (let i = 0; i < FORM_NAMES.length; i++) await expect(variants.nth(i).locator('rect.bar')).toHaveCount(8);
  // The heatmap: a label per row, ticks for the features.
  await page.locator('#heatmap').scrollIntoViewIfNeeded();
  await expect(page.locator('#heat-rows span')).toHaveCount(16);
  await expect(page.locator('#heat-rows span').nth(5)).toHaveText('0·5');
  const ticks = await page.locator('#heat-ticks span').allTextContents();
  expect(ticks.length).toBeGreaterThanOrEqual(4);
  expect(ticks.map(Number).every((t) => Number.isInteger(t) && t >= 0 && t <= 767)).toBe(true);
});
