/**
 * web/page/README.md's embedding, as written: an article holding the README's <iframe> (its
 * https://example.org/layernorm/ answered by the page's production build) and the README's
 * script that fits the frame to the height the embedded page posts.
 */
import { specBlocks } from './blocks';
import { expect, test } from './chromium';

const [frame, script] = specBlocks('tests/readme/embed.spec.ts');
const EXAMPLE = 'https://example.org/layernorm/';

test(`${frame!.name} and ${script!.name} run as written: the explainer of row 3 on a linear scale, the frame fitted to its height`, async ({
  page,
  site,
  baseURL,
}) => {
  await page.context().route(`${EXAMPLE}**`, async (route) => {
    const url = new URL(route.request().url());
    await route.fulfill({
      response: await route.fetch({ url: new URL(url.pathname.slice(11) + url.search, baseURL).href }),
    });
  });
  site.addFile('/article.html', `<!doctype html>\n<h1>An article</h1>\n${frame!.code}\n${script!.code}\n`, 'text/html');
  await page.goto(`${site.origin}/article.html`);
  const embedded = page.frameLocator('iframe');
  await expect(embedded.locator('#ex-token')).toHaveText('row 3 (b 0, t 3)', { timeout: 30_000 });
  await expect(embedded.locator('input[name="exscale"][value="linear"]')).toBeChecked();
  await expect(embedded.locator('#weights-card')).toBeHidden();
  // The README's script sets the frame's height to what the embedded page reports: its document's.
  const inner = page.frames().find((f) => f.url().startsWith(EXAMPLE))!;
  const heights = async () => ({
    frame: await page.evaluate(() => document.querySelector('iframe')!.style.height),
    content: `${await inner.evaluate(() => document.documentElement.scrollHeight)}px`,
  });
  await expect.poll(async () => ((h) => h.frame === h.content)(await heights())).toBe(true);
  expect(Number.parseFloat((await heights()).frame)).toBeGreaterThan(1000);
});
