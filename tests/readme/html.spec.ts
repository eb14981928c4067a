/**
 * The README's plain-ESM page (an import map and a module script), served as written as a page of
 * a site that has the package in node_modules/layernorm-wasm, on 127.0.0.1, in Chromium: the one
 * mapped name loads the runtime, whose .wasm comes from beside index.js.
 */
import { specBlocks } from './blocks';
import { expect, test } from './chromium';

const [block] = specBlocks('tests/readme/html.spec.ts');

test(`${block!.name} runs as written: the mapped name loads the runtime and its .wasm from beside index.js`, async ({
  page,
  site,
}) => {
  site.addFile('/index.html', block!.code, 'text/html');
  const requests: string[] = [];
  page.on('requestfinished', (r) => requests.push(new URL(r.url()).pathname));
  const wasm = page.waitForResponse((r) => r.url().endsWith('.wasm'));
  await page.goto(`${site.origin}/index.html`);
  expect([(await wasm).status(), new URL((await wasm).url()).pathname]).toEqual([
    200,
    '/node_modules/layernorm-wasm/dist/wasm/layernorm-simd.wasm',
  ]);
  // init() keeps one module per backend: this resolves with the runtime the page's script made.
  const backend = await page.evaluate(async () => {
    const { init } = await import('layernorm-wasm' as string);
    return (await init()).backend;
  });
  expect(backend).toBe('simd');
  expect(requests.filter((p) => !p.startsWith('/node_modules/layernorm-wasm/dist/'))).toEqual(['/index.html']);
});
