/**
 * The page stays light: the first load is at most 250 KB of JavaScript, CSS and WebAssembly (before
 * compression, fonts aside), measured from the network log; the scalar build is fetched only for
 * the comparison; and no accepted input keeps the main thread busy for more than 200 ms at a time
 * (long tasks from a PerformanceObserver), because the work runs in the engine worker.
 */
import { test, expect, ready, openCard, longTasksDuring, D } from './fixtures';
import { npy, testActivations } from './helpers';
import type { Page, Response } from '@playwright/test';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const BUDGET = 250_000;

/** Body bytes (decoded, i.e. before any compression) of every JS, CSS and wasm file the page fetched. */
function recordCode(page: Page): { files: Map<string, number>; total(): number } {
  const files = new Map<string, number>();
  const pending: Promise<void>[] = [];
  page.on('response', (r: Response) => {
    const url = new URL(r.url());
    if (!/\.(m?js|css|wasm)$/.test(url.pathname)) return;
    pending.push(
      r.body().then(
        (b) => void files.set(url.pathname.split('/').pop()!, b.length),
        () => undefined,
      ),
    );
  });
  return { files, total: () => [...files.values()].reduce((a, b) => a + b, 0) };
}

async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
}

const list = (files: Map<string, number>) => [...files].map(([f, n]) => `${f} ${n}`).join(', ');

test('the first load of the page is at most 250 KB of JS + CSS + wasm, without the scalar build', async ({ page }) => {
  const code = recordCode(page);
  await ready(page);
  await settled(page);
  const names = [...code.files.keys()];
  expect(
    names.some((f) => /^layernorm-simd-.*\.wasm$/.test(f)),
    list(code.files),
  ).toBe(true);
  expect(
    names.filter((f) => f.includes('scalar')),
    'the scalar build loads only when compared',
  ).toEqual([]);
  expect(code.total(), `first load: ${list(code.files)}`).toBeLessThanOrEqual(BUDGET);
  // Asking for the comparison fetches it.
  await openCard(page, 'check');
  await page.locator('#scalar-btn').click();
  await expect(page.locator('#scalar-result')).toContainText('Bit-identical');
  expect(
    [...code.files.keys()].some((f) => /^layernorm-scalar-.*\.wasm$/.test(f)),
    list(code.files),
  ).toBe(true);
});

test('the first load of the embedded explainer is at most 250 KB of JS + CSS + wasm', async ({ page }) => {
  const code = recordCode(page);
  await page.goto('./?embed=explain');
  await expect(page.locator('#ex-token')).toContainText('row 0');
  await settled(page);
  expect(code.total(), `embed first load: ${list(code.files)}`).toBeLessThanOrEqual(BUDGET);
});

test.describe('no main-thread task over 200 ms', () => {
  test.use({ permissions: ['clipboard-read', 'clipboard-write'] });
  test.afterEach(({}, info) => rmSync(info.outputPath('data'), { recursive: true, force: true }));

  test('while large inputs are read, normalized, checked and explained', async ({ page }, info) => {
    test.setTimeout(180_000);
    const dir = info.outputPath('data');
    mkdirSync(dir, { recursive: true });
    const rows = 16_384; // 50 MB
    const path = join(dir, 'x.npy');
    const fd = openSync(path, 'w');
    writeSync(fd, npy(new Float32Array(0), [rows, D]));
    const block = testActivations(1024, D, 3);
    for (let r = 0; r < rows; r += 1024) writeSync(fd, new Uint8Array(block.buffer));
    closeSync(fd);
    await ready(page);
    await openCard(page, 'explain');
    await openCard(page, 'check');
    await settled(page);
    const steps: [string, () => Promise<void>][] = [
      [
        'a 50 MB .npy',
        async () => {
          await page.locator('#npy-file').setInputFiles(path);
          await expect(page.locator('#large-progress-label')).toContainText('Done', { timeout: 90_000 });
          await expect(page.locator('#ref-result')).toContainText('12,582,912 finite values');
        },
      ],
      [
        'the same file as an expected output, compared on every row',
        async () => {
          await page.locator('#expected-file').setInputFiles(path);
          await expect(page.locator('#expected-result')).toContainText('FAIL x.npy', { timeout: 90_000 });
        },
      ],
      [
        'ε changed: every row again',
        async () => {
          await page.locator('#eps').fill('0.01');
          await expect(page.locator('#out-summary')).toContainText('ε = 0.01,', { timeout: 90_000 });
          await expect(page.locator('#expected-result .verdict')).toHaveCount(1);
          await expect(page.locator('#expected-result')).not.toContainText('updating', { timeout: 90_000 });
        },
      ],
      [
        'the explainer on the last row, all features',
        async () => {
          await page.locator('#ex-row').fill(String(rows - 1));
          await page.locator('input[name="exview"][value="all"]').check();
          await expect(page.locator('#ex-token')).toHaveText(`row ${rows - 1}`);
          await expect(page.locator('#stages .chart').first()).toHaveAttribute('aria-label', /features 0 to 767/);
        },
      ],
      [
        '250 rows (1.8 MB) of text pasted from the clipboard',
        async () => {
          await page.locator('#paste').focus();
          await page.keyboard.press('ControlOrMeta+V');
          await expect(page.locator('#paste-note')).toContainText('(250 lines)');
          await page.locator('#paste-btn').click();
          await expect(page.locator('#out-summary')).toContainText('Output [250, 768]', { timeout: 60_000 });
        },
      ],
    ];
    // The text goes to the clipboard before anything is measured (handing it over is the harness's work).
    const pasted = testActivations(250, D, 8);
    const text = Array.from({ length: 250 }, (_, r) =>
      Array.from(pasted.subarray(r * D, r * D + D), (v) => v.toFixed(5)).join(' '),
    ).join('\n');
    await page.evaluate((t) => navigator.clipboard.writeText(t), text);
    for (const [name, step] of steps) {
      expect(await longTasksDuring(page, step), `long tasks: ${name}`).toEqual([]);
    }
  });
});
