/**
 * The plain ESM test page of tests/browser/worker/ (an import map mapping only the package's
 * entries), served with dist/ from 127.0.0.1, cross-origin isolated so that the page may use
 * SharedArrayBuffer. One server per spec file: `const site = serveWorkerPage()` at the top.
 */
import { createServer, type Server } from 'node:http';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import { test } from './fixtures';

const root = join(import.meta.dirname, '..', '..');
const SERVED: Record<string, string> = { '/dist/': join(root, 'dist'), '/test/': join(import.meta.dirname, 'worker') };
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };

export function serveWorkerPage(): { origin(): string; open(page: Page): Promise<void> } {
  let server: Server;
  let origin = '';
  test.beforeAll(async () => {
    server = createServer((req, res) => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      const prefix = Object.keys(SERVED).find((p) => path.startsWith(p));
      const file = prefix ? join(SERVED[prefix]!, normalize(path.slice(prefix.length))) : '';
      if (!prefix || path.includes('..') || !existsSync(file) || !statSync(file).isFile()) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(200, {
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        'Cross-Origin-Opener-Policy': 'same-origin',
        'Cross-Origin-Embedder-Policy': 'require-corp',
      });
      createReadStream(file).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  test.afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    origin: () => origin,
    async open(page) {
      await page.goto(`${origin}/test/index.html`);
      await page.waitForFunction(() => (window as unknown as { lnwReady?: boolean }).lnwReady === true);
    },
  };
}
