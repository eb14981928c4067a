/**
 * How <layernorm-explainer> looks where authors put it: light, dark and auto (following the
 * reader's colour scheme), on a phone and a desktop, themed by CSS custom properties, as tall as
 * its content, axe-clean, never wider than its column; its value labels clear of the bars and of
 * each other; every value in a table up to 64 features.
 */
import AxeBuilder from '@axe-core/playwright';
import { test, expect, GAMMA, BETA } from '../fixtures';
import { explainerPage, hiddenStates, open } from './pages';
import { serveSite } from './site';
import type { Page } from '@playwright/test';

const site = serveSite();
const TOKENS = ['<|endoftext|>', 'Layer', 'Norm', ' keeps', ' the', ' residual', ' stream', ' in', ' check', '.'];

async function author(page: Page, attributes = '', style = ''): Promise<void> {
  await open(
    page,
    explainerPage(site, 'author', `<style>${style}</style><layernorm-explainer ${attributes}></layernorm-explainer>`),
  );
  await page.evaluate(
    ([x, tokens, gamma, beta]) => {
      const el = document.querySelector('layernorm-explainer')!;
      el.weights = { gamma: new Float32Array(gamma), beta: new Float32Array(beta), eps: 1e-5, architecture: 'gpt2' };
      el.activations = { data: new Float32Array(x), shape: [1, tokens.length, 768], tokens };
    },
    [hiddenStates(TOKENS.length, 768, 5), TOKENS, Array.from(GAMMA), Array.from(BETA)] as const,
  );
  await expect(page.locator('#ex-token')).toHaveText('row 0 “<|endoftext|>”');
  await page.evaluate(() => document.querySelector('layernorm-explainer')!.ready);
}

async function axe(page: Page, state: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(
    violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    `axe-core violations: ${state}`,
  ).toEqual([]);
}

const background = (page: Page) =>
  page.locator('layernorm-explainer').evaluate((el) => getComputedStyle(el).backgroundColor);

