import { test, expect, shot, ready } from './fixtures';
import { D, fixtureWeights, layerNorm64, maxRelErr, npy, parseNpy } from './helpers';
import { closeSync, mkdirSync, openSync, writeSync, truncateSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

// Each test writes its large files to its own output folder and removes them afterwards.
test.afterEach(({}, testInfo) => rmSync(testInfo.outputPath('data'), { recursive: true, force: true }));

/** Writes a float32 .npy of rows × D (≈ rows·3 KB) without holding it all in memory. */
function writeLargeNpy(path: string, rows: number): void {
  const head = npy(new Float32Array(0), [rows, D]);
  const fd = openSync(path, 'w');
  writeSync(fd, head);
  const chunkRows = 1024;
  const buf = new Float32Array(chunkRows * D);
  for (let r0 = 0; r0 < rows; r0 += chunkRows) {
    const n = Math.min(chunkRows, rows - r0);
    for (let i = 0; i < n * D; i++) buf[i] = Math.sin((r0 * D + i) * 0.001) * 2 + (i % D === 447 ? 300 : 0);
    writeSync(fd, new Uint8Array(buf.buffer, 0, n * D * 4));
  }
  closeSync(fd);
}

test('a large .npy streams through the worker with progress while the page stays responsive', async ({
  page,
}, testInfo) => {
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
  // While it runs, the main thread answers a click quickly.
  const latencies: number[] = [];
  const summary = page.locator('#stats-details > summary');
  while (!(await page.locator('#large-progress[data-done]').count())) {
    // A round trip through the page's main thread, then a real click on a control.
    let t0 = Date.now();
    await page.evaluate(() => document.title);
    latencies.push(Date.now() - t0);
    t0 = Date.now();
    await summary.click();
    latencies.push(Date.now() - t0);
    if (latencies.length > 400) break;
  }
  await expect(page.locator('#large-progress-label')).toContainText('Done — 24,000 rows', { timeout: 90_000 });
  const seen = await page.evaluate(() => (window as unknown as { progressSeen: number[] }).progressSeen);
  const intermediate = new Set(seen.filter((v) => v > 0 && v < 1));
  expect(intermediate.size, `progress values ${seen.join(', ')}`).toBeGreaterThanOrEqual(3);
  expect(latencies.length).toBeGreaterThan(0);
  expect(Math.max(...latencies), `click latencies ${latencies.join(', ')}`).toBeLessThan(1000);
  await expect(page.locator('#large-summary')).toContainText('Normalized [24000, 768]');
  await expect(page.locator('#out-summary')).toContainText('[128, 768]');
  await shot(page, '10-large-done');
  // The full output downloads as one .npy; spot-check the first and last rows.
  const dl = page.waitForEvent('download');
  await page.locator('#large-download').click();
  const file = join(dir, 'large-out.npy');
  await (await dl).saveAs(file);
  const out = parseNpy(readFileSync(file));
  expect(out.shape).toEqual([rows, D]);
  const input = parseNpy(readFileSync(path));
  const { gamma, beta } = fixtureWeights();
  for (const r of [0, rows - 1]) {
    const x = input.data.subarray(r * D, r * D + D);
    expect(maxRelErr(out.data.subarray(r * D, r * D + D), layerNorm64(x, D, gamma, beta).y)).toBeLessThan(2e-5);
  }
});

test('a large run can be cancelled, and files over 1 GB are refused', async ({ page }, testInfo) => {
  const dir = testInfo.outputPath('data');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'cancel.npy');
  writeLargeNpy(path, 24_000);
  await ready(page);
  await page.locator('#npy-file').setInputFiles(path);
  await page.locator('#large-cancel').click();
  const label = page.locator('#large-progress-label');
  await expect(label).toHaveText(/Cancelled|Done/);
  if ((await label.textContent()) === 'Cancelled') {
    await expect(page.locator('#large-summary')).toHaveText('Cancelled; nothing was kept.');
    await expect(page.locator('#large-download')).toBeHidden();
  }
  await shot(page, '11-large-cancelled');
  // A sparse 1.1 GB file: refused before anything is read.
  const huge = join(dir, 'huge.npy');
  writeFileSync(huge, npy(new Float32Array(0), [(400_000_000 / D) | 0, D]));
  truncateSync(huge, 1_100_000_000);
  await page.locator('#npy-file').setInputFiles(huge);
  await expect(page.locator('#act-msg')).toContainText('huge.npy is 1.1 GB; the limit is 1 GB');
});
