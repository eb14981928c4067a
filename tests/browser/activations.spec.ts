import { test, expect, shot, ready } from './fixtures';
import { D, fixtureWeights, layerNorm64, maxRelErr, npy, parseNpy, testActivations, toText } from './helpers';
import type { Download } from '@playwright/test';

async function bytesOf(d: Download): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of (await d.createReadStream()) as AsyncIterable<Buffer>) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

const { gamma, beta } = fixtureWeights();

test('pasted numbers are normalized on the client and match a float64 reference', async ({ page }) => {
  await ready(page);
  const x = testActivations(3);
  await page.locator('#paste').fill(toText(x, D));
  await page.locator('#paste-btn').click();
  await expect(page.locator('#act-summary')).toContainText('pasted numbers: shape [3, 768]');
  const dl = page.waitForEvent('download');
  await page.locator('#dl-json').click();
  const y = JSON.parse((await bytesOf(await dl)).toString('utf8')) as number[][];
  expect(y.length).toBe(3);
  expect(y[0]!.length).toBe(D);
  const ref = layerNorm64(x, D, gamma, beta);
  expect(maxRelErr(y.flat(), ref.y)).toBeLessThan(2e-5);
  // Per-row statistics from the module, shown in the table.
  const firstRow = page.locator('#stats-table tbody tr').first().locator('td');
  const [mu, v] = (await firstRow.allTextContents()).map(Number);
  expect(Math.abs(mu! - ref.mean[0]!)).toBeLessThan(1e-5 * Math.max(1, Math.abs(ref.mean[0]!)));
  expect(Math.abs(v! - ref.variance[0]!) / ref.variance[0]!).toBeLessThan(1e-5);
  await expect(page.locator('#ref-result')).toContainText('✓ Agrees');
  await shot(page, '02-pasted');
});

test('a width that does not match the weights is refused with a clear message', async ({ page }) => {
  await ready(page);
  await page.locator('#paste').fill('1 2 3 4 5\n6 7 8 9 10');
  await page.locator('#paste-btn').click();
  const msg = page.locator('#act-msg');
  await expect(msg).toContainText('Shape mismatch');
  await expect(msg).toContainText('[2, 5]');
  await expect(msg).toContainText('d = 5');
  await expect(msg).toContainText('d = 768');
  await expect(page.locator('#dl-npy')).toBeDisabled();
  await shot(page, '07-shape-mismatch');
  await page.locator('#paste').fill('[[1, 2], [3, oops]]');
  await page.locator('#paste-btn').click();
  await expect(msg).toContainText('line 1');
});

test('.npy upload and .npy download round trip', async ({ page }) => {
  await ready(page);
  const x = testActivations(6, D, 5);
  await page
    .locator('#npy-file')
    .setInputFiles({ name: 'acts.npy', mimeType: 'application/octet-stream', buffer: npy(x, [2, 3, D]) });
  await expect(page.locator('#act-summary')).toContainText('acts.npy: shape [2, 3, 768]');
  const dl = page.waitForEvent('download');
  await page.locator('#dl-npy').click();
  const download = await dl;
  expect(download.suggestedFilename()).toBe('layernorm-output.npy');
  const out = parseNpy(await bytesOf(download));
  expect(out.shape).toEqual([2, 3, D]);
  expect(maxRelErr(out.data, layerNorm64(x, D, gamma, beta).y)).toBeLessThan(2e-5);
  // Feeding the output back in is accepted as activations of the same shape.
  await page
    .locator('#npy-file')
    .setInputFiles({ name: 'again.npy', mimeType: 'application/octet-stream', buffer: npy(out.data, out.shape) });
  await expect(page.locator('#act-summary')).toContainText('again.npy: shape [2, 3, 768]');
});

