/**
 * The README examples' Chromium: a site on 127.0.0.1 that serves the package as a user's
 * `node_modules/layernorm-wasm` (dist/ and package.json), a page whose import map maps the
 * package's entry points (from its `exports`), the prelude, and each example as a module. The
 * Hub's URLs are answered by a local range server holding the files of tests/readme/fixtures.ts;
 * every other request that would leave the machine is refused. Console errors and page errors
 * fail a test.
 *
 * A module Worker cannot see the page's import map (Chromium has none for workers), so what a
 * worker imports is served with the package's names resolved to the same URLs the map gives,
 * as a bundler would resolve them; the example's code is otherwise as written.
 */
import { test as base, expect, type Page } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server';
import { ROOT, type Block } from './blocks';
import { encodeArrays, hubFiles, preludeArrays } from './fixtures';

const PACKAGE = '/node_modules/layernorm-wasm/';
const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

/** The import map: each entry point in package.json's `exports` that is JavaScript, at its URL under PACKAGE. */
export function packageImports(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const imports: Record<string, string> = {};
  for (const [key, value] of Object.entries(pkg.exports as Record<string, unknown>)) {
    const target = typeof value === 'string' ? value : (value as { default?: string }).default;
    if (target?.endsWith('.js')) imports[key.replace(/^\./, pkg.name)] = `${PACKAGE}${target.replace(/^\.\//, '')}`;
  }
  return imports;
}

