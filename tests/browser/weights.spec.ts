import { test, expect, shot, ready, openCard, stageRow, HF_URL, CHECKPOINT, GAMMA, BETA, D } from './fixtures';
import { layerNormReference } from 'layernorm-wasm';
import { maxRelErr } from './helpers';
import { buildGguf, buildSafetensors, f32Bytes, gpt2Layout, toBytes, type GgufValue } from '../io/fixtures';
import type { Download } from '@playwright/test';

async function text(d: Download): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of (await d.createReadStream()) as AsyncIterable<Buffer>) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks).toString('utf8');
}

/** A small safetensors file with GPT-2's tensor names: γ (and β unless `gainOnly`). */
function smallCheckpoint(gainOnly = false): Buffer {
  const tensors = gpt2Layout()
    .filter((t) => t.name.startsWith('ln_f.') || t.name === 'h.0.ln_1.weight')
    .filter((t) => !(gainOnly && t.name === 'ln_f.bias'))
    .map((t) => ({
      ...t,
      dtype: 'F32',
      data: t.name === 'ln_f.weight' ? f32Bytes(GAMMA) : t.name === 'ln_f.bias' ? f32Bytes(BETA) : undefined,
    }));
  return Buffer.from(toBytes(buildSafetensors(tensors).file));
}

test('loads GPT-2 ln_f from the Hugging Face URL with range reads of a 548 MB checkpoint', async ({ page, server }) => {
  server.reset();
  await ready(page);
  const summary = page.locator('#weights-summary');
  await expect(summary).toContainText('GPT-2 small ln_f from huggingface.co');
  await expect(summary).toContainText(/[\d.]+ KB of 548 MB fetched with range reads/);
  // Only the header and the two 3 KB tensors travel, not the 548 MB file.
  expect(server.bytesSent('model.safetensors')).toBeLessThan(32 * 1024);
  expect(CHECKPOINT.file.size).toBeGreaterThan(548_000_000);
  await expect(page.locator('#weights-notice')).toBeHidden();
  await openCard(page, 'explain');
  await expect(page.locator('#param-count')).toHaveText('γ 768 + β 768 = 1,536');
  expect(maxRelErr(await stageRow(page, 'γ'), Array.from(GAMMA.subarray(444, 452)))).toBeLessThan(1e-4);
  expect(maxRelErr(await stageRow(page, 'β'), Array.from(BETA.subarray(444, 452)))).toBeLessThan(1e-4);
  await openCard(page, 'check');
  await expect(page.locator('#ref-result')).toContainText('✓ Agrees');
  await shot(page, '01-initial-gpt2');
});

test('loads weights from a local checkpoint file, reading only the slices it needs', async ({ page }) => {
  await ready(page);
  await page.locator('input[name="wsrc"][value="file"]').check();
  await page
    .locator('#weights-file')
    .setInputFiles({ name: 'gpt2-small.safetensors', mimeType: 'application/octet-stream', buffer: smallCheckpoint() });
  const summary = page.locator('#weights-summary');
  await expect(summary).toContainText(/gpt2-small\.safetensors \(local file\) — [\d.]+ KB of [\d.]+ KB read/);
  await openCard(page, 'explain');
  expect(maxRelErr(await stageRow(page, 'γ'), Array.from(GAMMA.subarray(444, 452)))).toBeLessThan(1e-4);
});

test('a checkpoint dropped on the weights card is loaded', async ({ page }) => {
  await ready(page);
  // Bytes travel as base64: an array of numbers is slow for the test harness to hand over.
  const dataTransfer = await page.evaluateHandle((b64) => {
    const dt = new DataTransfer();
    dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'dropped.safetensors'));
    return dt;
  }, smallCheckpoint().toString('base64'));
  const card = page.locator('#weights-card');
  await card.dispatchEvent('dragover', { dataTransfer });
  await card.dispatchEvent('drop', { dataTransfer });
  await expect(page.locator('#weights-summary')).toContainText('dropped.safetensors (local file)');
  await expect(page.locator('input[name="wsrc"][value="file"]')).toBeChecked();
});

test('loads from a custom URL with range reads and rejects other schemes', async ({ page, server }) => {
  await ready(page);
  await page.locator('input[name="wsrc"][value="url"]').check();
  await page.locator('#weights-url').fill('ftp://example.org/model.safetensors');
  await page.locator('#weights-url-load').click();
  await expect(page.locator('#weights-notice')).toContainText('Only http and https URLs are supported');
  const url = server.url('model.safetensors');
  server.reset();
  await page.locator('#weights-url').fill(url);
  await page.locator('#weights-url').press('Enter');
  await expect(page.locator('#weights-summary')).toContainText(url);
  await expect(page.locator('#weights-summary')).toContainText(`d = ${D}`);
  await expect(page.locator('#weights-notice')).toBeHidden();
  expect(server.requests.filter((r) => r.status === 206).length).toBeGreaterThan(0);
  expect(server.bytesSent()).toBeLessThan(32 * 1024);
});

