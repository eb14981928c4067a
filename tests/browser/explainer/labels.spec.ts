/**
 * Several elements on one page: a `label` attribute (or the host's `aria-label`) names each one's
 * landmarks, so that axe-core finds them unique, and no ARIA reference points at nothing (a row
 * out of range has no option to be active). `sections` keeps only the parts it names.
 */
import AxeBuilder from '@axe-core/playwright';
import { test, expect, GAMMA, BETA } from '../fixtures';
import { explainerPage, hiddenStates, open } from './pages';
import { serveSite } from './site';
import type { Page } from '@playwright/test';

const site = serveSite();

async function axe(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.map(
    (v) =>
      `${v.id}: ${v.nodes.map((n) => `${n.target.join(' ')} ${JSON.stringify(n.any.map((c) => c.data))}`).join(', ')}`,
  );
}

/** Gives every element on the page the same weights and activations, and waits for them. */
async function fill(page: Page): Promise<void> {
  await page.evaluate(
    async ([x, gamma, beta]) => {
      for (const el of document.querySelectorAll('layernorm-explainer')) {
        el.weights = { gamma: new Float32Array(gamma), beta: new Float32Array(beta) };
        el.activations = { data: new Float32Array(x), shape: [3, 768], tokens: ['a', 'b', 'c'] };
        await el.ready;
      }
    },
    [hiddenStates(3), Array.from(GAMMA), Array.from(BETA)] as const,
  );
}

test('two labelled elements on a page: unique landmarks, axe-clean, also with a row out of range', async ({ page }) => {
  await open(
    page,
    explainerPage(
      site,
      'two',
      '<layernorm-explainer label="GPT-2, first token"></layernorm-explainer>' +
        '<layernorm-explainer aria-label="GPT-2, last token" row="2"></layernorm-explainer>',
    ),
  );
  await fill(page);
  const first = page.locator('layernorm-explainer').nth(0);
  const second = page.locator('layernorm-explainer').nth(1);
  await expect(first.getByRole('region', { name: 'GPT-2, first token', exact: true })).toBeVisible();
  await expect(second.getByRole('region', { name: 'GPT-2, last token', exact: true })).toBeVisible();
  await expect(first.getByRole('region', { name: 'GPT-2, first token: Every stage of this token' })).toBeVisible();
  await first.locator('.table-wrap').scrollIntoViewIfNeeded();
  await second.locator('#weights-slot').scrollIntoViewIfNeeded();
  await expect(second.locator('#gb-callouts')).toContainText('largest gain');
  await first.locator('#weights-slot').scrollIntoViewIfNeeded();
  await expect(first.locator('#gb-callouts')).toContainText('largest gain');
  expect(await axe(page)).toEqual([]);
  // A row that does not exist: said, and no active option that is not there.
  await second.evaluate((el: HTMLElement & { row: number }) => (el.row = 9));
  await expect(second.locator('#ex-status')).toContainText('Row 9 does not exist');
  await expect(second.getByRole('listbox')).not.toHaveAttribute('aria-activedescendant');
  expect(await axe(page)).toEqual([]);
});

test('sections="tokens stages" keeps the token list and the charts, and loads nothing for γ/β', async ({ page }) => {
  await open(
    page,
    explainerPage(site, 'compact', '<layernorm-explainer sections="tokens stages"></layernorm-explainer>'),
  );
  const fetched: string[] = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  await fill(page);
  const el = page.locator('layernorm-explainer');
  await expect(el.locator('#stages .chart').first()).toBeVisible();
  await expect(el.getByRole('listbox')).toBeVisible();
  for (const hidden of [
    '#title',
    '#ex-intro',
    '#equation',
    '#ex-stats',
    '#ex-insight',
    '#stage-table',
    '#weights-slot',
  ])
    await expect(el.locator(hidden)).toBeHidden();
  const height = await el.evaluate((e) => e.getBoundingClientRect().height);
  expect(
    fetched.filter((p) => p.includes('extras-view')),
    'the γ/β code is not loaded',
  ).toEqual([]);
  await page.evaluate(() => document.querySelector('layernorm-explainer')!.removeAttribute('sections'));
  await expect(el.locator('#ex-intro')).toBeVisible();
  const full = await el.evaluate((e) => e.getBoundingClientRect().height);
  test.info().annotations.push({ type: 'height', description: `${height} px with sections, ${full} px without` });
  expect(height).toBeLessThan(full * 0.7);
});
