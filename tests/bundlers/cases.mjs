// The setups the package must work in out of the box, one entry each. Every case is a small app
// built from the packed tarball (installed into its own folder) with no bundler configuration
// beyond what any app has, then loaded in Chromium (or run by Node), and checked by run.mjs.
//
// A case is:
//   name         shown in the report
//   kind         'browser' (default) or 'node'
//   files        { path: contents } added to the app; src/ always has the shared app/*.js files,
//                and src/init-options.js (the options given to init) defaults to {}
//   start(app)   builds if needed and serves: returns the page URL (browser cases)
//   run(app)     runs the app and returns its parsed JSON report (node cases)
//   wasmFrom     'file': the .wasm arrives as a .wasm response; 'embedded': from the base64 copy in
//                the package's JS (the .wasm beside the JS is not there)
//   wasmFetches  { simd, scalar }: how often each build's .wasm is fetched over the whole run
//                (first load and the scalar check), e.g. once each when the app fetches them itself
//                and the package must fetch nothing more
//   csp          true: the page is served with STRICT_CSP and must not be allowed to eval
//   expectError  a RegExp the init() error must match instead of a result
//   allowConsole RegExps of browser console errors that are expected (anything else fails)
//   noFailedRequests  true: no request may fail or answer 400 or above, over the whole run
//   kind 'explainer'  the page shows <layernorm-explainer> (app/explainer-entry.js); the runner
//                compares its stages with Node's output instead of the init() check
//
// `app` gives: dir (the app folder), serve(subdir, options) (tests/bundlers/serve.mjs options),
// node(args, env) (runs Node in the app folder and returns stdout), and write(path, contents).
import { nodeResolve } from '@rollup/plugin-node-resolve';
import * as esbuild from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { rollup } from 'rollup';
import { build as viteBuild, createServer as viteServer } from 'vite';
import webpack from 'webpack';

/** The strictest policy that still allows WebAssembly: no eval, scripts only from the origin. */
export const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

/** A page loading one script; `importMap` maps bare names for unbundled pages. */
export function page({ script, module = true, importMap }) {
  const map = importMap ? `\n    <script type="importmap">${JSON.stringify({ imports: importMap })}</script>` : '';
  return `<!doctype html>
<html>
  <head>
    <meta charset="utf-8" />
    <title>layernorm-wasm app</title>${map}
    <script ${module ? 'type="module" ' : ''}src="${script}"></script>
  </head>
  <body></body>
</html>
`;
}

const initOptions = (source) => ({ 'src/init-options.js': `export const initOptions = ${source};\n` });
/** The app takes init from layernorm-wasm/inline instead of the package's main entry. */
const inlineEntry = { 'src/lnw.js': "export { init } from 'layernorm-wasm/inline';\n" };
/** Chromium's message for the expected 404 of the .wasm beside a bundle that did not copy it. */
const MISSING_WASM =
  /Failed to load resource: the server responded with a status of 404 \(Not Found\) \(\S+\/layernorm-(simd|scalar)\.wasm\)$/;
const REFUSED_EVAL = /Refused to evaluate a string as JavaScript/;

async function viteApp(app, extra = {}) {
  await viteBuild({ root: app.dir, configFile: false, logLevel: 'warn', ...extra });
  return join(app.dir, 'dist');
}

function webpackApp(app, entry = './src/window-entry.js') {
  return new Promise((resolve, reject) => {
    // What a webpack.config.js holds at least (its output.path is resolved against __dirname).
    const config = {
      mode: 'production',
      context: app.dir,
      entry,
      output: { path: join(app.dir, 'dist') },
    };
    webpack(config, (error, stats) => {
      if (error || stats.hasErrors()) reject(error ?? new Error(stats.toString('errors-only')));
      else resolve(join(app.dir, 'dist'));
    });
  });
}

async function esbuildApp(app, extra = {}) {
  await esbuild.build({
    absWorkingDir: app.dir,
    entryPoints: ['src/window-entry.js'],
    bundle: true,
    format: 'esm',
    outdir: 'dist',
    logLevel: 'warning',
    ...extra,
  });
  return join(app.dir, 'dist');
}

