// A static file server for the matrix apps, on 127.0.0.1 with an ephemeral port (/favicon.ico
// answers 204, as on a site that has one). Options make it behave like the hosts the apps meet: a
// Content-Security-Policy header, CORS (a CDN), a path prefix (a CDN's /npm/<name>@<version>/),
// and an SPA fallback that answers missing files with index.html (as many dev servers and static
// hosts do).
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.wasm': 'application/wasm',
};

/**
 * Serves `dir`. Returns { origin, url(path), close() }.
 * options: csp (header value), cors (boolean), prefix ('/npm/x@1/'), spaFallback (boolean)
 */
export function serveStatic(dir, { csp, cors = false, prefix = '/', spaFallback = false } = {}) {
  const server = createServer((req, res) => {
    const headers = { 'Cache-Control': 'no-store' };
    if (csp) headers['Content-Security-Policy'] = csp;
    if (cors) headers['Access-Control-Allow-Origin'] = '*';
    const path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    // As a site with an icon answers: the browser's own request for it is no failed request.
    if (path === '/favicon.ico') {
      res.writeHead(204, headers);
      res.end();
      return;
    }
    let file = null;
    if (path.startsWith(prefix)) {
      const relative = normalize(path.slice(prefix.length)).replace(/^(\.\.(\/|\\|$))+/, '');
      const candidate = join(dir, relative);
      if (candidate.startsWith(dir + sep) || candidate === dir) {
        const index = join(candidate, 'index.html');
        if (existsSync(candidate) && statSync(candidate).isFile()) file = candidate;
        else if (existsSync(index)) file = index;
      }
    }
    if (!file && spaFallback && existsSync(join(dir, 'index.html'))) file = join(dir, 'index.html');
    if (!file) {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const origin = `http://127.0.0.1:${server.address().port}`;
      resolve({
        origin,
        url: (path = '') => `${origin}${prefix}${path}`,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    }),
  );
}