test('the token explainer shows μ and σ² of the chosen row', async ({ page }) => {
  await ready(page);
  const x = testActivations(4, D, 9);
  await page.locator('#paste').fill(toText(x, D));
  await page.locator('#paste-btn').click();
  await page.locator('#ex-row').fill('2');
  const ref = layerNorm64(x, D, gamma, beta);
  await expect(page.locator('#ex-token')).toHaveText('row 2');
  const mu = Number(await page.locator('#ex-mean').textContent());
  const v = Number(await page.locator('#ex-var').textContent());
  const rstd = Number(await page.locator('#ex-rstd').textContent());
  expect(Math.abs(mu - ref.mean[2]!)).toBeLessThan(1e-5 * Math.abs(ref.mean[2]!) + 1e-6);
  expect(Math.abs(v - ref.variance[2]!) / ref.variance[2]!).toBeLessThan(1e-5);
  expect(Math.abs(rstd - 1 / Math.sqrt(ref.variance[2]! + 1e-5)) * Math.sqrt(ref.variance[2]!)).toBeLessThan(1e-5);
  // Window of 8 starting at 444: the output row of the stage table matches the oracle.
  const yCells = (
    await page
      .locator('.stage-table tbody tr', { has: page.locator('th:text-is("y")') })
      .locator('td')
      .allTextContents()
  ).map(Number);
  expect(yCells).toHaveLength(8);
  expect(maxRelErr(yCells, Array.from(ref.y.subarray(2 * D + 444, 2 * D + 452)))).toBeLessThan(1e-4);
  await expect(page.locator('#equation .katex')).toBeVisible();
  await expect(page.locator('#ex-insight')).toContainText('Feature 447');
  await expect(page.locator('#stages canvas')).toHaveCount(5);
  await shot(page, '03-explainer-window');
  // All d, zoomed to a range.
  await page.locator('input[name="exview"][value="all"]').check();
  await page.locator('#ex-zoom-from').fill('400');
  await page.locator('#ex-zoom-to').fill('500');
  await page.locator('#ex-zoom-to').press('Enter');
  await expect(page.locator('#stages canvas').first()).toHaveAttribute('aria-label', /features 400 to 500/);
  await page.locator('#ex-zoom-reset').click();
  await expect(page.locator('#stages canvas').first()).toHaveAttribute('aria-label', /features 0 to 767/);
  await shot(page, '04-explainer-all');
});

test('expected-output comparison passes and fails at the visitor’s tolerance', async ({ page }) => {
  await ready(page);
  const x = testActivations(4, D, 3);
  await page.locator('#paste').fill(toText(x, D));
  await page.locator('#paste-btn').click();
  await expect(page.locator('#act-summary')).toContainText('[4, 768]');
  const expected = Float32Array.from(layerNorm64(x, D, gamma, beta).y);
  await page
    .locator('#expected-file')
    .setInputFiles({ name: 'torch.npy', mimeType: 'application/octet-stream', buffer: npy(expected, [4, D]) });
  const res = page.locator('#expected-result');
  await expect(res).toContainText('PASS');
  await expect(res).toContainText('torch.npy');
  const bad = expected.slice();
  bad[1 * D + 5]! += 0.5;
  await page
    .locator('#expected-file')
    .setInputFiles({ name: 'torch-bad.npy', mimeType: 'application/octet-stream', buffer: npy(bad, [4, D]) });
  await expect(res).toContainText('FAIL');
  await expect(res).toContainText('1 of 3,072 values differ');
  await expect(res).toContainText('row 1, feature 5');
  await shot(page, '08-expected-fail');
  // A looser tolerance turns it into a pass.
  await page.locator('#tol').fill('1');
  await expect(res).toContainText('PASS');
});

test('scalar build comparison, speed facts, benchmark and heatmap readout', async ({ page }) => {
  await ready(page);
  await page.locator('#scalar-btn').click();
  // The contract: the scalar build gives the very same bits (anything else is a failure).
  await expect(page.locator('#scalar-result')).toContainText('✓ Bit-identical');
  await expect(page.locator('#speed-facts')).toContainText('Time per call');
  await expect(page.locator('#speed-facts')).toContainText('GB/s');
  await page.locator('#bench-btn').click();
  await expect(page.locator('#bench-result')).toContainText('median of 9 runs', { timeout: 30_000 });
  await expect(page.locator('#bench-result')).toContainText(/× (faster|slower) than plain JavaScript/);
  const heat = page.locator('#heatmap');
  await heat.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  await expect(page.locator('#heat-readout')).toContainText(/row 1 \(b 0, t 1\), feature 1: y = /);
  const box = (await heat.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height - 3);
  await expect(page.locator('#heat-readout')).toContainText(/row 15 \(b 0, t 15\), feature 38[34]: y = /);
  await shot(page, '09-checks-speed');
});
