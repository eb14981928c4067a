import { test, expect, shot, ready, HF_URL } from './fixtures';
import { D, fixtureWeights, gpt2Safetensors, layerNorm64, maxRelErr, rangeServer } from './helpers';
import type { Page } from '@playwright/test';

/** The γ and β rows of the explainer table (features 444–451 by default). */
async function tableRow(page: Page, name: string): Promise<number[]> {
  const cells = page.locator('.stage-table tbody tr', { has: page.locator(`th:text-is("${name}")`) }).locator('td');
  return (await cells.allTextContents()).map(Number);
}

test('loads GPT-2 ln_f from the Hugging Face URL with range reads', async ({ page, hf }) => {
  await ready(page);
  const summary = page.locator('#weights-summary');
  await expect(summary).toContainText('GPT-2 small ln_f from huggingface.co');
  await expect(summary).toContainText(/fetched with range reads/);
  await expect(summary).toContainText(/KB of 12\.\d MB/);
  // Only the header and the two 3 KB tensors travel, not the 12 MB file.
  expect(hf.stats.bytesServed).toBeLessThan(32 * 1024);
  expect(hf.size).toBeGreaterThan(12_000_000);
  await expect(page.locator('#weights-notice')).toBeHidden();
  await expect(page.locator('#param-count')).toHaveText('γ 768 + β 768 = 1,536');
  const { gamma, beta } = fixtureWeights();
  expect(maxRelErr(await tableRow(page, 'γ'), Array.from(gamma.subarray(444, 452)))).toBeLessThan(1e-4);
  expect(maxRelErr(await tableRow(page, 'β'), Array.from(beta.subarray(444, 452)))).toBeLessThan(1e-4);
  await expect(page.locator('#ref-result')).toContainText('✓ Agrees');
  await shot(page, '01-initial-gpt2');
});

test('loads weights from a local checkpoint file, reading only the slices it needs', async ({ page }) => {
  await ready(page);
  const file = gpt2Safetensors({ vocabRows: 2048 });
  await page.locator('input[name="wsrc"][value="file"]').check();
  await page
    .locator('#weights-file')
    .setInputFiles({ name: 'gpt2-small.safetensors', mimeType: 'application/octet-stream', buffer: file });
  const summary = page.locator('#weights-summary');
  await expect(summary).toContainText(/gpt2-small\.safetensors \(local file\) — [\d.]+ KB of [\d.]+ MB read/);
  const m = /— ([\d.]+) KB of ([\d.]+) MB read/.exec((await summary.textContent()) ?? '');
  expect(m, (await summary.textContent()) ?? '').not.toBeNull();
  expect(Number(m![1])).toBeLessThan(32);
  const { gamma } = fixtureWeights();
  expect(maxRelErr(await tableRow(page, 'γ'), Array.from(gamma.subarray(444, 452)))).toBeLessThan(1e-4);
});

test('a checkpoint dropped on the weights card is loaded', async ({ page }) => {
  await ready(page);
  const bytes = Array.from(gpt2Safetensors({ vocabRows: 8 }));
  const dataTransfer = await page.evaluateHandle((b) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(b)], 'dropped.safetensors'));
    return dt;
  }, bytes);
  const card = page.locator('section', { has: page.locator('#w-h') });
  await card.dispatchEvent('dragover', { dataTransfer });
  await card.dispatchEvent('drop', { dataTransfer });
  await expect(page.locator('#weights-summary')).toContainText('dropped.safetensors (local file)');
  await expect(page.locator('input[name="wsrc"][value="file"]')).toBeChecked();
});

