import { defineConfig, type Plugin } from 'vite';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { bundledOnnx } from './plugins/onnx-bundle.ts';
import { parts } from './plugins/parts.ts';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
/** The page imports the package by name, exactly as an app would; these point the names at the built package. */
const pkgEntry = resolve(repo, 'dist/index.js');

/**
 * Content-Security-Policy for the production page (the dev server needs inline styles for HMR,
 * so the tag is only added to the build).
 * - script-src 'wasm-unsafe-eval': compiling the WebAssembly module.
 * - connect-src https:: the Hugging Face checkpoint (huggingface.co and its CDN redirects) and
 *   custom weight URLs; http://localhost / 127.0.0.1 for locally served checkpoints.
 * - worker-src 'self': the large-input worker is a same-origin module script.
 * Everything else is same-origin only; no inline scripts or styles.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "connect-src 'self' https: http://localhost:* http://127.0.0.1:*",
  "img-src 'self' data: blob:",
  "style-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

function csp(): Plugin {
  return {
    name: 'page-csp',
    apply: 'build',
    transformIndexHtml: {
      order: 'pre',
      handler: () => [
        { tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: CSP }, injectTo: 'head-prepend' },
      ],
    },
  };
}

export default defineConfig({
  root: here,
  base: './',
  plugins: [csp(), parts(), bundledOnnx(resolve(repo, 'dist'))],
  resolve: {
    alias: [
      { find: /^layernorm-wasm$/, replacement: pkgEntry },
      { find: /^layernorm-wasm\/io$/, replacement: resolve(repo, 'dist/io/index.js') },
      { find: /^layernorm-wasm\/explainer$/, replacement: resolve(repo, 'dist/explainer/index.js') },
      { find: /^layernorm-wasm\/explainer\/compute$/, replacement: resolve(repo, 'dist/explainer/compute.js') },
    ],
  },
  // Keep the package out of dependency pre-bundling so `new URL('./wasm/…', import.meta.url)`
  // still points next to the package's own files. uPlot and onnxruntime-web (the text card's run)
  // are pre-bundled up front, so the dev server never reloads the page to optimize them on first use.
  optimizeDeps: { exclude: ['layernorm-wasm'], include: ['uplot', 'onnxruntime-web/wasm'] },
  assetsInclude: ['**/*.wasm'],
  server: {
    host: '127.0.0.1',
    fs: { allow: [repo] },
  },
  preview: { host: '127.0.0.1' },
  // The worker's text chunk takes layernorm-wasm/onnx and compareOutputs bundled whole
  // (plugins/onnx-bundle.ts; the dev server serves them the same way).
  worker: { format: 'es', plugins: () => [bundledOnnx(resolve(repo, 'dist'))] },
  build: {
    outDir: resolve(repo, 'build/page'),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    sourcemap: false,
    // No modulepreload polyfill (~650 bytes of the 250 KB first load): the hint only fetches
    // chunks early; a browser without it (Firefox before 115, Safari before 17) still loads each
    // chunk when its import asks for it.
    modulePreload: { polyfill: false },
  },
});