async function fits(page: Page, width: number, state: string): Promise<void> {
  const box = await page.evaluate(() => {
    const el = document.querySelector('layernorm-explainer')!;
    const r = el.getBoundingClientRect();
    const wide = [...el.shadowRoot!.querySelectorAll('*')]
      .filter((e) => e.getBoundingClientRect().right > r.right + 1 && !e.closest('.table-wrap, .eqs, .tokens'))
      .map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.getAttribute('class')}`);
    return {
      doc: document.documentElement.scrollWidth,
      el: r.width,
      wide: wide.slice(0, 5),
      inner: el.scrollHeight - el.clientHeight,
    };
  });
  expect(box.doc, `${state}: no sideways scroll`).toBeLessThanOrEqual(width);
  expect(box.wide, `${state}: nothing wider than the element`).toEqual([]);
  expect(box.inner, `${state}: as tall as its content`).toBe(0);
}

for (const [device, viewport] of [
  ['a phone', { width: 390, height: 844 }],
  ['a desktop', { width: 1280, height: 900 }],
] as const) {
  test.describe(`on ${device}`, () => {
    test.use({ viewport, ...(viewport.width < 500 ? { isMobile: true, hasTouch: true } : {}) });

    test('light, dark and auto: themed, axe-clean, within its column', async ({ page }) => {
      test.setTimeout(180_000);
      await author(page);
      expect(await background(page)).toBe('rgb(255, 255, 255)');
      await axe(page, `${device}, light`);
      await fits(page, viewport.width, `${device}, light`);
      await page.locator('layernorm-explainer').evaluate((el) => el.setAttribute('theme', 'dark'));
      expect(await background(page)).toBe('rgb(22, 26, 34)');
      await axe(page, `${device}, dark`);
      await page.locator('layernorm-explainer').evaluate((el) => el.setAttribute('theme', 'auto'));
      await page.emulateMedia({ colorScheme: 'light' });
      expect(await background(page)).toBe('rgb(255, 255, 255)');
      await page.emulateMedia({ colorScheme: 'dark' });
      expect(await background(page)).toBe('rgb(22, 26, 34)');
      await axe(page, `${device}, auto in a dark scheme`);
      // Every feature, and the table of a zoomed range.
      await page.locator('input[name="exview"][value="all"]').check();
      await expect(page.locator('#stages .chart').first()).toHaveAttribute('aria-label', /features 0 to 767/);
      await fits(page, viewport.width, `${device}, all features`);
      await axe(page, `${device}, all features`);
    });
  });
}

test('custom properties set its colours and font', async ({ page }) => {
  await author(
    page,
    '',
    'layernorm-explainer { --lnx-bg: rgb(250, 240, 230); --lnx-fg: rgb(20, 30, 40); --lnx-font: Georgia, serif; }',
  );
  expect(await background(page)).toBe('rgb(250, 240, 230)');
  const { color, font } = await page.locator('layernorm-explainer').evaluate((el) => {
    const s = getComputedStyle(el.shadowRoot!.querySelector('h2')!);
    return { color: s.color, font: s.fontFamily };
  });
  expect(color).toBe('rgb(20, 30, 40)');
  expect(font).toBe('Georgia, serif');
  await axe(page, 'custom colours');
});

/** Boxes of a stage chart's bars and value labels, in page pixels. */
async function chartBoxes(page: Page, stage: number): Promise<{ bars: DOMRect[]; labels: DOMRect[]; texts: string[] }> {
  return page
    .locator('#stages svg.chart')
    .nth(stage)
    .evaluate((svg) => ({
      bars: [...svg.querySelectorAll('rect.bar')].map((r) => r.getBoundingClientRect().toJSON()),
      labels: [...svg.querySelectorAll('text.value')].map((t) => t.getBoundingClientRect().toJSON()),
      texts: [...svg.querySelectorAll('text.value')].map((t) => t.textContent ?? ''),
    }));
}

const overlap = (a: DOMRect, b: DOMRect) =>
  a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;

for (const width of [390, 1280]) {
  test(`value labels sit clear of the bars and of each other (${width} px)`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    await author(page, 'start="444"');
    for (let stage = 0; stage < 5; stage++) {
      const { bars, labels, texts } = await chartBoxes(page, stage);
      expect(bars.length, `stage ${stage}: one bar per feature`).toBe(8);
      if (width > 500) expect(labels.length, `stage ${stage}: every value printed`).toBe(8);
      for (let i = 0; i < labels.length; i++) {
        for (const bar of bars)
          expect(overlap(labels[i]!, bar), `stage ${stage}: "${texts[i]}" over a bar`).toBe(false);
        for (let j = i + 1; j < labels.length; j++) {
          expect(overlap(labels[i]!, labels[j]!), `stage ${stage}: "${texts[i]}" over "${texts[j]}"`).toBe(false);
        }
      }
    }
  });
}

test('every value in a table for up to 64 features; zoom by typing a range or dragging across a chart', async ({
  page,
}) => {
  await author(page, 'view="all"');
  await expect(page.locator('.stage-table')).toHaveCount(0);
  await expect(page.locator('#stage-table')).toContainText('zoom in');
  await page.locator('#ex-zoom-from').fill('400');
  await page.locator('#ex-zoom-to').fill('459');
  await page.locator('#ex-zoom-to').press('Enter');
  await expect(page.locator('.stage-table thead th')).toHaveCount(61);
  await expect(page.locator('layernorm-explainer')).toHaveAttribute('zoom', '400-459');
  // Drag from feature ~410 to ~430 on the first chart.
  const chart = page.locator('#stages svg.chart').first();
  const box = (await chart.boundingBox())!;
  const left = 46;
  const slot = (box.width - left - 6) / 60;
  await page.mouse.move(box.x + left + slot * 10.5, box.y + 40);
  await page.mouse.down();
  await page.mouse.move(box.x + left + slot * 30.5, box.y + 40, { steps: 5 });
  await page.mouse.up();
  await expect(page.locator('layernorm-explainer')).toHaveAttribute('zoom', '410-430');
  await expect(page.locator('.stage-table thead th')).toHaveCount(22);
  await page.locator('#ex-zoom-reset').click();
  await expect(page.locator('#stages .chart').first()).toHaveAttribute('aria-label', /features 0 to 767/);
});
