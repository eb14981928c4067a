/**
 * The rows of web/docs/errors.md that name a browser, run in Chromium against servers on
 * 127.0.0.1, each compared with the message its row quotes: what a browser's network stack does
 * (CORS refusals, headers it hides from other origins, bodies it decompresses) and what a page
 * gives (its URL to resolve against, its Content-Security-Policy). Requests use the package's
 * default fetch.
 */
import { createServer } from 'node:net';
import type { Page } from '@playwright/test';
import { buildSafetensors, f32Bytes, gpt2Safetensors, toBytes } from '../io/fixtures';
import { errorsRow } from './errors-doc';
import { expect, openExamplesPage, test } from './chromium';

/* eslint-disable @typescript-eslint/no-explicit-any -- page-side code sees the package untyped */
type Outcome =
  | { ok: true; d: number; eps: number | null; source: string; gamma: number[] }
  | {
      ok: false;
      name: string;
      message: string;
      status: number | undefined;
    };

/** loadLayerNormWeights(url) on `page`, the I/O module imported from the examples' site. */
function load(page: Page, ioUrl: string, url: string): Promise<Outcome> {
  return page.evaluate(
    async ([ioUrl, url]) => {
      const io: any = await import(ioUrl);
      try {
        const w = await io.loadLayerNormWeights(url);
        return { ok: true, d: w.d, eps: w.eps, source: w.source, gamma: Array.from(w.gamma.subarray(0, 4)) };
      } catch (e: any) {
        return { ok: false, name: e.name, message: e.message, status: e.status };
      }
    },
    [ioUrl, url] as const,
  ) as Promise<Outcome>;
}

const small = gpt2Safetensors(7);
const SMALL = toBytes(
  buildSafetensors([
    { name: 'ln_f.bias', dtype: 'F32', shape: [768], data: f32Bytes(small.beta) },
    { name: 'ln_f.weight', dtype: 'F32', shape: [768], data: f32Bytes(small.gamma) },
  ]).file,
);
const GAMMA4 = Array.from(small.gamma.subarray(0, 4));

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

test.describe('errors.md rows that name a browser, in Chromium', () => {
  test.use({ allowConsole: [/Access-Control-Allow-Origin|CORS policy|net::ERR_|Failed to load resource/] });

  test('74: a closed port, and a server that refuses other origins: a FetchError naming the URL, no status', async ({
    page,
    site,
    hub,
  }) => {
    hub.addFile('m.safetensors', SMALL);
    await openExamplesPage(page, site);
    const io = `${site.origin}/node_modules/layernorm-wasm/dist/io/index.js`;
    const [row] = errorsRow('74').messages;
    for (const url of [`http://127.0.0.1:${await closedPort()}/m.safetensors`, hub.url('m.safetensors', 'no-cors')]) {
      expect(await load(page, io, url)).toEqual({
        ok: false,
        name: 'FetchError',
        message: row!.replace('<url>', url),
        status: undefined,
      });
    }
  });

  test('75: a 206 whose Content-Range another origin may not read', async ({ page, site, hub }) => {
    hub.addFile('m.safetensors', SMALL);
    await openExamplesPage(page, site);
    const url = hub.url('m.safetensors', 'hidden-range');
    const [row] = errorsRow('75').messages;
    expect(await load(page, `${site.origin}/node_modules/layernorm-wasm/dist/io/index.js`, url)).toEqual({
      ok: false,
      name: 'FetchError',
      message: row!.replace('https://example.org/m.safetensors', url),
      status: 206,
    });
  });

  test('76b: Chromium asks for ranges uncompressed and refuses a gzip answer itself: the FetchError of 74', async ({
    page,
    site,
    hub,
  }) => {
    hub.addFile('m.safetensors', SMALL);
    await openExamplesPage(page, site);
    const url = hub.url('m.safetensors', 'gzip');
    const [row] = errorsRow('74').messages;
    expect(await load(page, `${site.origin}/node_modules/layernorm-wasm/dist/io/index.js`, url)).toEqual({
      ok: false,
      name: 'FetchError',
      message: row!.replace('<url>', url),
      status: undefined,
    });
    expect(errorsRow('76b').text).toContain('in Chromium');
  });

  test('77: other schemes are refused; a bare path in a page resolves against the page’s URL', async ({
    page,
    site,
  }) => {
    site.addFile('/models/model.safetensors', SMALL, 'application/octet-stream');
    site.addFile('/models/index.html', '<!doctype html><title>models</title>');
    await page.goto(`${site.origin}/models/index.html`);
    const io = '/node_modules/layernorm-wasm/dist/io/index.js';
    const [fileMessage] = errorsRow('77').messages;
    expect(await load(page, io, 'file:///etc/passwd')).toEqual({
      ok: false,
      name: 'TypeError',
      message: fileMessage,
      status: undefined,
    });
    expect(await load(page, io, 'model.safetensors')).toEqual({
      ok: true,
      d: 768,
      eps: null,
      source: `${site.origin}/models/model.safetensors`,
      gamma: GAMMA4,
    });
  });

  test('57d: a Hub file whose config.json is missing or unreachable loads with ε unknown', async ({
    page,
    site,
    hub,
  }) => {
    const repo = 'https://huggingface.co/someone/gpt2-copy/resolve/main';
    hub.addFile('someone/gpt2-copy/resolve/main/model.safetensors', SMALL);
    await openExamplesPage(page, site);
    const io = `${site.origin}/node_modules/layernorm-wasm/dist/io/index.js`;
    const loaded = { ok: true, d: 768, eps: null, source: `${repo}/model.safetensors`, gamma: GAMMA4 };
    // Missing: the Hub answers 404.
    expect(await load(page, io, `${repo}/model.safetensors`)).toEqual(loaded);
    // Unreachable: the request fails without an answer, as a CORS refusal does (row 74 shows
    // Chromium's refusal reaching the package as the same failed fetch).
    await page.route(`${repo}/config.json`, (route) => route.abort('internetdisconnected'));
    expect(await load(page, io, `${repo}/model.safetensors`)).toEqual(loaded);
    expect(errorsRow('57d').error).toBe('— (not an error)');
  });
});

test.describe('errors.md row 91 in Chromium', () => {
  test.use({ allowConsole: [/Content Security Policy|WebAssembly/] });

  test('91: a page whose CSP lacks wasm-unsafe-eval: init() says to add it', async ({ page, site }) => {
    site.addFile(
      '/csp/index.html',
      `<!doctype html><meta http-equiv="Content-Security-Policy" content="script-src 'self'"><script type="module" src="/csp/app.mjs"></script>`,
    );
    site.addFile(
      '/csp/app.mjs',
      `import { init } from '/node_modules/layernorm-wasm/dist/index.js';
init().then(
  () => (window.outcome = { ok: true }),
  (e) => (window.outcome = { ok: false, name: e.name, message: e.message }),
);`,
    );
    await page.goto(`${site.origin}/csp/index.html`);
    const outcome = await (await page.waitForFunction(() => (window as any).outcome)).jsonValue();
    const [row] = errorsRow('91').messages;
    expect(outcome.name).toBe('WasmLoadError');
    expect(outcome.message.startsWith(row!.replace(/ \(…\)$/, ' ('))).toBe(true);
  });
});
