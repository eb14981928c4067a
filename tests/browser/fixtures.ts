/**
 * Shared test setup: every external request is blocked except the Hugging Face checkpoint, which is
 * answered from a GPT-2-layout file generated here, with range reads. Console errors and uncaught
 * page errors fail the test.
 */
import { test as base, expect, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { gpt2Safetensors, rangeServer } from './helpers';

export const HF_URL = 'https://huggingface.co/openai-community/gpt2/resolve/main/model.safetensors';
/** The Hub's config.json beside the checkpoint, which the loader reads for ε (GPT-2's: 1e-5). */
export const HF_CONFIG_URL = 'https://huggingface.co/openai-community/gpt2/resolve/main/config.json';
const checkpoint = gpt2Safetensors();

type Fixtures = {
  hf: ReturnType<typeof rangeServer> & { size: number };
  /** Console messages matching these are tolerated (e.g. the browser's own report of a blocked request). */
  allowConsole: RegExp[];
  consoleErrors: string[];
};

export const test = base.extend<Fixtures>({
  allowConsole: [[], { option: true }],
  consoleErrors: async ({}, use) => use([]),
  hf: async ({}, use) => {
    const server = rangeServer(checkpoint);
    await use({ ...server, size: checkpoint.length });
  },
  page: async ({ page, hf, allowConsole, consoleErrors }, use) => {
    page.on('console', (m) => {
      if (m.type() === 'error' && !allowConsole.some((r) => r.test(m.text()))) consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    // Nothing leaves the machine: anything not on 127.0.0.1 / localhost is refused…
    await page
      .context()
      .route(/^(?!https?:\/\/(127\.0\.0\.1|localhost)[:/]|data:|blob:)/, (route) => route.abort('blockedbyclient'));
    // …except the checkpoint URL and its config.json, which the fixtures answer.
    await page.route(HF_URL, hf.handler);
    await page.route(HF_CONFIG_URL, (route) =>
      route.fulfill({
        json: { model_type: 'gpt2', layer_norm_epsilon: 1e-5, n_embd: 768 },
        headers: { 'access-control-allow-origin': '*' },
      }),
    );
    await use(page);
    expect(consoleErrors, 'console errors and page errors').toEqual([]);
  },
});

export { expect };

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync('test-results/screenshots', { recursive: true });
  await page.screenshot({ path: `test-results/screenshots/${name}.png`, fullPage: true });
}

/** Opens the page and waits until the default weights and sample have been normalized. */
export async function ready(page: Page): Promise<void> {
  await page.goto('./');
  await expect(page.locator('#runtime-status')).toContainText('kernel');
  await expect(page.locator('#weights-summary')).toContainText(/GPT-2 small|Synthetic/);
  await expect(page.locator('#out-summary')).toContainText('Output');
}