/** Copies the package's .wasm files into `folder` (what a build step or a `cp` does). */
function copyWasm(app, folder) {
  mkdirSync(folder, { recursive: true });
  const wasmDir = join(app.dir, 'node_modules', 'layernorm-wasm', 'dist', 'wasm');
  for (const f of readdirSync(wasmDir).filter((f) => f.endsWith('.wasm')))
    copyFileSync(join(wasmDir, f), join(folder, f));
}

async function rollupApp(app, input = join(app.dir, 'src/window-entry.js')) {
  const bundle = await rollup({ input, plugins: [nodeResolve()] });
  await bundle.write({ dir: join(app.dir, 'dist'), format: 'es' });
  await bundle.close();
  return join(app.dir, 'dist');
}

async function viteDevServer(app) {
  const server = await viteServer({
    root: app.dir,
    configFile: false,
    logLevel: 'warn',
    server: { host: '127.0.0.1', port: await app.freePort(), strictPort: true },
  });
  await server.listen();
  app.onClose(() => server.close());
  return server.resolvedUrls.local[0];
}

/**
 * An unbundled page whose import map maps one entry of the package: to the installed package
 * (`local`), and to a CDN-like second origin serving the package's folder (`cdn`).
 */
function importMapCases(local, cdn, script, specifier, file) {
  return [
    {
      name: local,
      files: { 'index.html': page({ script, importMap: { [specifier]: `./node_modules/layernorm-wasm/${file}` } }) },
      start: async (app) => (await app.serve(app.dir)).url(),
      wasmFrom: 'file',
    },
    {
      name: cdn,
      async start(app) {
        const origin = await app.serve(join(app.dir, 'node_modules', 'layernorm-wasm'), {
          cors: true,
          prefix: '/npm/layernorm-wasm@0.1.0/',
        });
        app.write('index.html', page({ script, importMap: { [specifier]: origin.url(file) } }));
        return (await app.serve(app.dir)).url();
      },
      wasmFrom: 'file',
    },
  ];
}

const bundledPage = { 'dist/index.html': page({ script: './window-entry.js' }) };

