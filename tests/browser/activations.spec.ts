import { test, expect, shot, ready, openCard, GAMMA, BETA, D } from './fixtures';
import { layerNormReference } from 'layernorm-wasm';
import { exactStats } from '../kit/stats.mjs';
import { readNpy } from 'layernorm-wasm/io';
import { maxRelErr, npy, testActivations, toText } from './helpers';
import type { Download } from '@playwright/test';

async function bytesOf(d: Download): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of (await d.createReadStream()) as AsyncIterable<Buffer>) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

test('pasted numbers are normalized and match the exact answer', async ({ page }) => {
  await ready(page);
  const x = testActivations(3);
  await page.locator('#paste').fill(toText(x, D));
  await page.locator('#paste-btn').click();
  await expect(page.locator('#act-summary')).toContainText('pasted numbers: shape [3, 768]');
  await expect(page.locator('#out-summary')).toContainText('Output [3, 768]');
  const dl = page.waitForEvent('download');
  await page.locator('#dl-json').click();
  const y = JSON.parse((await bytesOf(await dl)).toString('utf8')) as number[][];
  expect(y.length).toBe(3);
  expect(y[0]!.length).toBe(D);
  const ref = { ...exactStats(x, D), y: layerNormReference(x, D, { gamma: GAMMA, beta: BETA }) };
  expect(maxRelErr(y.flat(), ref.y)).toBeLessThan(2e-5);
  // Per-row statistics from the module, shown in the table.
  const firstRow = page.locator('#stats-table tbody tr').first().locator('td');
  const [mu, v] = (await firstRow.allTextContents()).map(Number);
  expect(Math.abs(mu! - ref.mean[0]!)).toBeLessThan(1e-5 * Math.max(1, Math.abs(ref.mean[0]!)));
  expect(Math.abs(v! - ref.variance[0]!) / ref.variance[0]!).toBeLessThan(1e-5);
  await openCard(page, 'check');
  await expect(page.locator('#ref-result')).toContainText('✓ Agrees');
  await shot(page, '02-pasted');
});

test('a width that does not match the weights is refused and the previous activations stay', async ({ page }) => {
  await ready(page);
  await page.locator('#paste').fill('1 2 3 4 5\n6 7 8 9 10');
  await page.locator('#paste-btn').click();
  const msg = page.locator('#act-msg');
  await expect(msg).toContainText('Shape mismatch');
  await expect(msg).toContainText('[2, 5]');
  await expect(msg).toContainText('d = 5');
  await expect(msg).toContainText('d = 768');
  await expect(msg).toContainText('The page keeps the previous activations.');
  await expect(page.locator('#act-summary')).toContainText('generated GPT-2-like sample (seed 7): shape [1, 16, 768]');
  await expect(page.locator('#out-summary')).toContainText('Output [1, 16, 768]');
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
  await expect(page.locator('#out-summary')).toContainText('Output [2, 3, 768]');
  const dl = page.waitForEvent('download');
  await page.locator('#dl-npy').click();
  const download = await dl;
  expect(download.suggestedFilename()).toBe('layernorm-output.npy');
  const out = readNpy(await bytesOf(download));
  expect(out.shape).toEqual([2, 3, D]);
  expect(maxRelErr(out.data, layerNormReference(x, D, { gamma: GAMMA, beta: BETA }))).toBeLessThan(2e-5);
  // Feeding the output back in is accepted as activations of the same shape.
  await page
    .locator('#npy-file')
    .setInputFiles({ name: 'again.npy', mimeType: 'application/octet-stream', buffer: npy(out.data, out.shape) });
  await expect(page.locator('#act-summary')).toContainText('again.npy: shape [2, 3, 768]');
});

test('token strings label the rows: { tokens, shape, data } JSON, and a tokens file beside a .npy', async ({
  page,
}) => {
  await ready(page);
  const x = testActivations(4, D, 2);
  const tokens = ['The', ' cat', ' sat', '.'];
  await page.locator('#paste').fill(JSON.stringify({ tokens, shape: [4, D], data: Array.from(x) }));
  await page.locator('#paste-btn').click();
  await expect(page.locator('#act-summary')).toContainText(
    'shape [4, 768] (4 rows of d = 768, labelled by their tokens)',
  );
  await expect(page.locator('#stats-table tbody th').nth(1)).toHaveText('row 1 “␣cat”');
  await openCard(page, 'explain');
  await page.locator('#ex-row').fill('2');
  await expect(page.locator('#ex-token')).toHaveText('row 2 “␣sat”');
  await expect(page.locator('[role="option"][aria-selected="true"]')).toHaveText('␣sat');
  // A tokens file that does not match the rows is reported, and the rows keep their numbers.
  await page
    .locator('#tokens-file')
    .setInputFiles({ name: 'tokens.txt', mimeType: 'text/plain', buffer: Buffer.from('a\nb\nc\n') });
  await page
    .locator('#npy-file')
    .setInputFiles({ name: 'acts.npy', mimeType: 'application/octet-stream', buffer: npy(x, [1, 4, D]) });
  await expect(page.locator('#act-msg')).toContainText('tokens.txt has 3 tokens but the activations have 4 rows');
  await expect(page.locator('#act-summary')).toContainText('acts.npy: shape [1, 4, 768] (4 rows of d = 768)');
  // The right tokens file labels them.
  await page
    .locator('#tokens-file')
    .setInputFiles({ name: 'tokens.txt', mimeType: 'text/plain', buffer: Buffer.from('Hello\n,\n world\n!\n') });
  await expect(page.locator('#act-summary')).toContainText('labelled by their tokens');
  await expect(page.locator('#act-msg')).toBeEmpty();
  await expect(page.locator('#ex-token')).toHaveText('row 2 “␣world”');
});

test('SIMD vs scalar bit identity, speed facts, benchmark and heatmap readout', async ({ page }) => {
  await ready(page);
  await openCard(page, 'check');
  await page.locator('#scalar-btn').click();
  await expect(page.locator('#scalar-result')).toContainText('✓ Bit-identical');
  await expect(page.locator('#scalar-result')).toContainText('for all 12,288 values');
  await expect(page.locator('#speed-facts')).toContainText('Time per call');
  await expect(page.locator('#speed-facts')).toContainText('GB/s');
  await page.locator('#bench-btn').click();
  await expect(page.locator('#bench-result')).toContainText('median of 9 runs', { timeout: 30_000 });
  // Either direction is a true result (speed is never asserted); the headline must be the measured ratio.
  const ratio = Number(await page.locator('#bench-result').getAttribute('data-ratio'));
  expect(Number.isFinite(ratio) && ratio > 0, `data-ratio ${ratio}`).toBe(true);
  await expect(page.locator('#bench-result strong')).toHaveText(
    ratio >= 1
      ? `${ratio.toFixed(1)}× faster than plain JavaScript`
      : `${(1 / ratio).toFixed(1)}× slower than plain JavaScript`,
  );
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
