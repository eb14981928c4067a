import { test, expect, shot, ready, openCard, GAMMA, BETA, D } from './fixtures';
import { engineDebugger } from './engine-pause';
import { layerNormReference } from 'layernorm-wasm';
import { readNpy } from 'layernorm-wasm/io';
import { npyHeader as writeNpyHeader } from '../kit/checkpoints/index.mjs';
import { maxRelErr } from './helpers';
import { rawNpy } from '../kit/checkpoints/index.mjs';
import { closeSync, mkdirSync, openSync, writeSync, truncateSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

// Each test writes its large files to its own output folder and removes them afterwards.
test.afterEach(({}, testInfo) => rmSync(testInfo.outputPath('data'), { recursive: true, force: true }));

const value = (i: number) => Math.sin(i * 0.001) * 2 + (i % D === 447 ? 300 : 0);

/** Writes a float32 .npy of rows × D (≈ rows·3 KB) without holding it all in memory. */
function writeLargeNpy(path: string, rows: number): void {
  const fd = openSync(path, 'w');
  writeSync(fd, writeNpyHeader([rows, D]));
  const chunkRows = 1024;
  const buf = new Float32Array(chunkRows * D);
  for (let r0 = 0; r0 < rows; r0 += chunkRows) {
    const n = Math.min(chunkRows, rows - r0);
    for (let i = 0; i < n * D; i++) buf[i] = value(r0 * D + i);
    writeSync(fd, new Uint8Array(buf.buffer, 0, n * D * 4));
  }
  closeSync(fd);
}

/** A .npy of rows × D zeros whose data is a hole in the file: written at once whatever its size. */
function sparseNpy(path: string, rows: number): void {
  const head = writeNpyHeader([rows, D]);
  writeFileSync(path, head);
  truncateSync(path, head.length + rows * D * 4);
}

test('a large .npy is normalized in slices with progress, every row kept', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const dir = testInfo.outputPath('data');
  mkdirSync(dir, { recursive: true });
  const rows = 24_000; // ≈ 74 MB
  const path = join(dir, 'large.npy');
  writeLargeNpy(path, rows);
  await ready(page);
  // Record every progress value the page shows.
  await page.evaluate(() => {
    const w = window as unknown as { progressSeen: number[] };
    w.progressSeen = [];
    const p = document.getElementById('large-progress') as HTMLProgressElement;
    new MutationObserver(() => w.progressSeen.push(p.value)).observe(p, { attributes: true });
    const label = document.getElementById('large-progress-label')!;
    new MutationObserver(() => w.progressSeen.push(p.value)).observe(label, {
      childList: true,
      characterData: true,
      subtree: true,
    });
  });
  await page.locator('#npy-file').setInputFiles(path);
  await expect(page.locator('#large-card')).toBeVisible();
  await expect(page.locator('#large-progress-label')).toContainText('Done — 24,000 rows', { timeout: 90_000 });
  const seen = await page.evaluate(() => (window as unknown as { progressSeen: number[] }).progressSeen);
  const intermediate = new Set(seen.filter((v) => v > 0 && v < 1));
  expect(intermediate.size, `progress values ${seen.join(', ')}`).toBeGreaterThanOrEqual(3);
  await expect(page.locator('#large-summary')).toContainText('Normalized [24000, 768]');
  await expect(page.locator('#act-summary')).toContainText('large.npy: shape [24000, 768]');
  await expect(page.locator('#out-summary')).toContainText('Output [24000, 768]: 18,432,000 values');
  await expect(page.locator('#out-summary')).toContainText('the heatmap shows 256 evenly spaced rows of 24,000');
  await shot(page, '10-large-done');
  // Any row of the file can be explained, not only the sampled ones.
  await openCard(page, 'explain');
  await page.locator('#ex-row').fill('23999');
  await expect(page.locator('#ex-token')).toHaveText('row 23999');
  const x = Float32Array.from({ length: D }, (_, j) => value(23999 * D + j));
  const yCells = (
    await page
      .locator('.stage-table tbody tr', { has: page.locator('th:text-is("y")') })
      .locator('td')
      .allTextContents()
  ).map(Number);
  expect(
    maxRelErr(yCells, Array.from(layerNormReference(x, D, { gamma: GAMMA, beta: BETA }).subarray(444, 452))),
  ).toBeLessThan(1e-4);
  // The full output downloads as one .npy; spot-check the first and last rows.
  const dl = page.waitForEvent('download');
  await page.locator('#large-download').click();
  const file = join(dir, 'large-out.npy');
  await (await dl).saveAs(file);
  const out = readNpy(readFileSync(file));
  expect(out.shape).toEqual([rows, D]);
  const input = readNpy(readFileSync(path));
  for (const r of [0, rows - 1]) {
    const xr = input.data.subarray(r * D, r * D + D);
    expect(
      maxRelErr(out.data.subarray(r * D, r * D + D), layerNormReference(xr, D, { gamma: GAMMA, beta: BETA })),
    ).toBeLessThan(2e-5);
  }
});

