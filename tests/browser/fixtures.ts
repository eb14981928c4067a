/**
 * Shared test setup. A local fixture server (tests/helpers/fixture-server.ts) serves a full-size
 * GPT-2-layout model.safetensors (548 MB, sparse: header and ln_f are real bytes, the rest is
 * generated zeros) with range reads; the Hugging Face URL is forwarded to it, and every other
 * request that would leave the machine is refused. Console errors and uncaught page errors fail a
 * test.
 */
import { test as base, expect, type BrowserContext, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server';
import { LN_F_SEED, configJson, gpt2Config, gpt2Safetensors } from '../kit/checkpoints/index.mjs';
import { NORM_FORM_NAMES, NORM_FORMS } from 'layernorm-wasm';

export const HF_URL = 'https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors';
/** The Hub's config.json beside the checkpoint, which the loader reads for ε (GPT-2's: 1e-5). */
export const HF_CONFIG_URL = 'https://huggingface.co/openai-community/gpt2/resolve/main/config.json';
/** The checkpoint every test serves: GPT-2's layout, seeded γ and β. */
export const CHECKPOINT = gpt2Safetensors(LN_F_SEED);
export const { gamma: GAMMA, beta: BETA } = CHECKPOINT;
export const D = 768;
/** The forms the page draws side by side (LayerNorm, bias-free, RMSNorm): each form of the table, by its short name. */
export const FORM_NAMES = NORM_FORM_NAMES.map((f) => NORM_FORMS[f].short);

type WorkerFixtures = { server: FixtureServer };
type Fixtures = {
  /** Console messages matching these are tolerated (e.g. the browser's own report of a refused request). */
  allowConsole: RegExp[];
  consoleErrors: string[];
};

export const test = base.extend<Fixtures, WorkerFixtures>({
  server: [
    async ({}, use) => {
      const server = await startFixtureServer({
        files: { 'model.safetensors': CHECKPOINT.file, 'config.json': configJson(gpt2Config()) },
      });
      await use(server);
      await server.close();
    },
    { scope: 'worker' },
  ],
  allowConsole: [[], { option: true }],
  consoleErrors: async ({}, use) => use([]),
  page: async ({ page, server, allowConsole, consoleErrors }, use) => {
    page.on('console', (m) => {
      if (m.type() === 'error' && !allowConsole.some((r) => r.test(m.text()))) consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    const context = page.context();
    // Nothing leaves the machine: anything not on 127.0.0.1 / localhost is refused…
    await context.route(/^(?!https?:\/\/(127\.0\.0\.1|localhost)[:/]|data:|blob:)/, (route) =>
      route.abort('blockedbyclient'),
    );
    // …except the Hugging Face checkpoint and its config.json, which the local range server answers.
    await forwardToServer(context, server, HF_URL, 'model.safetensors');
    await forwardToServer(context, server, HF_CONFIG_URL, 'config.json');
    await use(page);
    expect(consoleErrors, 'console errors and page errors').toEqual([]);
  },
});

export { expect };

/**
 * Answers requests for `url` (from the page and from its engine worker) with the local range
 * server's file `name`, Range headers and all, as the Hugging Face CDN would.
 */
export async function forwardToServer(
  context: BrowserContext,
  server: FixtureServer,
  url: string,
  name: string,
): Promise<void> {
  await context.route(url, async (route) => {
    // The page may cancel a read (a newer source picked) or close while it is in flight.
    try {
      await route.fulfill({ response: await route.fetch({ url: server.url(name) }) });
    } catch {
      await route.abort().catch(() => undefined);
    }
  });
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync('test-results/screenshots', { recursive: true });
  // Cards far from the viewport are not rendered (content-visibility: auto), except for print.
  await page.emulateMedia({ media: 'print' });
  await page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true });
  await page.emulateMedia({ media: 'screen' });
}

/** Opens the page (or `path`) and waits until the default weights and sample have been normalized. */
export async function ready(
  page: Page,
  path = './',
  weights: RegExp | string = /GPT-2 small|Synthetic/,
): Promise<void> {
  await page.goto(path);
  await expect(page.locator('#runtime-status')).toContainText('kernel');
  await expect(page.locator('#weights-summary')).toContainText(weights);
  // "Loading GPT-2 small…" names the weights too: until they have arrived, the notice and buttons
  // that loading shows move what is below them, and a click there can land on something else.
  await expect(page.locator('#weights-summary')).not.toContainText('Loading');
  await expect(page.locator('#out-summary')).toContainText('Output');
}

/**
 * Scrolls a card into view and waits until it is live: the lab once its code has loaded, the
 * explainer (the page's <layernorm-explainer>) once it shows a token.
 */
export async function openCard(page: Page, id: 'explain' | 'check'): Promise<void> {
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  if (id === 'check') await expect(page.locator('#check')).toHaveAttribute('data-mounted', 'true');
  else await expect(page.locator('#ex-token')).toContainText('row');
}

/** The numbers in one row of the explainer's stage table (features 444–451 by default; in its shadow DOM). */
export async function stageRow(page: Page, name: string): Promise<number[]> {
  const cells = page.locator('.stage-table tbody tr', { has: page.locator(`th:text-is("${name}")`) }).locator('td');
  return (await cells.allTextContents()).map(Number);
}

/**
 * Brings the explainer's lower sections near the viewport (γ and β, the three forms), whose code
 * loads only then, by scrolling to its table just above them.
 */
export async function nearExtras(page: Page): Promise<void> {
  await page.locator('#stage-table').scrollIntoViewIfNeeded();
}

/**
 * Clicks the middle of a heatmap row, as a visitor does. The point is given relative to the
 * canvas, and Playwright finds the canvas where it is at the moment of the click (after it has
 * stood still for two frames), so content that arrives above it between measuring and clicking
 * cannot send the click to another row.
 */
export async function clickHeatmapRow(page: Page, row: number, rows: number): Promise<void> {
  const heatmap = page.locator('#heatmap');
  await heatmap.scrollIntoViewIfNeeded();
  const { width, height } = (await heatmap.boundingBox())!;
  await heatmap.click({ position: { x: width * 0.3, y: ((row + 0.5) / rows) * height } });
}
