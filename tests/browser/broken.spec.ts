/**
 * One test per item of "Broken today" in the page's issue: each failed against the page before
 * the rework and passes now. They use only element ids both versions have, so they can be run
 * against either (PAGE_URL=…).
 */
import { test, expect, ready, HF_URL, GAMMA, BETA, D } from './fixtures';
import { engineDebugger } from './engine-pause';
import { layerNormReference } from 'layernorm-wasm';
import { npyHeader as writeNpyHeader } from '../kit/checkpoints/index.mjs';
import { npy, testActivations, toText } from './helpers';
import { buildSafetensors, f32Bytes, toBytes } from '../kit/checkpoints/index.mjs';
import type { Page, Route } from '@playwright/test';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The explainer's stage figures exist (old page: always; new page: once the card is near the viewport). */
async function explainer(page: Page): Promise<void> {
  await page.locator('#explain, #e-h').first().scrollIntoViewIfNeeded();
  await expect(page.locator('#stages figure')).toHaveCount(5);
}

test.describe('1. a hanging Hugging Face request', () => {
  test('does not hold back the activations, and can be left for synthetic weights', async ({ page }) => {
    await page.context().route(HF_URL, () => undefined); // never answered
    await page.goto('./');
    await expect(page.locator('#runtime-status')).toContainText('kernel');
    await expect(page.locator('#act-summary')).toContainText(
      'generated GPT-2-like sample (seed 7): shape [1, 16, 768]',
    );
    await expect(page.locator('#weights-summary')).toContainText('Loading GPT-2 small ln_f from huggingface.co');
    await expect(page.locator('#out-summary')).toContainText('Waiting for the weights');
    await page.getByRole('button', { name: 'Use synthetic weights meanwhile' }).click();
    await expect(page.locator('#weights-summary')).toContainText('Synthetic demo weights (seed 1)');
    await expect(page.locator('#out-summary')).toContainText('Output [1, 16, 768]');
  });

  test('is given up after 20 s without data, and the page falls back to synthetic weights', async ({ page }) => {
    await page.clock.install();
    await page.context().route(HF_URL, () => undefined);
    await page.goto('./');
    await expect(page.locator('#weights-summary')).toContainText('Loading GPT-2 small ln_f');
    await page.clock.fastForward(21_000);
    await expect(page.locator('#weights-notice')).toContainText('no data arrived for 20 s');
    await expect(page.locator('#weights-summary')).toContainText('Synthetic demo weights (seed 1)');
    await expect(page.locator('#out-summary')).toContainText('Output [1, 16, 768]');
    await expect(page.getByRole('button', { name: 'Try Hugging Face again' })).toBeVisible();
  });
});

test('2. picking Synthetic while the Hub loads: the late answer does not replace the synthetic weights', async ({
  page,
  server,
}) => {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  await page.context().route(HF_URL, async (route: Route) => {
    await released;
    try {
      await route.fulfill({ response: await route.fetch({ url: server.url('model.safetensors') }) });
    } catch {
      await route.abort().catch(() => undefined); // the page cancelled this read
    }
  });
  await page.goto('./');
  await expect(page.locator('#runtime-status')).toContainText('kernel');
  // Picked while the page still draws its first screen: the explainer grows above the weights card
  // as its first token arrives, and at the top of the page the browser holds nothing still, so the
  // radio is clicked where it is rather than at coordinates taken a moment before.
  const synthetic = page.locator('input[name="wsrc"][value="synthetic"]');
  await synthetic.evaluate((r: HTMLInputElement) => r.click());
  await expect(synthetic).toBeChecked();
  await expect(page.locator('#weights-summary')).toContainText('Synthetic demo weights');
  release();
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => new Promise((r) => setTimeout(r, 500)));
  await expect(page.locator('#weights-summary')).toContainText('Synthetic demo weights');
  await expect(page.locator('#weights-summary')).not.toContainText('GPT-2 small');
  await expect(page.locator('input[name="wsrc"][value="synthetic"]')).toBeChecked();
});

test('3. a failed custom URL keeps the loaded weights, the URL field, and says what failed', async ({
  page,
  server,
}) => {
  await ready(page, './', 'GPT-2 small');
  await page.locator('input[name="wsrc"][value="url"]').check();
  await page.locator('#weights-url').fill(server.url('model.safetensors', 'not-found'));
  await page.locator('#weights-url-load').click();
  const notice = page.locator('#weights-notice');
  await expect(notice).toContainText('404');
  await expect(notice).not.toContainText('offline');
  await expect(notice).toContainText('keeps using GPT-2 small ln_f');
  await expect(page.locator('#weights-summary')).toContainText('GPT-2 small ln_f from huggingface.co');
  await expect(page.locator('input[name="wsrc"][value="url"]')).toBeChecked();
  await expect(page.locator('#weights-url')).toBeVisible();
});