test('a large run can be cancelled: nothing is kept, the previous input stays', async ({ page }, testInfo) => {
  const dir = testInfo.outputPath('data');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'cancel.npy');
  sparseNpy(path, 195_000); // 600 MB of zeros: a run of many slices
  await ready(page);
  const engine = await engineDebugger(page);
  await page.locator('#npy-file').setInputFiles(path);
  await expect(page.locator('#large-progress-label')).toContainText(/^\d+% — /);
  // The engine stands still in the middle of the run, so the cancel lands while it runs.
  await engine.pause();
  await engine.stopped();
  await expect(page.locator('#large-progress-label')).toContainText(/^\d+% — /);
  await page.locator('#large-cancel').click();
  await engine.resume();
  await expect(page.locator('#large-progress-label')).toHaveText('Cancelled');
  await expect(page.locator('#large-summary')).toHaveText('Cancelled; nothing was kept.');
  await expect(page.locator('#large-download')).toBeHidden();
  await expect(page.locator('#act-summary')).toContainText('generated GPT-2-like sample (seed 7): shape [1, 16, 768]');
  await expect(page.locator('#out-summary')).toContainText('Output [1, 16, 768]');
  await shot(page, '11-large-cancelled');
  // The engine is free again: new activations are normalized at once.
  await page.locator('#gen-t').fill('8');
  await page.locator('#gen-btn').click();
  await expect(page.locator('#out-summary')).toContainText('Output [1, 8, 768]');
});

test('a float16 .npy over 16 MB is read in slices like float32', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const dir = testInfo.outputPath('data');
  mkdirSync(dir, { recursive: true });
  const rows = 12_000; // 12,000 × 768 × 2 bytes ≈ 18 MB: above the 16 MB read whole
  const path = join(dir, 'half.npy');
  const bits = new Uint16Array(rows * D);
  const values = new Float32Array(rows * D);
  for (let i = 0; i < bits.length; i++) {
    // Halves with an exact value: m/1024 · 2^e for small m and e, plus a large channel.
    const m = (i * 37) % 1024;
    const e = ((i >> 3) % 5) + (i % D === 447 ? 20 : 13); // exponent bits 13..17, or 20..24
    bits[i] = ((i & 1) << 15) | (e << 10) | m;
    values[i] = (i & 1 ? -1 : 1) * (1 + m / 1024) * 2 ** (e - 15);
  }
  const dict = `{'descr': '<f2', 'fortran_order': False, 'shape': (${rows}, ${D}), }`;
  writeFileSync(path, rawNpy(dict, new Uint8Array(bits.buffer)));
  await ready(page);
  await page.locator('#npy-file').setInputFiles(path);
  await expect(page.locator('#large-progress-label')).toContainText('Done — 12,000 rows', { timeout: 90_000 });
  await expect(page.locator('#act-summary')).toContainText('half.npy: shape [12000, 768]');
  const dl = page.waitForEvent('download');
  await page.locator('#large-download').click();
  const file = join(dir, 'half-out.npy');
  await (await dl).saveAs(file);
  const out = readNpy(readFileSync(file));
  expect(out.shape).toEqual([rows, D]);
  for (const r of [0, 5_001, rows - 1]) {
    const x = values.subarray(r * D, r * D + D);
    expect(
      maxRelErr(out.data.subarray(r * D, r * D + D), layerNormReference(x, D, { gamma: GAMMA, beta: BETA })),
    ).toBeLessThan(2e-5);
  }
});

test('files over 1 GB are refused before anything is read', async ({ page }, testInfo) => {
  const dir = testInfo.outputPath('data');
  mkdirSync(dir, { recursive: true });
  const huge = join(dir, 'huge.npy');
  writeFileSync(huge, writeNpyHeader([(400_000_000 / D) | 0, D]));
  truncateSync(huge, 1_100_000_000);
  await ready(page);
  await page.locator('#npy-file').setInputFiles(huge);
  await expect(page.locator('#act-msg')).toContainText('huge.npy is 1.1 GB; the limit is 1 GB');
  await expect(page.locator('#act-summary')).toContainText('shape [1, 16, 768]');
});