test('bias-free preset: gain only, 768 parameters, output matches a float64 oracle', async ({ page }) => {
  await ready(page);
  await page.locator('input[name="preset"][value="biasfree"]').check();
  await openCard(page, 'explain');
  await expect(page.locator('#param-count')).toHaveText('γ 768 = 768 (no β)');
  await expect(page.locator('.stage-table th:text-is("β")')).toHaveCount(0);
  await expect(page.locator('#weights-summary')).toContainText('β ignored (bias-free preset)');
  const x = new Float32Array(2 * D);
  for (let i = 0; i < x.length; i++) x[i] = Math.sin(i * 0.7) * 3 + (i % D === 447 ? 900 : 0);
  await page.locator('#paste').fill(JSON.stringify([Array.from(x.subarray(0, D)), Array.from(x.subarray(D))]));
  await page.locator('#paste-btn').click();
  await expect(page.locator('#out-summary')).toContainText('Output [2, 768]');
  const dl = page.waitForEvent('download');
  await page.locator('#dl-json').click();
  const y = JSON.parse(await text(await dl)) as number[][];
  expect(maxRelErr(y.flat(), layerNormReference(x, D, { gamma: GAMMA }))).toBeLessThan(2e-5);
  await shot(page, '05-bias-free');
});

test.describe('offline', () => {
  // The browser itself logs the refused request.
  test.use({ allowConsole: [/Failed to load resource/] });

  test('a failing Hugging Face request at startup falls back to synthetic weights and offers a retry', async ({
    page,
  }) => {
    const offline = (route: import('@playwright/test').Route) => route.abort('internetdisconnected');
    await page.context().route(HF_URL, offline);
    await ready(page);
    const notice = page.locator('#weights-notice');
    await expect(notice).toBeVisible();
    await expect(notice).toContainText('Could not load weights from Hugging Face');
    await expect(notice).toContainText('failed without an answer');
    await expect(notice).toContainText('synthetic demo weights');
    await expect(page.locator('#weights-summary')).toContainText(
      "Synthetic demo weights (seed 1) — random, not GPT-2's",
    );
    await expect(page.locator('input[name="wsrc"][value="synthetic"]')).toBeChecked();
    await openCard(page, 'check');
    await expect(page.locator('#ref-result')).toContainText('✓ Agrees');
    await shot(page, '06-offline-fallback');
    // Back online: the retry loads the real weights and clears the notice.
    await page.context().unroute(HF_URL, offline);
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
  await expect(page.locator('#out-summary')).toContainText('ε = 0.1,');
  await openCard(page, 'explain');
  await expect(page.locator('#fact-eps')).toHaveText('0.1');
});

/** A GGUF holding one final norm, as llama.cpp names it, with the metadata that says what it is. */
function normGguf(architecture: string, epsKey: string, eps: number): Buffer {
  const metadata: Array<[string, GgufValue]> = [
    ['general.architecture', { type: 'string', value: architecture }],
    [`${architecture}.attention.${epsKey}`, { type: 'f32', value: eps }],
  ];
  const tensors = [{ name: 'output_norm.weight', dims: [D], type: 0 as const, data: f32Bytes(GAMMA) }];
  if (epsKey === 'layer_norm_epsilon')
    tensors.push({ name: 'output_norm.bias', dims: [D], type: 0, data: f32Bytes(BETA) });
  return Buffer.from(buildGguf(metadata, tensors));
}

test('ε comes from the checkpoint unless the visitor chose one', async ({ page }) => {
  await ready(page, './', 'GPT-2 small');
  // The Hub's config.json beside the checkpoint says 1e-5.
  await expect(page.locator('#eps')).toHaveValue('1e-5');
  await expect(page.locator('#eps-origin')).toHaveText('As the checkpoint states it (gpt2).');
  await page.locator('input[name="wsrc"][value="file"]').check();
  await page.locator('#weights-file').setInputFiles({
    name: 'gpt2-eps.gguf',
    mimeType: 'application/octet-stream',
    buffer: normGguf('gpt2', 'layer_norm_epsilon', 1e-6),
  });
  await expect(page.locator('#weights-summary')).toContainText('gpt2-eps.gguf (local file)');
  await expect(page.locator('#eps')).toHaveValue('1e-6');
  await expect(page.locator('#out-summary')).toContainText('ε = 1e-6,');
  // A chosen ε stays when other weights arrive, and the page says what they state.
  await page.locator('#eps').fill('0.01');
  await page.locator('input[name="wsrc"][value="hf"]').check();
  await expect(page.locator('#weights-summary')).toContainText('GPT-2 small ln_f from huggingface.co');
  await expect(page.locator('#eps')).toHaveValue('0.01');
  await expect(page.locator('#eps-origin')).toHaveText('The checkpoint states ε = 1e-5.');
  await expect(page.locator('#out-summary')).toContainText('ε = 0.01,');
});

test('an RMSNorm checkpoint is refused as such, and the weights in use stay', async ({ page }) => {
  await ready(page, './', 'GPT-2 small');
  await page.locator('input[name="wsrc"][value="file"]').check();
  await page.locator('#weights-file').setInputFiles({
    name: 'llama.gguf',
    mimeType: 'application/octet-stream',
    buffer: normGguf('llama', 'layer_norm_rms_epsilon', 1e-6),
  });
  const notice = page.locator('#weights-notice');
  await expect(notice).toContainText('"output_norm.weight" is the gain of an RMSNorm (llama\'s checkpoint says so)');
  await expect(notice).toContainText('The page keeps using GPT-2 small ln_f from huggingface.co.');
  await expect(page.locator('#weights-summary')).toContainText('GPT-2 small ln_f from huggingface.co');
});
