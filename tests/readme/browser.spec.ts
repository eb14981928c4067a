/**
 * Every README block annotated `browser` runs as written in Chromium as a module script of a page
 * on 127.0.0.1 whose import map maps the package, and every block annotated `worker` inside a
 * module Worker, each after the one prelude (tests/readme/prelude.mjs), in a fresh page. A block
 * fails by throwing or rejecting, or by a console error or page error.
 */
import { blocksRunIn } from './blocks';
import { exampleId, expect, openExamplesPage, test } from './chromium';

const onPage = blocksRunIn('browser');
const inWorker = blocksRunIn('worker');

test.beforeEach(({ site }) => site.add([...onPage, ...inWorker]));

test('there are examples to run in Chromium, on the page and in a Worker', () => {
  expect(onPage.length).toBeGreaterThanOrEqual(5);
  expect(inWorker.length).toBeGreaterThanOrEqual(3);
});

for (const block of onPage) {
  test(`${block.name} runs as written on the page`, async ({ page, site }) => {
    await openExamplesPage(page, site);
    const outcome = await page.evaluate(
      async (url) => {
        try {
          await (window as unknown as { runExample(url: string): Promise<void> }).runExample(url);
          return 'ran';
        } catch (error) {
          return String((error as Error)?.stack ?? error);
        }
      },
      `/readme/example/${exampleId(block)}.mjs`,
    );
    expect(outcome, `${block.name}\n${block.code}`).toBe('ran');
  });
}

for (const block of inWorker) {
  test(`${block.name} runs as written in a module Worker`, async ({ page, site }) => {
    await openExamplesPage(page, site);
    const outcome = await page.evaluate(
      (url) =>
        new Promise<string>((resolve) => {
          const worker = new Worker('/readme/w/runner.mjs', { type: 'module' });
          worker.onmessage = ({ data }) => {
            resolve(data.ok ? 'ran' : data.error);
            worker.terminate();
          };
          worker.onerror = (e) => resolve(`the worker failed: ${e.message}`);
          worker.postMessage({ url });
        }),
      `/readme/w/example/${exampleId(block)}.mjs`,
    );
    expect(outcome, `${block.name}\n${block.code}`).toBe('ran');
  });
}
