import {
  test,
  expect,
  shot,
  ready,
  openCard,
  stageRow,
  forwardToServer,
  nearExtras,
  HF_URL,
  CHECKPOINT,
  GAMMA,
  BETA,
  D,
} from './fixtures';
import { compareOutputs, layerNormReference, rmsNormReference } from 'layernorm-wasm';
import { readNpy } from 'layernorm-wasm/io';
import { normGguf, qwenCheckpoint, QWEN_CONFIG_URL, QWEN_D, QWEN_EPS, QWEN_URL } from '../kit/checkpoints/index.mjs';
import { maxRelErr, npy, testActivations, toText } from './helpers';
import { buildSafetensors, f32Bytes, gpt2Layout, toBytes } from '../kit/checkpoints/index.mjs';
import { exactStats } from '../kit/stats.mjs';
import type { Download, Page } from '@playwright/test';

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

test('a checkpoint of a family outside the table loads with a warning in the weights card', async ({ page }) => {
  // RecurrentGemma computes with 1 + w; the loader's table does not have it, and the card says what it assumed.
  const checkpoint = toBytes(
    buildSafetensors([{ name: 'model.final_norm.weight', dtype: 'F32', shape: [D], data: f32Bytes(GAMMA) }]).file,
  );
  const config = { model_type: 'recurrent_gemma', architectures: ['RecurrentGemmaForCausalLM'], rms_norm_eps: 1e-6 };
  await ready(page);
  await page.locator('input[name="wsrc"][value="file"]').check();
  await page
    .locator('#weights-config-file')
    .setInputFiles({ name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(config)) });
  await page.locator('#weights-file').setInputFiles({
    name: 'recurrentgemma.safetensors',
    mimeType: 'application/octet-stream',
    buffer: Buffer.from(checkpoint),
  });
  const summary = page.locator('#weights-summary');
  await expect(summary).toContainText(
    'RMSNorm model.final_norm.weight (recurrent_gemma), ε = 1e-6 as the checkpoint states',
  );
  await expect(page.locator('#weights-notice')).toHaveAttribute('data-kind', 'warn');
  await expect(page.locator('#weights-notice-text')).toHaveText(
    'Note: model_type "recurrent_gemma" in config.json is not a family the loader\'s table knows (README "Which norm, ' +
      'γ and ε"), so it assumed RMSNorm (config.json (model_type "recurrent_gemma"): rms_norm_eps = 0.000001) and ' +
      'γ = w, the weight as stored (if its code computes with 1 + w, as Gemma’s does, γ is off by 1).',
  );
  // GPT-2, a family the table has, clears it.
  await page.locator('input[name="wsrc"][value="hf"]').check();
  await expect(summary).toContainText('LayerNorm ln_f.weight (gpt2)');
  await expect(page.locator('#weights-notice')).toBeHidden();
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

test('bias-free preset: gain only, 768 parameters, output matches the exact reference', async ({ page }) => {
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
  // Decimals a double cannot hold are refused, not taken as 0 or Infinity.
  for (const text of ['1e-400', '1e400']) {
    await page.locator('#eps').fill('0.1');
    await expect(page.locator('#eps-msg')).toBeEmpty();
    await page.locator('#eps').fill(text);
    await expect(page.locator('#eps-msg')).toHaveText(
      'ε must be a finite number ≥ 0 that a double holds (0, or from 5e-324 up), e.g. 1e-5.',
    );
    await expect(page.locator('#eps')).toHaveAttribute('aria-invalid', 'true');
  }
  await page.locator('#eps').fill('0.1');
  await expect(page.locator('#eps-msg')).toBeEmpty();
  await expect(page.locator('#out-summary')).toContainText('ε = 0.1,');
  await openCard(page, 'explain');
  await expect(page.locator('#fact-eps')).toHaveText('0.1');
});

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

/** The .npy the output card downloads, read with the package's reader. */
async function downloadNpy(page: Page): Promise<{ data: Float32Array; shape: number[] }> {
  const dl = page.waitForEvent('download');
  await page.locator('#dl-npy').click();
  const chunks: Buffer[] = [];
  for await (const c of (await (await dl).createReadStream()) as AsyncIterable<Buffer>) chunks.push(Buffer.from(c));
  return readNpy(Buffer.concat(chunks));
}

/**
 * Three rows where the norm and its ε show: GPT-2-like with a massive channel; a mean of 5 (where
 * LayerNorm's centring differs most from RMSNorm); values of about 1e-3, whose mean(x²) is near ε.
 */
function rmsRows(d: number): Float32Array {
  const x = testActivations(3, d, 21);
  for (let j = 0; j < d; j++) {
    x[d + j]! += 5;
    x[2 * d + j]! *= 1e-3;
  }
  return x;
}

async function pasteRows(page: Page, x: Float32Array, d: number): Promise<void> {
  await page.locator('#paste').fill(toText(x, d));
  await page.locator('#paste-btn').click();
  await expect(page.locator('#out-summary')).toContainText(`Output [${x.length / d}, ${d}]`);
}

/** A number as the page prints it is v to the digits printed: within half a unit of the last one. */
function expectPrinted(text: string, v: number, what: string): void {
  const digits = text.replace(/e.*$/i, '').replace(/[-.]/g, '').replace(/^0+/, '').length;
  const halfUnit = 0.5 * 10 ** (Math.floor(Math.log10(Math.abs(v))) - digits + 1);
  expect(Math.abs(Number(text) - v), `${what}: ${text} vs ${v}`).toBeLessThanOrEqual(halfUnit * (1 + 1e-9));
}

/** Within the package's accuracy contract of the exact answer: ≤ 6.5 sULP, no non-finite mismatch. */
function expectWithinContract(y: Float32Array, exact: Float32Array, d: number, beta: Float32Array | null = null) {
  const c = compareOutputs(y, exact, d, beta);
  expect([c.compared, c.nonFiniteMismatches]).toEqual([exact.length, 0]);
  expect(c.maxScaledUlp).toBeLessThanOrEqual(6.5);
}

test("a Llama GGUF's output_norm.weight runs as RMSNorm with its own ε; GPT-2 then runs as LayerNorm again", async ({
  page,
  server,
}) => {
  server.addFile('llama.gguf', normGguf('llama', 'layer_norm_rms_epsilon', 1e-6));
  await ready(page, './', 'GPT-2 small');
  const x = rmsRows(D);
  await pasteRows(page, x, D);
  await page.locator('input[name="wsrc"][value="url"]').check();
  await page.locator('#weights-url').fill(server.url('llama.gguf'));
  await page.locator('#weights-url').press('Enter');
  const summary = page.locator('#weights-summary');
  await expect(summary).toContainText('RMSNorm output_norm.weight (llama), ε = 1e-6 as the checkpoint states');
  await expect(summary).toContainText('no β (an RMSNorm has none)');
  await expect(page.locator('#weights-notice')).toBeHidden();
  await expect(page.locator('#eps')).toHaveValue('1e-6');
  await expect(page.locator('#eps-origin')).toHaveText('As the checkpoint states it (llama).');
  await expect(page.locator('input[name="preset"][value="rmsnorm"]')).toBeChecked();
  await expect(page.locator('input[name="preset"][value="layernorm"]')).toBeDisabled();
  await expect(page.locator('input[name="preset"][value="biasfree"]')).toBeDisabled();
  await expect(page.locator('#out-summary')).toContainText('Output [3, 768]: 2,304 values, ε = 1e-6, RMSNorm (γ only)');

  // The numbers: RMSNorm with γ and ε = 1e-6, as the package's correctly rounded reference has it.
  const exact = rmsNormReference(x, D, { gamma: GAMMA, eps: 1e-6 });
  // (These rows tell the norms and the ε apart: LayerNorm, or RMSNorm with 1e-5, is far off.)
  expect(compareOutputs(rmsNormReference(x, D, { gamma: GAMMA, eps: 1e-5 }), exact, D).maxScaledUlp).toBeGreaterThan(
    1e3,
  );
  expect(compareOutputs(layerNormReference(x, D, { gamma: GAMMA, eps: 1e-6 }), exact, D).maxScaledUlp).toBeGreaterThan(
    1e3,
  );
  const out = await downloadNpy(page);
  expect(out.shape).toEqual([3, D]);
  expectWithinContract(out.data, exact, D);
  // Per-row statistics are RMSNorm's: mean(x²) and 1/√(mean(x²) + ε).
  await expect(page.locator('#stats-table thead th')).toHaveText(['row', 'mean(x²)', '1/√(mean(x²)+ε)']);
  const cells = page.locator('#stats-table tbody tr');
  const stats = exactStats(x, D, { norm: 'rmsnorm', eps: 1e-6 });
  for (let r = 0; r < 3; r++) {
    const [shownMs, shownRstd] = await cells.nth(r).locator('td').allTextContents();
    expectPrinted(shownMs!, stats.meanSquare[r]!, `row ${r}: mean(x²)`);
    expectPrinted(shownRstd!, stats.rstd[r]!, `row ${r}: rstd`);
  }

  // The check: against rmsNormReference, and the SIMD build against the scalar one, bit for bit.
  await openCard(page, 'check');
  await expect(page.locator('#ref-result')).toContainText('✓ Agrees — against rmsNormReference:');
  await page.locator('#scalar-btn').click();
  await expect(page.locator('#scalar-result')).toContainText('✓ Bit-identical');
  await expect(page.locator('#scalar-result')).toContainText('for all 2,304 values of RMSNorm (γ only).');
  await shot(page, '16-rmsnorm-gguf');

  // Back to GPT-2: LayerNorm with γ and β and GPT-2's ε.
  await page.locator('input[name="wsrc"][value="hf"]').check();
  await expect(summary).toContainText('LayerNorm ln_f.weight (gpt2), ε = 1e-5 as the checkpoint states');
  await expect(page.locator('#eps')).toHaveValue('1e-5');
  await expect(page.locator('input[name="preset"][value="layernorm"]')).toBeChecked();
  await expect(page.locator('input[name="preset"][value="rmsnorm"]')).toBeDisabled();
  await expect(page.locator('#out-summary')).toContainText(
    'Output [3, 768]: 2,304 values, ε = 1e-5, LayerNorm (γ and β)',
  );
  await expect(page.locator('#stats-table thead th')).toHaveText(['row', 'μ', 'σ²', '1/√(σ²+ε)']);
  expectWithinContract((await downloadNpy(page)).data, layerNormReference(x, D, { gamma: GAMMA, beta: BETA }), D, BETA);
  await expect(page.locator('#ref-result')).toContainText('✓ Agrees — against layerNormReference:');
});

test('a safetensors checkpoint whose config.json says rms_norm_eps is explained and checked as RMSNorm', async ({
  page,
  server,
}) => {
  const qwen = qwenCheckpoint();
  server.addFile('qwen/model.safetensors', qwen.file);
  server.addFile('qwen/config.json', qwen.config);
  await forwardToServer(page.context(), server, QWEN_URL, 'qwen/model.safetensors');
  await forwardToServer(page.context(), server, QWEN_CONFIG_URL, 'qwen/config.json');
  const d = QWEN_D;
  await ready(page, './', 'GPT-2 small');
  await page.locator('input[name="wsrc"][value="url"]').check();
  await page.locator('#weights-url').fill(QWEN_URL);
  await page.locator('#weights-url').press('Enter');
  const summary = page.locator('#weights-summary');
  await expect(summary).toContainText('stored as BF16');
  await expect(summary).toContainText('RMSNorm model.norm.weight (qwen2), ε = 1e-6 as the checkpoint states');
  await expect(summary).toContainText(`d = ${d}`);
  // The generated sample follows the weights' width; then rows of our own.
  await expect(page.locator('#out-summary')).toContainText(`Output [1, 16, ${d}]`);
  const x = rmsRows(d);
  await pasteRows(page, x, d);
  const exact = rmsNormReference(x, d, { gamma: qwen.gamma, eps: QWEN_EPS });

  // The explainer: RMSNorm's equation (no μ, no β), its statistics and its three stages.
  await openCard(page, 'explain');
  const equations = await page.locator('#equation math').allTextContents();
  expect(equations).toHaveLength(2);
  expect(equations.join(' ')).toContain('mean');
  expect(equations.join(' ')).not.toMatch(/[μβ]/);
  await expect(page.locator('#fact-norm')).toHaveText('RMSNorm (γ only)');
  await expect(page.locator('#param-count')).toHaveText('γ 896 = 896 (no β)');
  await page.locator('#ex-row').fill('2');
  await expect(page.locator('#ex-token')).toHaveText('row 2');
  const row2 = exactStats(x, d, { norm: 'rmsnorm', eps: QWEN_EPS });
  expectPrinted((await page.locator('#ex-ms').textContent())!, row2.meanSquare[2]!, 'mean(x²)');
  expectPrinted((await page.locator('#ex-rstd').textContent())!, row2.rstd[2]!, 'rstd');
  await expect(page.locator('#ex-mean')).toHaveCount(0);
  const figures = page.locator('#stages figure:visible strong');
  await expect(figures).toHaveText(['x', 'x̂ = x · rstd', 'y = γ ⊙ x̂']);
  await expect(page.locator('.stage-table tbody th')).toHaveText(['x', 'x̂', 'γ', 'y']);
  const window = (v: Float32Array) => Array.from(v.subarray(2 * d + 444, 2 * d + 452));
  expect(maxRelErr(await stageRow(page, 'y'), window(exact))).toBeLessThan(1e-4);
  const xhat = window(rmsNormReference(x, d, { eps: QWEN_EPS }));
  expect(maxRelErr(await stageRow(page, 'x̂'), xhat)).toBeLessThan(1e-4);
  await expect(page.locator('#ex-insight')).toContainText('of mean(x²)');
  await nearExtras(page);
  await expect(page.locator('#variants-text')).toContainText('These weights run as RMSNorm');

  // The lab: the exact answer saved as an expected output passes, bit for bit equal to the page's
  // own exact answer (its rmsNormReference).
  await openCard(page, 'check');
  await expect(page.locator('#ref-result')).toContainText('✓ Agrees — against rmsNormReference:');
  await page.locator('#expected-file').setInputFiles({
    name: 'y_rms.npy',
    mimeType: 'application/octet-stream',
    buffer: npy(exact, [3, d]),
  });
  await expect(page.locator('#expected-result .verdict')).toContainText('PASS y_rms.npy — all 2,688 values');
  const side = page.locator('#lab-side table.side-by-side tbody tr');
  await expect(side.nth(1)).toContainText('2,688 (100.0%)');
  await expect(page.locator('#report-text')).toContainText('layer:      RMSNorm (γ only), ε = 0.000001');
  await shot(page, '17-rmsnorm-explainer');
});
