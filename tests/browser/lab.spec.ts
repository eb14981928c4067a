import { test, expect, shot, ready, openCard, GAMMA, BETA, D } from './fixtures';
import { layerNormReference } from 'layernorm-wasm';
import { npy, testActivations } from './helpers';
import type { Download, Page } from '@playwright/test';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

const ROWS = 64;
const x = testActivations(ROWS, D, 11);
/** The exact answer rounded to float32: what a correct library (e.g. PyTorch) would save. */
const exact = layerNormReference(x, D, { gamma: GAMMA, beta: BETA });

function file(name: string, data: Float32Array, shape: number[]) {
  return { name, mimeType: 'application/octet-stream', buffer: npy(data, shape) };
}

const bits = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeFloatLE(v);
  return '0x' + b.readUInt32LE().toString(16).padStart(8, '0');
};

async function openLab(page: Page): Promise<void> {
  await ready(page);
  await page.locator('#npy-file').setInputFiles(file('x.npy', x, [ROWS, D]));
  await expect(page.locator('#out-summary')).toContainText(`Output [${ROWS}, 768]`);
  await openCard(page, 'check');
}

async function textOf(d: Download): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of (await d.createReadStream()) as AsyncIterable<Buffer>) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks).toString('utf8');
}

test('several expected outputs, each compared on every row, side by side with the exact answer', async ({ page }) => {
  await openLab(page);
  const bad = exact.slice();
  bad[37 * D + 5]! += 0.5;
  bad[50 * D + 100]! += 3e-4;
  await page
    .locator('#expected-file')
    .setInputFiles([file('y_exact.npy', exact, [ROWS, D]), file('y_bad.npy', bad, [ROWS, D])]);
  const verdicts = page.locator('#expected-result .verdict');
  await expect(verdicts).toHaveCount(2);
  await expect(verdicts.nth(0)).toContainText(
    'PASS y_exact.npy — all 49,152 values within atol 1e-5 + rtol 1.3e-6 · |e|',
  );
  await expect(verdicts.nth(0)).toContainText('on every one of the 64 rows');
  await expect(verdicts.nth(1)).toContainText(
    'FAIL y_bad.npy — 2 of 49,152 values differ by more than atol 1e-5 + rtol 1.3e-6 · |e|, in 2 of 64 rows',
  );
  await expect(verdicts.nth(1)).toContainText('Worst: row 37, feature 5');
  // Side by side: this library, and each file, against the exact answer.
  const side = page.locator('#lab-side table.side-by-side tbody tr');
  await expect(side).toHaveCount(3);
  await expect(side.nth(0).locator('th')).toHaveText('this library');
  await expect(side.nth(1)).toContainText('49,152 (100.0%)'); // y_exact is the exact answer, bit for bit
  await expect(side.nth(1).locator('td').nth(1)).toHaveText('0');
  await expect(side.nth(2)).toContainText('FAIL');
  // The list of files: one can be removed.
  await expect(page.locator('#expected-list li')).toHaveCount(2);
  await page.getByRole('button', { name: 'Remove y_exact.npy' }).click();
  await expect(verdicts).toHaveCount(1);
  await expect(page.locator('#expected-list li')).toHaveCount(1);
  await shot(page, '12-lab-two-files');
});