test('4. rows with NaN and Inf are explained, drawn, counted and keyed', async ({ page }) => {
  await ready(page);
  const x = testActivations(3);
  x[1 * D + 5] = NaN;
  x[2 * D + 9] = Infinity;
  await page.locator('#paste').fill(toText(x, D));
  await page.locator('#paste-btn').click();
  await expect(page.locator('#act-summary')).toContainText('pasted numbers: shape [3, 768]');
  await expect(page.locator('#legend-nan')).toBeVisible();
  await expect(page.locator('#legend-nan')).toContainText('NaN or ±Inf');
  await explainer(page);
  await page.locator('#ex-row').fill('1');
  await expect(page.locator('#ex-insight')).toContainText('NaN at feature 5');
  await expect(page.locator('#ex-insight')).toContainText('every output of this row is NaN');
  await expect(page.locator('#ex-insight')).not.toContainText('equals the mean');
  await expect(page.locator('#stages [aria-label^="x̂"]')).toHaveAttribute(
    'aria-label',
    /every value is NaN or infinite/,
  );
  const ref = page.locator('#ref-result');
  await ref.scrollIntoViewIfNeeded();
  await expect(ref).toContainText('2 rows hold NaN or ±Inf in the input');
  await expect(ref).toContainText(
    '1,536 values are non-finite in both outputs, alike, and left out of the error figures',
  );
  await expect(ref).toContainText('over the 768 finite values of 2,304');
});

/** Writes rows × D of float32 to a .npy without holding it all (and the oracle's output, if asked). */
function writeNpyRows(path: string, rows: number, f: (r: number, x: Float32Array) => void): void {
  const fd = openSync(path, 'w');
  writeSync(fd, writeNpyHeader([rows, D]));
  const row = new Float32Array(D);
  for (let r = 0; r < rows; r++) {
    f(r, row);
    writeSync(fd, new Uint8Array(row.buffer));
  }
  closeSync(fd);
}

test('5. a file too large to hold is checked against an expected output on every row', async ({ page }, info) => {
  test.setTimeout(120_000);
  const dir = info.outputPath('data');
  mkdirSync(dir, { recursive: true });
  const rows = 6000; // 18 MB: over the 16 MB the page reads whole
  const input = (r: number, x: Float32Array) => {
    for (let j = 0; j < D; j++) x[j] = Math.sin((r * D + j) * 0.001) * 2 + (j === 447 ? 300 : 0);
  };
  writeNpyRows(join(dir, 'x.npy'), rows, input);
  writeNpyRows(join(dir, 'y_torch.npy'), rows, (r, y) => {
    input(r, y);
    y.set(layerNormReference(y, D, { gamma: GAMMA, beta: BETA }));
  });
  await ready(page);
  await page.locator('#npy-file').setInputFiles(join(dir, 'x.npy'));
  await expect(page.locator('#large-progress-label')).toContainText('Done — 6,000 rows', { timeout: 60_000 });
  await page.locator('#expected-file').scrollIntoViewIfNeeded();
  await page.locator('#expected-file').setInputFiles(join(dir, 'y_torch.npy'));
  const res = page.locator('#expected-result');
  await expect(res).toContainText('PASS', { timeout: 60_000 });
  await expect(res).toContainText('all 4,608,000 values');
  await expect(res).toContainText('6,000 rows');
});

test('6. equal element counts in different shapes are refused, saying how the shapes differ', async ({ page }) => {
  await ready(page);
  const x = testActivations(128, D, 4);
  await page
    .locator('#npy-file')
    .setInputFiles({ name: 'x.npy', mimeType: 'application/octet-stream', buffer: npy(x, [2, 64, D]) });
  await expect(page.locator('#act-summary')).toContainText('x.npy: shape [2, 64, 768]');
  const y = layerNormReference(x, D, { gamma: GAMMA, beta: BETA });
  await page.locator('#expected-file').scrollIntoViewIfNeeded();
  await page
    .locator('#expected-file')
    .setInputFiles({ name: 'y_torch.npy', mimeType: 'application/octet-stream', buffer: npy(y, [128, D]) });
  const res = page.locator('#expected-result');
  await expect(res).toContainText('Shapes differ: y_torch.npy is [128, 768], the output is [2, 64, 768]');
  await expect(res).toContainText('Both hold 98,304 values, but in a different layout');
  await expect(res).not.toContainText('PASS');
});

