/**
 * The page's large-input steps (a 50 MB .npy read, checked against itself, normalized again, a row
 * explained, 1.8 MB of text pasted), shared by the test that they run in the engine worker
 * (budget.spec.ts) and the benchmark of the main thread's tasks (web/bench/page-tasks.bench.ts).
 */
import { expect, type Page } from '@playwright/test';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { D } from './fixtures';
import { npyHeader } from '../kit/checkpoints/index.mjs';
import { testActivations } from './helpers';

export const LARGE_ROWS = 16_384; // 50 MB of float32 at d = 768

export interface Step {
  name: string;
  /** Starts the step (without waiting for its result). */
  start(): Promise<void>;
  /** Holds while the step's result is not on the page yet. */
  notYet(): Promise<void>;
  /** Waits for the step's result. */
  done(): Promise<void>;
}

/** Writes the [16384, 768] float32 .npy the steps read into dir, and returns its path. */
export function writeLargeNpy(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'x.npy');
  const fd = openSync(path, 'w');
  writeSync(fd, npyHeader([LARGE_ROWS, D]));
  const block = testActivations(1024, D, 3);
  for (let r = 0; r < LARGE_ROWS; r += 1024) writeSync(fd, new Uint8Array(block.buffer));
  closeSync(fd);
  return path;
}

/** Puts 250 rows of text on the clipboard (handing it over is the harness's work, not the page's). */
export async function clipboardRows(page: Page): Promise<void> {
  const pasted = testActivations(250, D, 8);
  const text = Array.from({ length: 250 }, (_, r) =>
    Array.from(pasted.subarray(r * D, r * D + D), (v) => v.toFixed(5)).join(' '),
  ).join('\n');
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
}

/** The steps, in order (each builds on the one before), on a page with the explainer and the lab open. */
export function largeSteps(page: Page, path: string): Step[] {
  return [
    {
      name: 'a 50 MB .npy',
      start: () => page.locator('#npy-file').setInputFiles(path),
      notYet: () => expect(page.locator('#ref-result')).not.toContainText('12,582,912 finite values'),
      done: async () => {
        await expect(page.locator('#large-progress-label')).toContainText('Done', { timeout: 90_000 });
        await expect(page.locator('#ref-result')).toContainText('12,582,912 finite values');
      },
    },
    {
      name: 'the same file as an expected output, compared on every row',
      start: () => page.locator('#expected-file').setInputFiles(path),
      notYet: () => expect(page.locator('#expected-result')).not.toContainText('FAIL x.npy'),
      done: () => expect(page.locator('#expected-result')).toContainText('FAIL x.npy', { timeout: 90_000 }),
    },
    {
      name: 'ε changed: every row again',
      start: () => page.locator('#eps').fill('0.01'),
      notYet: () => expect(page.locator('#out-summary')).not.toContainText('ε = 0.01,'),
      done: async () => {
        await expect(page.locator('#out-summary')).toContainText('ε = 0.01,', { timeout: 90_000 });
        await expect(page.locator('#expected-result .verdict')).toHaveCount(1);
        await expect(page.locator('#expected-result')).not.toContainText('updating', { timeout: 90_000 });
      },
    },
    {
      name: 'the explainer on the last row, all features',
      start: async () => {
        await page.locator('#ex-row').fill(String(LARGE_ROWS - 1));
        await page.locator('input[name="exview"][value="all"]').check();
      },
      notYet: () => expect(page.locator('#ex-token')).not.toHaveText(`row ${LARGE_ROWS - 1}`),
      done: async () => {
        await expect(page.locator('#ex-token')).toHaveText(`row ${LARGE_ROWS - 1}`);
        await expect(page.locator('#stages .chart').first()).toHaveAttribute('aria-label', /features 0 to 767/);
      },
    },
    {
      name: '250 rows (1.8 MB) of text pasted from the clipboard',
      start: async () => {
        await page.locator('#paste').focus();
        await page.keyboard.press('ControlOrMeta+V');
        await expect(page.locator('#paste-note')).toContainText('(250 lines)');
        await page.locator('#paste-btn').click();
      },
      notYet: () => expect(page.locator('#out-summary')).not.toContainText('Output [250, 768]'),
      done: () => expect(page.locator('#out-summary')).toContainText('Output [250, 768]', { timeout: 60_000 }),
    },
  ];
}
