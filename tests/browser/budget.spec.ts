/**
 * The page stays light: the first load is at most 250 KB of JavaScript, CSS and WebAssembly (before
 * compression, fonts aside), measured from the network log; the scalar build is fetched only for
 * the comparison; and large inputs are read, normalized, checked and explained in the engine worker:
 * with the engine stopped mid-step by the debugger, the step is not done and the page still
 * answers input. How long the main thread's own tasks take is measured with a PerformanceObserver
 * and reported beside the test, not asserted (`npm run bench:page` prints it against its target).
 */
import { test, expect, ready, openCard } from './fixtures';
import { engineDebugger } from './engine-pause';
import { longTasksSince, pageNow, recordLongTasks } from './long-tasks';
import { clipboardRows, largeSteps, writeLargeNpy } from './large-steps';
import type { Page, Response } from '@playwright/test';
import { rmSync } from 'node:fs';

const BUDGET = 250_000;

interface CodeLog {
  files: Map<string, number>;
  total(): number;
  /** Every body seen so far, once it has arrived; a body that could not be read fails the test. */
  received(): Promise<Map<string, number>>;
}

/** Body bytes (decoded, i.e. before any compression) of every JS, CSS and wasm file the page fetched. */
function recordCode(page: Page): CodeLog {
  const files = new Map<string, number>();
  const unread: string[] = [];
  const pending: Promise<void>[] = [];
  page.on('response', (r: Response) => {
    const url = new URL(r.url());
    if (!/\.(m?js|css|wasm)$/.test(url.pathname)) return;
    const name = url.pathname.split('/').pop()!;
    pending.push(
      r.body().then(
        (b) => void files.set(name, b.length),
        (e: Error) => void unread.push(`${name}: ${e.message}`),
      ),
    );
  });
  return {
    files,
    total: () => [...files.values()].reduce((a, b) => a + b, 0),
    received: async () => {
      await Promise.all(pending);
      expect(unread, 'every fetched file is counted').toEqual([]);
      return files;
    },
  };
}

async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
}

const list = (files: Map<string, number>) => [...files].map(([f, n]) => `${f} ${n}`).join(', ');

/** The measured bytes, beside the test in the report. */
function report(what: string, code: CodeLog): void {
  test.info().annotations.push({ type: what, description: `${code.total()} bytes: ${list(code.files)}` });
}

test('the first load of the page is at most 250 KB of JS + CSS + wasm, without the scalar build', async ({ page }) => {
  const code = recordCode(page);
  await ready(page);
  await settled(page);
  await code.received();
  const names = [...code.files.keys()];
  expect(
    names.some((f) => /^layernorm-simd-.*\.wasm$/.test(f)),
    list(code.files),
  ).toBe(true);
  expect(
    names.filter((f) => f.includes('scalar')),
    'the scalar build loads only when compared',
  ).toEqual([]);
  report('first load', code);
  expect(code.total(), `first load: ${list(code.files)}`).toBeLessThanOrEqual(BUDGET);
  // Asking for the comparison fetches it.
  await openCard(page, 'check');
  await page.locator('#scalar-btn').click();
  await expect(page.locator('#scalar-result')).toContainText('Bit-identical');
  await expect
    .poll(async () => [...(await code.received()).keys()].some((f) => /^layernorm-scalar-.*\.wasm$/.test(f)), {
      message: `the scalar build is fetched for the comparison: ${list(code.files)}`,
    })
    .toBe(true);
});

test('the first load of the embedded explainer is at most 250 KB of JS + CSS + wasm', async ({ page }) => {
  const code = recordCode(page);
  await page.goto('./?embed=explain');
  await expect(page.locator('#ex-token')).toContainText('row 0');
  await settled(page);
  await code.received();
  report('embed first load', code);
  expect(code.total(), `embed first load: ${list(code.files)}`).toBeLessThanOrEqual(BUDGET);
});

/** Input the main thread answers by itself: the heatmap's zoom, which redraws its axes. */
async function zoomAnswers(page: Page): Promise<void> {
  await page.locator('#heat-zoom').selectOption('4');
  await expect(page.locator('#heat-axes')).not.toHaveText('rows (tokens) ↓ · features 0 … 767 →');
  await page.locator('#heat-zoom').selectOption('1');
  await expect(page.locator('#heat-axes')).toHaveText('rows (tokens) ↓ · features 0 … 767 →');
}

test.describe('large inputs are worked on in the engine, never on the main thread', () => {
  test.use({ permissions: ['clipboard-read', 'clipboard-write'] });
  test.afterEach(({}, info) => rmSync(info.outputPath('data'), { recursive: true, force: true }));

  test('while the engine stands still mid-step, the step is not done and the page answers input', async ({
    page,
  }, info) => {
    test.setTimeout(180_000);
    const path = writeLargeNpy(info.outputPath('data'));
    await recordLongTasks(page);
    await ready(page);
    await openCard(page, 'explain');
    await openCard(page, 'check');
    await settled(page);
    await clipboardRows(page);
    const engine = await engineDebugger(page);
    for (const step of largeSteps(page, path)) {
      await test.step(step.name, async () => {
        const from = await pageNow(page);
        await engine.pause();
        await step.start();
        await engine.stopped();
        await step.notYet();
        await zoomAnswers(page);
        await engine.resume();
        await step.done();
        // Reported, not asserted: how long the main thread's own tasks took (npm run bench:page).
        const { count, longest } = await longTasksSince(page, from);
        info.annotations.push({
          type: 'main-thread long tasks',
          description: `${step.name}: ${count} over 50 ms, the longest ${longest.toFixed(0)} ms`,
        });
      });
    }
  });
});