test('7. a gain-only checkpoint counts γ alone and drops + β from the equation and the stages', async ({ page }) => {
  await ready(page);
  const file = buildSafetensors([{ name: 'ln_f.weight', shape: [D], dtype: 'F32', data: f32Bytes(GAMMA) }]).file;
  await page.locator('input[name="wsrc"][value="file"]').check();
  await page.locator('#weights-file').setInputFiles({
    name: 'gain-only.safetensors',
    mimeType: 'application/octet-stream',
    buffer: Buffer.from(toBytes(file)),
  });
  await expect(page.locator('#weights-summary')).toContainText('no β in this checkpoint');
  await explainer(page);
  await expect(page.locator('#param-count')).toHaveText('γ 768 = 768 (no β)');
  const equation = await page.locator('#equation math').first().textContent();
  expect(equation).toContain('γ');
  expect(equation).not.toContain('β');
  await expect(page.locator('#stages')).not.toContainText('+ β');
});

test.describe('8. on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  test('the page is no wider than the screen', async ({ page }) => {
    await ready(page);
    await page.locator('#speed-facts').scrollIntoViewIfNeeded();
    await expect(page.locator('#speed-facts')).toContainText('Time per call');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });
});

test('9. out-of-range and fractional numbers are refused, not silently clamped', async ({ page }) => {
  await ready(page);
  await explainer(page);
  await page.locator('#ex-row').fill('3');
  await expect(page.locator('#ex-token')).toHaveText('row 3 (b 0, t 3)');
  await page.locator('#ex-row').fill('500');
  await expect(page.locator('#ex-row-msg')).toContainText('Row must be a whole number from 0 to 15');
  await expect(page.locator('#ex-row')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('#ex-token')).toHaveText('row 3 (b 0, t 3)');
  await page.locator('#gen-b').fill('1.5');
  await page.locator('#gen-btn').click();
  await expect(page.locator('#act-msg')).toContainText('B must be a whole number from 1 to 64');
  await expect(page.locator('#act-msg')).toContainText('Nothing was generated');
  await expect(page.locator('#act-summary')).toContainText('shape [1, 16, 768]');
});

test.describe('10. the main thread and stale results', () => {
  test('while the engine works on [2, 4096, 768], the page answers typing ε and says what is on screen', async ({
    page,
  }) => {
    await ready(page);
    const engine = await engineDebugger(page);
    await engine.pause();
    await page.locator('#gen-b').fill('2');
    await page.locator('#gen-t').fill('4096');
    await page.locator('#gen-btn').click();
    await engine.stopped();
    // The engine stands still in the middle of the request: the page takes every keystroke (each a
    // valid ε: 0, 0., 0.0, 0.00, 0.001) and says the results on screen are the earlier ones.
    await page.locator('#eps').fill('');
    await page.locator('#eps').pressSequentially('0.001');
    await expect(page.locator('#eps')).toHaveValue('0.001');
    await expect(page.locator('#out-stale')).toContainText('Updating… the results below are for ε = 1e-5');
    await expect(page.locator('#out-summary')).not.toContainText('[2, 4096, 768]');
    await engine.resume();
    // Only the latest ε's output lands.
    await expect(page.locator('#out-summary')).toContainText('Output [2, 4096, 768]', { timeout: 30_000 });
    await expect(page.locator('#out-summary')).toContainText('ε = 0.001,');
    await expect(page.locator('#out-stale')).toBeHidden();
  });

  test('results say which ε they were made with, and JSON says where NaN went', async ({ page }) => {
    await ready(page);
    await page.locator('#eps').fill('0');
    await expect(page.locator('#out-summary')).toContainText('ε = 0,');
    await page.locator('#eps').fill('abc');
    await expect(page.locator('#out-stale')).toBeVisible();
    await expect(page.locator('#out-stale')).toContainText('the results below are still for ε = 0');
    await page.locator('#eps').fill('1e-5');
    await expect(page.locator('#out-stale')).toBeHidden();
    const x = testActivations(2);
    x[3] = NaN;
    await page.locator('#paste').fill(toText(x, D));
    await page.locator('#paste-btn').click();
    await expect(page.locator('#dl-note')).toContainText('the 768 non-finite values are written as null');
  });
});