export const cases = [
  {
    name: 'Vite build',
    files: { 'index.html': page({ script: '/src/window-entry.js' }) },
    start: async (app) => (await app.serve(await viteApp(app))).url(),
    wasmFrom: 'file',
  },
  {
    name: "Vite build, options.wasm from 'layernorm-wasm/wasm/simd?url'",
    files: {
      'index.html': page({ script: '/src/window-entry.js' }),
      'src/init-options.js': [
        "import simd from 'layernorm-wasm/wasm/simd?url';",
        "import scalar from 'layernorm-wasm/wasm/scalar?url';",
        'export const initOptions = { wasm: { simd, scalar } };',
        '',
      ].join('\n'),
    },
    start: async (app) => (await app.serve(await viteApp(app))).url(),
    wasmFrom: 'file',
  },
  {
    // The sources the app fetches and compiles itself: the SIMD file as a Response (read by the
    // package), the scalar one as a WebAssembly.Module (compiled by the page, used as is).
    name: 'Vite build, options.wasm a Response and a compiled WebAssembly.Module',
    files: {
      'index.html': page({ script: '/src/window-entry.js' }),
      'src/init-options.js': [
        "import simdUrl from 'layernorm-wasm/wasm/simd?url';",
        "import scalarUrl from 'layernorm-wasm/wasm/scalar?url';",
        'export const initOptions = {',
        '  wasm: { simd: await fetch(simdUrl), scalar: await WebAssembly.compileStreaming(fetch(scalarUrl)) },',
        '};',
        '',
      ].join('\n'),
    },
    start: async (app) => (await app.serve(await viteApp(app))).url(),
    wasmFrom: 'file',
    wasmFetches: { simd: 1, scalar: 1 },
  },
  {
    name: 'Vite dev server',
    files: { 'index.html': page({ script: '/src/window-entry.js' }) },
    start: viteDevServer,
    wasmFrom: 'file',
  },
  {
    name: 'webpack 5',
    files: { 'dist/index.html': page({ script: './main.js', module: false }) },
    start: async (app) => (await app.serve(await webpackApp(app))).url(),
    wasmFrom: 'file',
  },
  {
    name: 'esbuild (ESM), host answering 404',
    files: bundledPage,
    start: async (app) => (await app.serve(await esbuildApp(app))).url(),
    wasmFrom: 'embedded',
    allowConsole: [MISSING_WASM],
  },
  {
    name: 'esbuild (ESM), host with an SPA fallback',
    files: bundledPage,
    start: async (app) => (await app.serve(await esbuildApp(app), { spaFallback: true })).url(),
    wasmFrom: 'embedded',
  },
  {
    name: 'esbuild (ESM, --splitting), .wasm copied to <outdir>/wasm/',
    files: bundledPage,
    async start(app) {
      const out = await esbuildApp(app, { splitting: true });
      copyWasm(app, join(out, 'wasm'));
      return (await app.serve(out)).url();
    },
    wasmFrom: 'file',
  },
  {
    name: 'esbuild (ESM), .wasm copied elsewhere + options.wasm',
    files: { ...bundledPage, ...initOptions("{ wasm: '/static/layernorm/' }") },
    async start(app) {
      const out = await esbuildApp(app);
      copyWasm(app, join(out, 'static', 'layernorm'));
      return (await app.serve(out)).url();
    },
    wasmFrom: 'file',
  },
  {
    name: 'Rollup + node-resolve',
    files: bundledPage,
    start: async (app) => (await app.serve(await rollupApp(app))).url(),
    wasmFrom: 'embedded',
    allowConsole: [MISSING_WASM],
  },
  {
    name: 'esbuild (ESM), layernorm-wasm/inline',
    files: { ...bundledPage, ...inlineEntry },
    start: async (app) => (await app.serve(await esbuildApp(app))).url(),
    wasmFrom: 'embedded',
    noFailedRequests: true,
  },
  {
    name: 'Rollup + node-resolve, layernorm-wasm/inline',
    files: { ...bundledPage, ...inlineEntry },
    start: async (app) => (await app.serve(await rollupApp(app))).url(),
    wasmFrom: 'embedded',
    noFailedRequests: true,
  },
  ...importMapCases(
    'import map (layernorm-wasm only)',
    'import map to a CDN-like origin',
    './src/window-entry.js',
    'layernorm-wasm',
    'dist/index.js',
  ),
  {
    name: 'module Worker (Vite build)',
    files: { 'index.html': page({ script: '/src/worker-entry.js' }) },
    start: async (app) => (await app.serve(await viteApp(app))).url(),
    wasmFrom: 'file',
  },
  {
    name: "module Worker (Vite build, worker.format 'es')",
    files: { 'index.html': page({ script: '/src/worker-entry.js' }) },
    start: async (app) => (await app.serve(await viteApp(app, { worker: { format: 'es' } }))).url(),
    wasmFrom: 'file',
  },
  {
    name: 'strict CSP header (Vite build)',
    files: { 'index.html': page({ script: '/src/window-entry.js' }) },
    start: async (app) => (await app.serve(await viteApp(app), { csp: STRICT_CSP })).url(),
    wasmFrom: 'file',
    csp: true,
    allowConsole: [REFUSED_EVAL],
  },
  {
    name: 'strict CSP header (esbuild, embedded copy)',
    files: bundledPage,
    start: async (app) => (await app.serve(await esbuildApp(app), { csp: STRICT_CSP, spaFallback: true })).url(),
    wasmFrom: 'embedded',
    csp: true,
    allowConsole: [REFUSED_EVAL],
  },
  {
    name: "CSP without 'wasm-unsafe-eval' (clear error)",
    files: { 'index.html': page({ script: '/src/window-entry.js' }) },
    start: async (app) => (await app.serve(await viteApp(app), { csp: "default-src 'self'; script-src 'self'" })).url(),
    expectError:
      /^WasmLoadError: init: this page's Content-Security-Policy does not allow compiling WebAssembly: add 'wasm-unsafe-eval' to script-src/,
    csp: true,
    allowConsole: [REFUSED_EVAL, /Refused to compile or instantiate WebAssembly/],
  },
  {
    name: 'Node ESM',
    kind: 'node',
    run: async (app) => JSON.parse(await app.node(['src/node-entry.js'])),
  },
  {
    name: 'Node ESM without process.getBuiltinModule (as Node < 20.16)',
    kind: 'node',
    run: async (app) => JSON.parse(await app.node(['src/node-entry.js'], { LNW_HIDE_GET_BUILTIN_MODULE: '1' })),
    expectNoGetBuiltinModule: true,
  },
];