test('the worst element with its digits and bits, a sortable per-row table, and a report to copy', async ({ page }) => {
  await openLab(page);
  const bad = exact.slice();
  bad[37 * D + 5]! += 0.5;
  bad[12 * D + 700]! = NaN;
  await page.locator('#expected-file').setInputFiles(file('y_torch.npy', bad, [ROWS, D]));
  await expect(page.locator('#expected-result')).toContainText('FAIL y_torch.npy');
  await expect(page.locator('#expected-result')).toContainText('1 value is non-finite on one side only');
  // The worst element (the non-finite mismatch outranks any finite error).
  const worst = page.locator('#lab-side .worst');
  await expect(worst.locator('h4')).toHaveText('Worst element of y_torch.npy: row 12, feature 700');
  const cells = worst.locator('tbody tr', { has: page.locator('th:text-is("y_torch.npy")') }).locator('td');
  await expect(cells.nth(0)).toHaveText('NaN');
  await expect(cells.nth(1)).toHaveText('0x7fc00000');
  const exactRow = worst.locator('tbody tr', { has: page.locator('th:text-is("exact")') }).locator('td');
  await expect(exactRow.nth(1)).toHaveText(bits(exact[12 * D + 700]!));
  // Per-row table: failing rows first, then by error; 50 a page.
  const rows = page.locator('#lab-rows-table tbody tr');
  await expect(rows).toHaveCount(50);
  // The two failing rows first, then by finite error: row 37 (off by 0.5) before row 12, whose
  // only mismatch is the non-finite one, which has no finite error to rank by.
  await expect(rows.nth(0).locator('th')).toHaveText('row 37');
  await expect(rows.nth(1).locator('th')).toHaveText('row 12');
  await expect(rows.nth(2).locator('td').last()).toHaveText('pass');
  await expect(page.locator('#lab-page')).toHaveText('rows 1–50 of 64');
  await page.locator('#lab-next').click();
  await expect(rows).toHaveCount(14);
  await page.locator('#lab-failing').check();
  await expect(rows).toHaveCount(2);
  await expect(page.locator('#lab-page')).toHaveText('rows 1–2 of 2');
  await page.locator('#lab-sort').selectOption('row');
  await expect(rows.nth(0).locator('th')).toHaveText('row 12');
  await expect(rows.nth(1).locator('th')).toHaveText('row 37');
  await expect(rows.nth(1).locator('td').nth(0)).toHaveText('5');
  await expect(rows.nth(1).locator('td').nth(3)).toHaveText(/^0\.5/);
  // The report, as text and as JSON.
  await page.locator('#report-copy-text').click();
  await expect(page.locator('#report-msg')).toHaveText('Copied the text report.');
  const text = await page.evaluate(() => navigator.clipboard.readText());
  expect(text).toContain('layernorm-wasm correctness lab');
  expect(text).toContain('input:      x.npy [64, 768]');
  expect(text).toContain('y_torch.npy [64, 768]: FAIL — 2 of 49152 values fail in 2 of 64 rows');
  expect(text).toContain('worst element: row 12, feature 700');
  await page.locator('#report-copy-json').click();
  const json = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as {
    tolerance: { mode: string; atol: number; rtol: number };
    files: {
      name: string;
      verdict: string;
      failingValues: number;
      worst: { row: number; expected: { bits: string } };
    }[];
  };
  expect(json.tolerance).toMatchObject({ mode: 'allclose', atol: 1e-5, rtol: 1.3e-6 });
  expect(json.files[0]).toMatchObject({ name: 'y_torch.npy', verdict: 'FAIL', failingValues: 2 });
  expect(json.files[0]!.worst).toMatchObject({ row: 12, expected: { bits: '0x7fc00000' } });
  const dl = page.waitForEvent('download');
  await page.locator('#report-download').click();
  expect(JSON.parse(await textOf(await dl))).toMatchObject({ files: [{ name: 'y_torch.npy', verdict: 'FAIL' }] });
  await shot(page, '13-lab-worst-and-rows');
});

test('atol + rtol and sULP tolerances, and shapes that differ only by axes of size 1', async ({ page }) => {
  await openLab(page);
  // Off by 40 float32 steps at one element of size ~1: within allclose's defaults (≈ 5e-6), not within 20 sULP.
  const near = exact.slice();
  const i = 3 * D + 100;
  const b = Buffer.alloc(4);
  b.writeFloatLE(near[i]!);
  b.writeUInt32LE(b.readUInt32LE() + 40);
  near[i] = b.readFloatLE();
  await page.locator('#expected-file').setInputFiles(file('y_near.npy', near, [1, ROWS, D]));
  const res = page.locator('#expected-result');
  await expect(res).toContainText('PASS y_near.npy');
  await expect(res).toContainText(
    'Note: y_near.npy is [1, 64, 768] and the output [64, 768]: the same once axes of size 1 are dropped.',
  );
  await page.locator('input[name="tolmode"][value="ulp"]').check();
  await page.locator('#ulp-tol').fill('20');
  await expect(res).toContainText('FAIL y_near.npy — 1 of 49,152 values differ by more than 20 sULP, in 1 of 64 rows');
  await expect(res).toContainText('Worst: row 3, feature 100');
  await page.locator('#ulp-tol').fill('-1');
  await expect(page.locator('#tol-msg')).toContainText('Tolerances must be numbers ≥ 0');
  await page.locator('#ulp-tol').fill('200');
  await expect(res).toContainText('PASS y_near.npy');
  // A tight allclose fails it again.
  await page.locator('input[name="tolmode"][value="allclose"]').check();
  await page.locator('#atol').fill('0');
  await page.locator('#rtol').fill('0');
  await expect(res).toContainText('FAIL y_near.npy');
});