test('loads from a custom https URL and rejects other schemes', async ({ page }) => {
  const url = 'https://models.example.org/gpt2/model.safetensors';
  const server = rangeServer(gpt2Safetensors({ vocabRows: 256 }));
  await page.route(url, server.handler);
  await ready(page);
  await page.locator('input[name="wsrc"][value="url"]').check();
  await page.locator('#weights-url').fill('ftp://example.org/model.safetensors');
  await page.locator('#weights-url-load').click();
  await expect(page.locator('#weights-notice')).toContainText('Only http and https URLs are supported');
  await page.locator('#weights-url').fill(url);
  await page.locator('#weights-url').press('Enter');
  // "Loading <url>…" also contains the URL: wait for the loaded summary, which gives d.
  await expect(page.locator('#weights-summary')).toContainText(url);
  await expect(page.locator('#weights-summary')).toContainText(`d = ${D}`);
  await expect(page.locator('#weights-notice')).toBeHidden();
  expect(server.stats.requests).toBeGreaterThan(0);
});

test('bias-free preset: gain only, 768 parameters, output matches the reference', async ({ page }) => {
  await ready(page);
  await page.locator('input[name="preset"][value="biasfree"]').check();
  await expect(page.locator('#param-count')).toHaveText('γ 768 = 768 (no β)');
  await expect(page.locator('.stage-table th:text-is("β")')).toHaveCount(0);
  await expect(page.locator('#weights-summary')).toContainText('β ignored (bias-free preset)');
  // Normalize a known input and compare the downloaded output with a float64 oracle.
  const { gamma } = fixtureWeights();
  const x = new Float32Array(2 * D);
  for (let i = 0; i < x.length; i++) x[i] = Math.sin(i * 0.7) * 3 + (i % D === 447 ? 900 : 0);
  await page.locator('#paste').fill(JSON.stringify([Array.from(x.subarray(0, D)), Array.from(x.subarray(D))]));
  await page.locator('#paste-btn').click();
  await expect(page.locator('#act-summary')).toContainText('[2, 768]');
  const dl = page.waitForEvent('download');
  await page.locator('#dl-json').click();
  const y = JSON.parse(await streamText(await (await dl).createReadStream())) as number[][];
  const ref = layerNorm64(x, D, gamma, null).y;
  expect(maxRelErr(y.flat(), ref)).toBeLessThan(2e-5);
  await shot(page, '05-bias-free');
});

test.describe('offline', () => {
  // The browser itself logs the refused request.
  test.use({ allowConsole: [/Failed to load resource/] });

  test('offline: a failing weights URL falls back to synthetic weights with a notice', async ({ page, hf }) => {
    await page.route(HF_URL, (route) => route.abort('internetdisconnected'));
    await ready(page);
    const notice = page.locator('#weights-notice');
    await expect(notice).toBeVisible();
    await expect(notice).toContainText('Could not load weights from Hugging Face');
    await expect(notice).toContainText('network may be unavailable');
    await expect(notice).toContainText('synthetic demo weights');
    await expect(page.locator('#weights-summary')).toContainText(
      "Synthetic demo weights (seed 1) — random, not GPT-2's",
    );
    await expect(page.locator('input[name="wsrc"][value="synthetic"]')).toBeChecked();
    // The page still works end to end.
    await expect(page.locator('#ref-result')).toContainText('✓ Agrees');
    await shot(page, '06-offline-fallback');
    // Back online: the retry button loads the real weights and clears the notice.
    await page.unroute(HF_URL);
    await page.route(HF_URL, hf.handler);
    await page.locator('#weights-retry').click();
    await expect(page.locator('#weights-summary')).toContainText('GPT-2 small ln_f from huggingface.co');
    await expect(notice).toBeHidden();
  });
});

test('ε is editable and validated', async ({ page }) => {
  await ready(page);
  await page.locator('#eps').fill('-1');
  await expect(page.locator('#eps-msg')).toContainText('ε must be a finite number ≥ 0');
  await expect(page.locator('#eps')).toHaveAttribute('aria-invalid', 'true');
  await page.locator('#eps').fill('0.1');
  await expect(page.locator('#eps-msg')).toBeEmpty();
  await expect(page.locator('#facts')).toContainText('0.1');
});

async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