// layernorm-wasm/worker: the same check, with the runtime in the package's own worker
// (app/package-worker*.js). Where the bundler does not emit the worker script, the app bundles
// `layernorm-wasm/worker/script` as an entry of its own and passes it as the `worker` option.
const workerPage = { 'index.html': page({ script: '/src/package-worker-entry.js' }) };
const bundledWorkerPage = { 'dist/index.html': page({ script: './package-worker-entry.js' }) };
const ownWorkerEntry = initOptions(
  "{ worker: () => new Worker(new URL('./layernorm-worker.js', import.meta.url), { type: 'module' }) }",
);
/** The worker gets both builds' bytes from layernorm-wasm/inline: it fetches no .wasm either. */
const inlineWorkerOptions = {
  'src/init-options.js': [
    "import { embeddedWasm } from 'layernorm-wasm/inline';",
    'export const initOptions = {',
    "  wasm: { simd: await embeddedWasm('simd'), scalar: await embeddedWasm('scalar') },",
    "  worker: () => new Worker(new URL('./layernorm-worker.js', import.meta.url), { type: 'module' }),",
    '};',
    '',
  ].join('\n'),
};
/** Chromium's message for the 404 of a worker script that the bundler did not emit. */
const MISSING_WORKER_SCRIPT =
  /Failed to load resource: the server responded with a status of 404 \(Not Found\) \(\S+\/script\.js\)$/;

