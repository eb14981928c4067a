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
  // While it runs, the main thread handles clicks: each click on the statistics summary toggles
  // it, and records the progress at that moment. Some must land mid-run.
  await page.evaluate(() => {
    const w = window as unknown as { clicksAt: number[] };
    w.clicksAt = [];
    const p = document.getElementById('large-progress') as HTMLProgressElement;
    document.querySelector('#stats-details > summary')!.addEventListener('click', () => w.clicksAt.push(p.value));
  });
  const summary = page.locator('#stats-details > summary');
  const details = page.locator('#stats-details');
  let clicks = 0;
  while (!(await page.locator('#large-progress[data-done]').count()) && clicks < 400) {
    const wasOpen = await details.evaluate((e) => (e as HTMLDetailsElement).open);
    await summary.click();
    clicks++;
    await expect(details).toHaveJSProperty('open', !wasOpen);
  }
  await expect(page.locator('#large-progress-label')).toContainText('Done — 24,000 rows', { timeout: 90_000 });
  const seen = await page.evaluate(() => (window as unknown as { progressSeen: number[] }).progressSeen);
  const intermediate = new Set(seen.filter((v) => v > 0 && v < 1));
  expect(intermediate.size, `progress values ${seen.join(', ')}`).toBeGreaterThanOrEqual(3);
  const clicksAt = await page.evaluate(() => (window as unknown as { clicksAt: number[] }).clicksAt);
  expect(clicksAt, 'every click was handled').toHaveLength(clicks);
  expect(
    clicksAt.filter((v) => v > 0 && v < 1).length,
    `progress when clicks were handled: ${clicksAt.join(', ')}`,
  ).toBeGreaterThan(0);
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
  // Hold the worker's script until Cancel has been clicked, so the run is certainly under way
  // (and certainly not done) when it is cancelled.
  let release!: () => void;
  const clicked = new Promise<void>((resolve) => (release = resolve));
  let workerRequested = false;
  await page.route(/\/assets\/worker-[^/]*\.js$/, async (route) => {
    workerRequested = true;
    await clicked;
    await route.continue();
  });
  await page.locator('#npy-file').setInputFiles(path);
  await expect(page.locator('#large-progress-label')).toHaveText('Starting…');
  await expect.poll(() => workerRequested).toBe(true);
  await page.locator('#large-cancel').click();
  release();
  const label = page.locator('#large-progress-label');
  await expect(label).toHaveText('Cancelled');
  await expect(page.locator('#large-summary')).toHaveText('Cancelled; nothing was kept.');
  await expect(page.locator('#large-download')).toBeHidden();
  await expect(page.locator('#large-cancel')).toBeDisabled();
  await shot(page, '11-large-cancelled');
  // A sparse 1.1 GB file: refused before anything is read.
  const huge = join(dir, 'huge.npy');
  writeFileSync(huge, npy(new Float32Array(0), [(400_000_000 / D) | 0, D]));
  truncateSync(huge, 1_100_000_000);
  await page.locator('#npy-file').setInputFiles(huge);
  await expect(page.locator('#act-msg')).toContainText('huge.npy is 1.1 GB; the limit is 1 GB');
});

test('a float16 .npy over 16 MB streams through the worker like float32', async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const dir = testInfo.outputPath('data');
  mkdirSync(dir, { recursive: true });
  const rows = 12_000; // 12,000 × 768 × 2 bytes ≈ 18 MB: above the 16 MB worker threshold
  const path = join(dir, 'half.npy');
  const bits = new Uint16Array(rows * D);
  const values = new Float64Array(rows * D);
  for (let i = 0; i < bits.length; i++) {
    // Halves with an exact value: m/1024 * 2^e for small m and e, plus a large channel.
    const m = (i * 37) % 1024;
    const e = ((i >> 3) % 5) + (i % D === 447 ? 20 : 13); // exponent bits 13..17, or 20..24
    bits[i] = ((i & 1) << 15) | (e << 10) | m;
    values[i] = (i & 1 ? -1 : 1) * (1 + m / 1024) * 2 ** (e - 15);
  }
  let h = `{'descr': '<f2', 'fortran_order': False, 'shape': (${rows}, ${D}), }`;
  h += ' '.repeat((64 - ((10 + h.length + 1) % 64)) % 64) + '\n';
  const head = Buffer.alloc(10 + h.length);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head.writeUInt16LE(h.length, 8);
  head.write(h, 10, 'latin1');
  writeFileSync(path, Buffer.concat([head, Buffer.from(bits.buffer)]));
  await ready(page);
  await page.locator('#npy-file').setInputFiles(path);
  await expect(page.locator('#large-card')).toBeVisible();
  await expect(page.locator('#large-progress-label')).toContainText('Done — 12,000 rows', { timeout: 90_000 });
  await expect(page.locator('#large-summary')).toContainText('Normalized [12000, 768]');
  const dl = page.waitForEvent('download');
  await page.locator('#large-download').click();
  const file = join(dir, 'half-out.npy');
  await (await dl).saveAs(file);
  const out = parseNpy(readFileSync(file));
  expect(out.shape).toEqual([rows, D]);
  const { gamma, beta } = fixtureWeights();
  for (const r of [0, 5_001, rows - 1]) {
    const x = values.subarray(r * D, r * D + D);
    expect(maxRelErr(out.data.subarray(r * D, r * D + D), layerNorm64(x, D, gamma, beta).y)).toBeLessThan(2e-5);
  }
});
