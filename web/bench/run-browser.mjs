#!/usr/bin/env node
// Chromium runner for the LayerNorm benchmark: serves the repo root on 127.0.0.1 (ephemeral port),
// opens web/bench/page.html in headless Chromium (/usr/bin/chromium, or $CHROMIUM_PATH) and runs
// the same benchmark.mjs code there (after building the float32-statistics limit's .wasm, which the
// page fetches from /build/bench/).
//
//   node web/bench/run-browser.mjs [--quick] [--rounds N] [--json out.json]
import { createServer } from 'node:http';
import { createReadStream, existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import {
  parseArgs,
  benchOptions,
  repoRoot,
  cpuModel,
  loadLine,
  printResult,
  buildLine,
  buildWithKernels,
} from './cli.mjs';
import { buildF32Stats } from './f32stats-build.mjs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/common.mjs';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
};
// Only these parts of the repo are served.
const ALLOWED = [
  '/dist/',
  '/build/bench/',
  '/web/bench/',
  '/web/shared/',
  '/node_modules/onnxruntime-web/dist/',
  '/node_modules/wasm-feature-detect/',
  '/node_modules/@tensorflow/',
];

export function startServer(root = repoRoot) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const p = decodeURIComponent(url.pathname);
    const file = path.join(root, path.normalize(p));
    const ok = ALLOWED.some((a) => p.startsWith(a)) && file.startsWith(root + path.sep) && !p.includes('..');
    if (!ok || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'Cross-Origin-Resource-Policy': 'same-origin' });
      res.end('not found');
      return;
    }
    res.writeHead(200, {
      'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream',
      'Cache-Control': 'no-store',
      // Cross-origin isolation gives the page fine-grained performance.now().
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cross-Origin-Resource-Policy': 'same-origin',
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function runBrowser(args, log = (s) => console.log(s)) {
  buildF32Stats(log);
  const server = await startServer();
  const port = server.address().port;
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // --expose-gc lets the page run a full GC between samples (outside the timed region).
    args: [...CHROMIUM_ARGS, '--js-flags=--expose-gc'],
  });
  try {
    const page = await browser.newPage();
    page.on('console', (m) => log(`  [page] ${m.text()}`));
    page.on('pageerror', (e) => log(`  [page error] ${e.message}`));
    const build = buildLine();
    await page.goto(`http://127.0.0.1:${port}/web/bench/page.html`);
    await page.waitForFunction(() => window.benchReady === true, null, { timeout: 30000 });
    const opts = benchOptions(args);
    const info = await page.evaluate(() => ({ cores: navigator.hardwareConcurrency, coi: self.crossOriginIsolated }));
    const machine = `CPU: ${cpuModel()}, ${info.cores} cores; Chromium ${browser.version()} (headless${info.coi ? ', cross-origin isolated' : ''}); ${loadLine()}`;
    log(machine);
    log(`${args.quick ? 'quick' : 'full'} mode: ${opts.shapes.length} shapes, ${opts.rounds} rounds`);
    const res = await page.evaluate((o) => window.runBench(o), opts);
    res.env = 'chromium';
    res.machine = machine;
    res.mode = args.quick ? 'quick' : 'full';
    res.rounds = opts.rounds;
    res.build = buildWithKernels(build, res.kernels);
    return res;
  } finally {
    await browser.close();
    server.close();
  }
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const args = parseArgs(process.argv.slice(2));
  const t0 = performance.now();
  const res = await runBrowser(args);
  printResult(res, 'Chromium (headless)');
  if (args.json) {
    writeFileSync(args.json, JSON.stringify(res, null, 2));
    console.log(`wrote ${args.json}`);
  }
  console.log(`total ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