cases.push(
  {
    name: 'layernorm-wasm/worker (Vite build)',
    files: workerPage,
    start: async (app) => (await app.serve(await viteApp(app))).url(),
    wasmFrom: 'file',
  },
  {
    name: "layernorm-wasm/worker (Vite build, worker.format 'es')",
    files: workerPage,
    start: async (app) => (await app.serve(await viteApp(app, { worker: { format: 'es' } }))).url(),
    wasmFrom: 'file',
  },
  {
    name: 'layernorm-wasm/worker (Vite dev server)',
    files: workerPage,
    start: viteDevServer,
    wasmFrom: 'file',
  },
  {
    name: 'layernorm-wasm/worker (webpack 5)',
    files: { 'dist/index.html': page({ script: './main.js', module: false }) },
    start: async (app) => (await app.serve(await webpackApp(app, './src/package-worker-entry.js'))).url(),
    wasmFrom: 'file',
  },
  {
    name: 'layernorm-wasm/worker (esbuild, worker script as its own entry)',
    files: { ...bundledWorkerPage, ...ownWorkerEntry },
    start: async (app) => {
      const entryPoints = [
        'src/package-worker-entry.js',
        { in: 'layernorm-wasm/worker/script', out: 'layernorm-worker' },
      ];
      return (await app.serve(await esbuildApp(app, { entryPoints }))).url();
    },
    wasmFrom: 'embedded',
    allowConsole: [MISSING_WASM],
  },
  {
    name: 'layernorm-wasm/worker (esbuild without the worker option: clear error)',
    files: bundledWorkerPage,
    start: async (app) =>
      (await app.serve(await esbuildApp(app, { entryPoints: ['src/package-worker-entry.js'] }))).url(),
    expectError: /^WorkerError: initWorker: the worker stopped before it was ready: its script failed to load \(/,
    allowConsole: [MISSING_WORKER_SCRIPT],
  },
  {
    name: 'layernorm-wasm/worker (Rollup, worker script as its own entry)',
    files: { ...bundledWorkerPage, ...ownWorkerEntry },
    start: async (app) => {
      const input = {
        'package-worker-entry': join(app.dir, 'src/package-worker-entry.js'),
        'layernorm-worker': 'layernorm-wasm/worker/script',
      };
      // Run from the app's folder, as `rollup -c` there: a bare entry is resolved from it.
      const cwd = process.cwd();
      process.chdir(app.dir);
      try {
        return (await app.serve(await rollupApp(app, input))).url();
      } finally {
        process.chdir(cwd);
      }
    },
    wasmFrom: 'embedded',
    allowConsole: [MISSING_WASM],
  },
  ...importMapCases(
    'layernorm-wasm/worker (import map)',
    'layernorm-wasm/worker (import map to a CDN-like origin)',
    './src/package-worker-entry.js',
    'layernorm-wasm/worker',
    'dist/worker/index.js',
  ),
  {
    name: 'layernorm-wasm/worker (strict CSP header, Vite build)',
    files: workerPage,
    start: async (app) => (await app.serve(await viteApp(app), { csp: STRICT_CSP })).url(),
    wasmFrom: 'file',
    csp: true,
    allowConsole: [REFUSED_EVAL],
  },
  {
    name: 'layernorm-wasm/worker (esbuild, the .wasm from layernorm-wasm/inline)',
    files: { ...bundledWorkerPage, ...inlineWorkerOptions },
    start: async (app) => {
      const entryPoints = [
        'src/package-worker-entry.js',
        { in: 'layernorm-wasm/worker/script', out: 'layernorm-worker' },
      ];
      return (await app.serve(await esbuildApp(app, { entryPoints }))).url();
    },
    wasmFrom: 'embedded',
    noFailedRequests: true,
  },
  {
    name: 'layernorm-wasm/worker (Node, worker_threads)',
    kind: 'node',
    run: async (app) => JSON.parse(await app.node(['src/package-worker-node.js'])),
  },
);

// layernorm-wasm/explainer: <layernorm-explainer> on a page of its own (app/explainer-entry.js),
// its stages checked row by row against Node's output. esbuild and Rollup apps give it a runtime
// from layernorm-wasm/inline, so nothing is asked for that is not there.
const explainerPage = { 'index.html': page({ script: '/src/explainer-entry.js' }) };
const bundledExplainerPage = { 'dist/index.html': page({ script: './explainer-entry.js' }) };
const inlineRuntime = {
  'src/explainer-runtime.js': "import { init } from 'layernorm-wasm/inline';\nexport const runtime = init();\n",
};

cases.push(
  {
    name: 'layernorm-wasm/explainer (Vite build)',
    kind: 'explainer',
    files: explainerPage,
    start: async (app) => (await app.serve(await viteApp(app))).url(),
    wasmFrom: 'file',
    noFailedRequests: true,
  },
  {
    name: 'layernorm-wasm/explainer (esbuild, runtime from layernorm-wasm/inline)',
    kind: 'explainer',
    files: { ...bundledExplainerPage, ...inlineRuntime },
    start: async (app) => (await app.serve(await esbuildApp(app, { entryPoints: ['src/explainer-entry.js'] }))).url(),
    wasmFrom: 'embedded',
    noFailedRequests: true,
  },
  {
    name: 'layernorm-wasm/explainer (Rollup, runtime from layernorm-wasm/inline)',
    kind: 'explainer',
    files: { ...bundledExplainerPage, ...inlineRuntime },
    start: async (app) => (await app.serve(await rollupApp(app, join(app.dir, 'src/explainer-entry.js')))).url(),
    wasmFrom: 'embedded',
    noFailedRequests: true,
  },
  {
    name: 'layernorm-wasm/explainer (import map)',
    kind: 'explainer',
    files: {
      'index.html': page({
        script: './src/explainer-entry.js',
        importMap: { 'layernorm-wasm/explainer': './node_modules/layernorm-wasm/dist/explainer/index.js' },
      }),
    },
    start: async (app) => (await app.serve(app.dir)).url(),
    wasmFrom: 'file',
    noFailedRequests: true,
  },
);