/** `code` with its imports of the package's names resolved to the import map's URLs. */
export function resolvePackageImports(code: string): string {
  const imports = packageImports();
  return code.replace(
    /(\bfrom\s*|\bimport\s*\(?\s*)(['"])(layernorm-wasm(?:\/[\w./-]+)?)\2/g,
    (all, before: string, quote: string, name: string) =>
      imports[name] ? `${before}${quote}${imports[name]}${quote}` : all,
  );
}

export const exampleId = (b: Block) => `${b.readme.replace(/\W/g, '-')}-${b.line}`;

const PAGE = () => `<!doctype html>
<html>
  <head>
    <meta charset="utf-8" />
    <title>README examples</title>
    <script type="importmap">${JSON.stringify({ imports: packageImports() })}</script>
    <script type="module">
      import { installPrelude } from '/readme/prelude.mjs';
      window.runExample = async (url) => {
        await installPrelude(await (await fetch('/readme/prelude-arrays.bin')).arrayBuffer());
        await import(url);
      };
      window.readmeReady = true;
    </script>
  </head>
  <body></body>
</html>`;

const WORKER_RUNNER = `import { installPrelude } from '/readme/w/prelude.mjs';
self.onmessage = async ({ data }) => {
  try {
    await installPrelude(await (await fetch('/readme/prelude-arrays.bin')).arrayBuffer());
    await import(data.url);
    self.postMessage({ ok: true });
  } catch (error) {
    self.postMessage({ ok: false, error: String(error && error.stack ? error.stack : error) });
  }
};
`;

export interface Site {
  origin: string;
  /** Serves `blocks` as examples: /readme/example/<id>.mjs as written, /readme/w/example/<id>.mjs for workers. */
  add(blocks: Block[]): void;
  /** Serves extra files, e.g. a whole HTML page: path → content (bytes with Range support). */
  addFile(path: string, content: string | Uint8Array, type?: string): void;
}

function startSite(): Promise<{ site: Site; server: Server }> {
  const files = new Map<string, { body: string | Uint8Array; type: string }>();
  const put = (path: string, body: string | Uint8Array, type = TYPES[extname(path)] ?? 'text/plain') =>
    files.set(path, { body, type });
  put('/readme/page.html', PAGE());
  put('/readme/prelude.mjs', readFileSync(join(import.meta.dirname, 'prelude.mjs'), 'utf8'));
  put('/readme/w/prelude.mjs', resolvePackageImports(readFileSync(join(import.meta.dirname, 'prelude.mjs'), 'utf8')));
  put('/readme/w/runner.mjs', WORKER_RUNNER);
  put('/readme/prelude-arrays.bin', encodeArrays(preludeArrays()), 'application/octet-stream');
  // What esbuild or Rollup emits for the entry `layernorm-wasm/worker/script` (README, "In your project").
  put('/readme/example/layernorm-worker.js', `import '${PACKAGE}dist/worker/script.js';\n`);

  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = files.get(path);
    // Any origin may import the package from here (a page of another origin in errors.spec.ts).
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (file) {
      // Bytes answer a single range, as a static host does (errors.spec.ts reads a checkpoint from here).
      const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
      if (range && file.body instanceof Uint8Array) {
        const [start, end] = [Number(range[1]), Math.min(Number(range[2]), file.body.length - 1)];
        res.writeHead(206, {
          'Content-Type': file.type,
          'Content-Range': `bytes ${start}-${end}/${file.body.length}`,
        });
        res.end(file.body.subarray(start, end + 1));
        return;
      }
      res.writeHead(200, { 'Content-Type': file.type }).end(file.body);
      return;
    }
    // The installed package: dist/ and package.json only, as the tarball has them.
    const rest = path.startsWith(PACKAGE) ? normalize(path.slice(PACKAGE.length)) : '';
    const onDisk = join(ROOT, rest);
    if (
      (rest.startsWith('dist/') || rest === 'package.json') &&
      !rest.includes('..') &&
      existsSync(onDisk) &&
      statSync(onDisk).isFile()
    ) {
      res.writeHead(200, { 'Content-Type': TYPES[extname(onDisk)] ?? 'application/octet-stream' });
      res.end(readFileSync(onDisk));
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      resolve({
        server,
        site: {
          origin,
          add(blocks) {
            for (const b of blocks) {
              put(`/readme/example/${exampleId(b)}.mjs`, b.code);
              put(`/readme/w/example/${exampleId(b)}.mjs`, resolvePackageImports(b.code));
            }
          },
          addFile: put,
        },
      });
    }),
  );
}

type Fixtures = { consoleErrors: string[]; allowConsole: RegExp[] };
type WorkerFixtures = { hub: FixtureServer; site: Site };

export const test = base.extend<Fixtures, WorkerFixtures>({
  hub: [
    async ({}, use) => {
      const hub = await startFixtureServer({ files: hubFiles() });
      await use(hub);
      await hub.close();
    },
    { scope: 'worker' },
  ],
  site: [
    async ({}, use) => {
      const { site, server } = await startSite();
      await use(site);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    { scope: 'worker' },
  ],
  allowConsole: [[], { option: true }],
  consoleErrors: async ({}, use) => use([]),
  page: async ({ page, hub, allowConsole, consoleErrors }, use) => {
    page.on('console', (m) => {
      if (m.type() === 'error' && !allowConsole.some((r) => r.test(m.text()))) consoleErrors.push(m.text());
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    const context = page.context();
    // Nothing leaves the machine…
    await context.route(/^(?!https?:\/\/(127\.0\.0\.1|localhost)[:/]|data:|blob:)/, (route) =>
      route.abort('blockedbyclient'),
    );
    // …and the Hub is the local range server (registered later, so tried first).
    await context.route(/^https:\/\/(huggingface\.co|hf\.co)\//, async (route) => {
      try {
        const url = new URL(route.request().url());
        await route.fulfill({ response: await route.fetch({ url: `${hub.origin}/range${url.pathname}` }) });
      } catch {
        await route.abort().catch(() => undefined);
      }
    });
    await use(page);
    expect(consoleErrors, 'console errors and page errors').toEqual([]);
  },
});

export { expect };

/** Opens the examples' page. */
export async function openExamplesPage(page: Page, site: Site): Promise<void> {
  await page.goto(`${site.origin}/readme/page.html`);
  await page.waitForFunction(() => (window as unknown as { readmeReady?: boolean }).readmeReady === true);
}
