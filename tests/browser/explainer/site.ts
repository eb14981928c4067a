/**
 * A static site for the element's tests: the built package under /dist/, the repository's
 * node_modules under /node_modules/ (as an unbundled page imports them), and pages a test writes,
 * served from 127.0.0.1. One server per spec file: `const site = serveSite()` at the top.
 */
import { createServer, type Server } from 'node:http';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import type { AddressInfo } from 'node:net';
import { test } from '../fixtures';

export const ROOT = join(import.meta.dirname, '..', '..', '..');
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.npy': 'application/octet-stream',
};

export interface Site {
  origin(): string;
  /** Serves `body` at `path` (e.g. '/app/index.html') from now on; returns its URL. */
  put(path: string, body: string | Uint8Array): string;
  /** Serves the files of `dir` under `prefix` (e.g. a built app). */
  mount(prefix: string, dir: string): void;
}

/** The import map of a plain page: the package's entries, mapped to the built package. */
export const IMPORT_MAP = `<script type="importmap">
  {
    "imports": {
      "layernorm-wasm": "/dist/index.js",
      "layernorm-wasm/io": "/dist/io/index.js",
      "layernorm-wasm/inline": "/dist/inline.js",
      "layernorm-wasm/explainer": "/dist/explainer/index.js"
    }
  }
</script>`;

export function serveSite(): Site {
  let server: Server;
  let origin = '';
  const pages = new Map<string, string | Uint8Array>();
  const mounts: [string, string][] = [
    ['/dist/', join(ROOT, 'dist')],
    ['/node_modules/', join(ROOT, 'node_modules')],
  ];
  test.beforeAll(async () => {
    server = createServer((req, res) => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      const page = pages.get(path);
      const type = TYPES[extname(path)] ?? 'application/octet-stream';
      if (page !== undefined) {
        res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store' }).end(page);
        return;
      }
      const mount = mounts.find(([p]) => path.startsWith(p));
      const file = mount ? join(mount[1], normalize(path.slice(mount[0].length))) : '';
      if (!mount || path.includes('..') || !existsSync(file) || !statSync(file).isFile()) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store' });
      createReadStream(file).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  test.afterAll(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return {
    origin: () => origin,
    put(path, body) {
      pages.set(path, body);
      return `${origin}${path}`;
    },
    mount(prefix, dir) {
      mounts.unshift([prefix, dir]);
    },
  };
}
