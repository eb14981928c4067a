/**
 * The card "Your text through GPT-2" in Chromium, against a local Hub (tests/browser/text/hub.ts)
 * serving a tiny GPT-2 and its tokenizer at the Hub's URLs: the reader's text is tokenized, the
 * model downloaded (through the Hub's redirect, its size said first) and run with onnxruntime-web
 * in the page's worker, and the card's explainer opens on the last token through ln_f with the
 * token strings, each captured row bit for bit what onnxruntime-web captures in Node. A second
 * visit reads the model from Cache Storage; a slow download can be cancelled; a 404, a bad file
 * and a bad text are said, and the card runs again after each.
 */
import AxeBuilder from '@axe-core/playwright';
import { test, expect, ready } from './fixtures';
import * as ortWeb from 'onnxruntime-web';
import { captureNorms, readOnnxModel } from '../../dist/onnx/index.js';
import { compareOutputs, init, layerNormReference } from '../../dist/index.js';
import { readNpy, writeNpy } from '../../dist/io/index.js';
import {
  MODEL_PATH,
  SENTENCE,
  SENTENCE_IDS,
  SENTENCE_TOKENS,
  DATA,
  TINY_GPT2,
  routeHub,
  startHub,
  type Hub,
} from './text/hub';
import type { Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const readFixture = (name: string) => new Uint8Array(readFileSync(join(DATA, name)));

let hub: Hub;
test.beforeAll(async () => {
  hub = await startHub();
  ortWeb.env.wasm.numThreads = 1;
});
test.afterAll(() => hub.close());
test.beforeEach(async ({ page }) => routeHub(page.context(), hub));

type Explainer = HTMLElement & {
  ready: Promise<void>;
  row: number;
  stages: { input: Float32Array; output: Float32Array } | null;
  engine: { tokens: string[] | null; shape: number[] } | null;
  weights: { gamma: Float32Array } | null;
};

async function openTextCard(page: Page): Promise<void> {
  await ready(page);
  await page.locator('#text-card').scrollIntoViewIfNeeded();
  await expect(page.locator('#text-card')).toHaveAttribute('data-mounted', 'true');
}

async function runText(page: Page, text: string): Promise<void> {
  await page.locator('#text-input').fill(text);
  await page.locator('#text-run').click();
}

/** What the card's explainer shows: its row, tokens, shape and the stages' input row. */
const shown = (page: Page) =>
  page.locator('#text-explainer').evaluate(async (node) => {
    const el = node as Explainer;
    await el.ready;
    return {
      row: el.row,
      tokens: el.engine?.tokens ?? null,
      shape: el.engine?.shape ?? null,
      input: el.stages ? Array.from(el.stages.input) : null,
      gamma: el.weights ? Array.from(el.weights.gamma) : null,
    };
  });

test('a sentence: tokenized, GPT-2 downloaded through the redirect and run in the worker, ln_f of the last token explained; a second visit downloads nothing', async ({
  page,
}) => {
  const fetched: string[] = [];
  page.context().on('request', (r) => fetched.push(new URL(r.url()).pathname));
  await openTextCard(page);
  // The card is there, its code loaded: onnxruntime-web, the run's code, the tokenizer and the model not yet.
  const runFiles = /ort[.-]|\/operations-|tokenizer\.json|\.onnx$/;
  expect(fetched.filter((f) => runFiles.test(f))).toEqual([]);
  expect(fetched.some((f) => /\/text-.*\.js$/.test(f))).toBe(true);
  const labels: string[] = [];
  await page.exposeFunction('noteProgress', (t: string) => labels.push(t));
  await page.evaluate(() => {
    const label = document.getElementById('text-progress-label')!;
    new MutationObserver(() =>
      (window as unknown as { noteProgress(t: string): void }).noteProgress(label.textContent!),
    ).observe(label, { childList: true, characterData: true, subtree: true });
  });
  await expect(page.locator('#text-cache-note')).toHaveText(
    'The first run downloads GPT-2 small once (its size is said before the first byte); this browser then keeps it.',
  );
  hub.log.length = 0;
  await runText(page, SENTENCE);
  await expect(page.locator('#text-summary')).toContainText('8 tokens', { timeout: 30_000 });
  await expect(page.locator('#text-msg')).toBeEmpty();
  // The size came before the bytes: from the HEAD, through the Hub's redirect.
  expect(
    labels.some((t) => t.includes(`Downloading the model: ${(TINY_GPT2.length / 1000).toFixed(1)} KB`)),
    labels.join('\n'),
  ).toBe(true);
  expect(hub.log.filter((r) => r.path === `/cdn${MODEL_PATH}`).map((r) => r.method)).toEqual(['HEAD', 'GET']);
  await expect(page.locator('#text-summary')).toContainText('5 norms captured');
  // Asking for the run loaded them, in the worker: the main thread's own resource timeline has none.
  const mainThread = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
  expect(mainThread.filter((f) => runFiles.test(new URL(f).pathname))).toEqual([]);
  for (const file of [
    /\/operations-.*\.js$/,
    /ort\.wasm\.bundle\.min-.*\.js$/,
    /ort-wasm-simd-threaded-.*\.wasm$/,
    /tokenizer\.json$/,
  ]) {
    expect(
      fetched.some((f) => file.test(f)),
      String(file),
    ).toBe(true);
  }

  // The picker: every norm, ln_f picked.
  const options = await page.locator('#text-norm option').allTextContents();
  expect(options).toEqual([
    '1. transformer.h.0.ln_1',
    '2. transformer.h.0.ln_2',
    '3. transformer.h.1.ln_1',
    '4. transformer.h.1.ln_2',
    '5. transformer.ln_f',
  ]);
  await expect(page.locator('#text-norm')).toHaveValue('4');

  // What onnxruntime-web captures from the same ids in Node: the explainer's row is its last token's, bit for bit.
  const node = await captureNorms(ortWeb, await readOnnxModel(TINY_GPT2), SENTENCE_IDS);
  const rowOf = (k: number, row: number) => Array.from(node.norms[k]!.input.data.subarray(row * 16, row * 16 + 16));
  let view = await shown(page);
  expect(view.tokens).toEqual(SENTENCE_TOKENS);
  expect(view.shape).toEqual([8, 16]);
  expect(view.row).toBe(7);
  expect(view.input).toEqual(rowOf(4, 7));
  expect(view.gamma).toEqual(Array.from(node.norms[4]!.gamma));

  // Another layer, on the same tokens.
  await page.locator('#text-norm').selectOption('1');
  await expect.poll(async () => (await shown(page)).input).toEqual(rowOf(1, 7));
  view = await shown(page);
  expect(view.gamma).toEqual(Array.from(node.norms[1]!.gamma));

  // The depth chart: σ and max|x| at each of the 5 norms.
  const lines = page.locator('#text-depth polyline');
  await expect(lines).toHaveCount(2);
  expect((await lines.first().getAttribute('points'))!.split(' ')).toHaveLength(5);

  // A second visit: the model and tokenizer come from Cache Storage.
  hub.log.length = 0;
  await openTextCard(page);
  await expect(page.locator('#text-cache-note')).toHaveText(
    'GPT-2 small is kept in this browser from an earlier visit: nothing to download.',
  );
  await runText(page, SENTENCE);
  await expect(page.locator('#text-summary')).toContainText('nothing downloaded', { timeout: 30_000 });
  expect(hub.log).toEqual([]);
  expect((await shown(page)).input).toEqual(rowOf(4, 7));

  // A shorter text with the same model, then the longer one again: the explainer on each run's
  // last token, and no error from the element on the way.
  await page.locator('#text-explainer').evaluate((el) => {
    const w = window as unknown as { explainerErrors: string[] };
    w.explainerErrors = [];
    el.addEventListener('error', (e) => w.explainerErrors.push((e as CustomEvent<{ message: string }>).detail.message));
  });
  await runText(page, 'the mat.');
  await expect(page.locator('#text-summary')).toContainText('4 tokens');
  const ids = [20, 30, 40, 27]; // t, he, " mat", "."
  const again = await captureNorms(ortWeb, await readOnnxModel(TINY_GPT2), ids);
  await expect.poll(async () => (await shown(page)).row).toBe(3);
  view = await shown(page);
  expect(view.tokens).toEqual(['t', 'he', ' mat', '.']);
  expect(view.input).toEqual(Array.from(again.norms[4]!.input.data.subarray(3 * 16, 4 * 16)));
  await runText(page, SENTENCE);
  await expect(page.locator('#text-summary')).toContainText('8 tokens');
  await expect.poll(async () => (await shown(page)).input).toEqual(rowOf(4, 7));
  expect(await page.evaluate(() => (window as unknown as { explainerErrors: string[] }).explainerErrors)).toEqual([]);
});

const cacheHolds = (page: Page, url: string) =>
  page.evaluate(async (u) => !!(await (await caches.open('layernorm-wasm-models-v1')).match(u)), url);

test('a slow download says its bytes and an estimate, and a cancel stops it and keeps nothing; a 404 is said; the card runs after both', async ({
  page,
}) => {
  await openTextCard(page);
  const slowUrl = `${hub.origin}/slow${MODEL_PATH}`;
  await page.locator('input[name="text-model"][value="url"]').check();
  await page.locator('#text-url').fill(slowUrl);
  await runText(page, SENTENCE);
  const label = page.locator('#text-progress-label');
  await expect(label).toContainText(/Downloading the model: \d+(\.\d)? KB of 65\.3 KB, about \d+ s left/);
  await page.locator('#text-cancel').click();
  await expect(page.locator('#text-msg')).toHaveText('Cancelled: nothing was downloaded or kept.');
  await expect(page.locator('#text-progress-row')).toBeHidden();
  await expect(page.locator('#text-run')).toBeEnabled();
  await expect.poll(() => hub.cut).toContain(`/slow${MODEL_PATH}`);
  expect(await cacheHolds(page, slowUrl)).toBe(false);

  // A model that is not there: the HEAD's 404, said with the address.
  const missing = `${hub.origin}/models/missing.onnx`;
  await page.locator('#text-url').fill(missing);
  await page.locator('#text-run').click();
  await expect(page.locator('#text-msg')).toHaveText(
    `DownloadError: Could not download the model from ${missing}: HTTP 404 Not Found. The file is not there: check the address.`,
  );
  // A tokenizer that is not there, beside a model at the Hub's layout.
  const elsewhere = `${hub.origin}/someone/gpt2/resolve/main/onnx/model.onnx`;
  await page.locator('#text-url').fill(elsewhere);
  await page.locator('#text-run').click();
  await expect(page.locator('#text-msg')).toContainText(
    `Could not download the tokenizer from ${hub.origin}/someone/gpt2/resolve/main/tokenizer.json: HTTP 404`,
  );

  // The same slow URL again, to its end: then it is kept.
  await page.locator('#text-url').fill(slowUrl);
  await page.locator('#text-run').click();
  await expect(page.locator('#text-summary')).toContainText('8 tokens', { timeout: 30_000 });
  await expect(page.locator('#text-msg')).toBeEmpty();
  expect(await cacheHolds(page, slowUrl)).toBe(true);
});

test('bad input is said and the card runs again: a cut or non-ONNX file, no norm, a norm in an If, float16, external data, an empty text, ids outside the vocabulary, a character without a token, more tokens than the context', async ({
  page,
}) => {
  await openTextCard(page);
  const msg = page.locator('#text-msg');
  await page.locator('input[name="text-model"][value="file"]').check();
  const file = (name: string, buffer: Uint8Array | string) =>
    page
      .locator('#text-file')
      .setInputFiles({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(buffer) });
  const refusals: [string, Uint8Array | string, string][] = [
    ['cut.onnx', TINY_GPT2.subarray(0, TINY_GPT2.length >> 1), 'the file is truncated: it ends at byte 32630'],
    ['page.onnx', '<!doctype html><html>hi</html>', 'expected an ONNX model (a protobuf ModelProto)'],
    ['no-norm.onnx', readFixture('no-norm.onnx'), 'found no normalization in the main graph'],
    ['norm-in-if.onnx', readFixture('norm-in-if.onnx'), 'is inside the else_branch of If node "optimum::if"'],
    ['float16.onnx', readFixture('float16.onnx'), 'is float16; expected float32'],
    ['external-data.onnx', readFixture('external-data.onnx'), 'keeps its data in an external file'],
  ];
  for (const [name, bytes, said] of refusals) {
    await file(name, bytes);
    await runText(page, SENTENCE);
    await expect(msg, name).toContainText(`FormatError: ${name} (`);
    await expect(msg, name).toContainText(said);
    await expect(msg).toHaveAttribute('data-kind', 'error');
  }

  await file('gpt2.onnx', TINY_GPT2);
  const texts: [string, string][] = [
    ['', 'TextInputError: Type some text first: an empty text has no tokens to run.'],
    [
      'the zoo',
      'RangeError: NormCapture.run: tokens[3] must be an integer in [0, 64) (the vocabulary: the rows of transformer.wte.weight_quantized), got number 100',
    ],
    ['cat!', 'TokenizerError: “!” (in “!”) has no token in'],
    [
      ' the cat'.repeat(17),
      "RangeError: NormCapture.run: tokens must hold at most 32 token ids (the model's context: the rows of transformer.wpe.weight), got length 34",
    ],
  ];
  for (const [text, said] of texts) {
    await runText(page, text);
    await expect(msg, JSON.stringify(text)).toContainText(said);
  }

  await runText(page, SENTENCE);
  await expect(page.locator('#text-summary')).toContainText('8 tokens through gpt2.onnx');
  await expect(msg).toBeEmpty();
  expect((await shown(page)).tokens).toEqual(SENTENCE_TOKENS);
});

test("the lab: per token, this package, onnxruntime-web's own norm and PyTorch's .npy against the exact answer; the depth chart's numbers", async ({
  page,
}) => {
  await openTextCard(page);
  await runText(page, SENTENCE);
  await expect(page.locator('#text-summary')).toContainText('8 tokens', { timeout: 30_000 });

  // The same norm in Node: onnxruntime-web's capture, the package's output, compareOutputs per row.
  const node = await captureNorms(ortWeb, await readOnnxModel(TINY_GPT2), SENTENCE_IDS);
  const lnf = node.norms[4]!;
  const d = lnf.d;
  const opts = { gamma: lnf.gamma, beta: lnf.beta, eps: lnf.eps };
  const exact = layerNormReference(lnf.input.data, d, opts);
  const ours = (await init()).layerNorm(lnf.input.data, d, opts);
  // PyTorch's output as the reader might bring it: the exact answer, one element off, one NaN.
  const torch = exact.slice();
  torch[5 * d + 9] = Math.fround(torch[5 * d + 9]! * (1 + 2 ** -20));
  torch[2 * d + 3] = NaN;
  const perRow = (y: Float32Array) =>
    SENTENCE_TOKENS.map((_, r) => {
      const at = (a: Float32Array) => a.subarray(r * d, (r + 1) * d);
      return compareOutputs(at(y), at(exact), d, lnf.beta).maxScaledUlp.toPrecision(3) + ' sULP';
    });
  const expected = [perRow(ours), perRow(lnf.output.data), perRow(torch)];

  // The norm's input to run PyTorch on: [8, 16], bit for bit what onnxruntime-web captures in Node.
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#text-input-npy').click()]);
  expect(download.suggestedFilename()).toBe('transformer.ln_f.input.npy');
  const x = readNpy(new Uint8Array(readFileSync(await download.path())));
  expect(x.shape).toEqual([8, d]);
  expect(Array.from(x.data)).toEqual(Array.from(lnf.input.data));

  await page.locator('#text-torch').setInputFiles({
    name: 'torch-ln_f.npy',
    mimeType: 'application/octet-stream',
    buffer: Buffer.from(writeNpy(torch, [8, d])),
  });
  const table = page.locator('#text-lab');
  await expect(table.locator('thead th')).toHaveText([
    'token',
    'this package',
    'onnxruntime-web',
    'PyTorch (torch-ln_f.npy)',
  ]);
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(8);
  for (let r = 0; r < 8; r++) {
    await expect(rows.nth(r).locator('th')).toHaveText(`${r}: “${SENTENCE_TOKENS[r]}”`);
    await expect(rows.nth(r).locator('td')).toHaveText(expected.map((col) => col[r]!));
  }
  const foot = table.locator('tfoot tr');
  const torchWorst = compareOutputs(torch.subarray(5 * d, 6 * d), exact.subarray(5 * d, 6 * d), d, lnf.beta);
  await expect(foot.nth(1).locator('td').nth(2)).toHaveText(
    `“ the” (row 5), feature 9: ${torch[5 * d + 9]} against ${exact[5 * d + 9]}`,
  );
  expect(torchWorst.maxScaledUlp).toBeGreaterThan(4);
  await expect(foot.nth(2).locator('td')).toHaveText(['0', '0', '1']);
  // The package's output meets its contract on every token.
  expect(compareOutputs(ours, exact, d, lnf.beta).maxScaledUlp).toBeLessThanOrEqual(4);

  // The chart's numbers: σ (population, float64) and max|x| of the last token at each norm.
  const stats = node.norms.map((n) => {
    const row = Array.from(n.input.data.subarray(7 * d, 8 * d));
    const mean = row.reduce((a, b) => a + b, 0) / d;
    const sigma = Math.sqrt(row.reduce((a, b) => a + (b - mean) ** 2, 0) / d);
    return [n.name, sigma.toPrecision(4), Math.max(...row.map(Math.abs)).toPrecision(4)];
  });
  const cells = await page
    .locator('#text-depth-table tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  expect(cells).toEqual(stats);

  // Another norm: its own lab, without the PyTorch file of ln_f.
  await page.locator('#text-norm').selectOption('0');
  await expect(table.locator('thead th')).toHaveText(['token', 'this package', 'onnxruntime-web']);
  await expect(page.locator('#text-torch')).toHaveValue('');

  // The card with everything drawn: nothing for axe-core to report.
  await page.locator('#text-card details').evaluate((d) => ((d as HTMLDetailsElement).open = true));
  const { violations } = await new AxeBuilder({ page }).include('#text-card').analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
});

test('a download cut halfway resumes by a range request for the rest, and the model runs', async ({ page }) => {
  await openTextCard(page);
  const url = `${hub.origin}/cut${MODEL_PATH}`;
  // Typing the URL chooses it as the source.
  await page.locator('#text-url').fill(url);
  await expect(page.locator('input[name="text-model"][value="url"]')).toBeChecked();
  hub.log.length = 0;
  await runText(page, SENTENCE);
  await expect(page.locator('#text-summary')).toContainText('8 tokens', { timeout: 30_000 });
  const half = TINY_GPT2.length >> 1;
  const requests = hub.log.filter((r) => r.path === `/cut${MODEL_PATH}`);
  expect(requests.map((r) => r.method)).toEqual(['HEAD', 'GET', 'GET']);
  // The second GET asks for the rest only: from the bytes that arrived (all of the half the server
  // sent, unless the browser dropped some it had not yet handed over when the connection broke).
  const resumedAt = Number(/^bytes=(\d+)-$/.exec(requests[2]!.range ?? '')?.[1]);
  expect(resumedAt).toBeGreaterThan(0);
  expect(resumedAt).toBeLessThanOrEqual(half);
  expect((await shown(page)).tokens).toEqual(SENTENCE_TOKENS);
  expect(await cacheHolds(page, url)).toBe(true);
  const kept = await page.evaluate(
    async (u) =>
      Array.from(new Uint8Array(await (await (await caches.open('layernorm-wasm-models-v1')).match(u))!.arrayBuffer())),
    url,
  );
  expect(kept).toEqual(Array.from(TINY_GPT2));
});

test('on a phone, the card with a run fits the width', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openTextCard(page);
  await runText(page, SENTENCE);
  await expect(page.locator('#text-summary')).toContainText('8 tokens', { timeout: 30_000 });
  await expect(page.locator('#text-lab tbody tr')).toHaveCount(8);
  await page.locator('#text-card').screenshot({ path: 'test-results/screenshots/text-card-phone.png' });
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBe(0);
});
