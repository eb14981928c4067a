/**
 * Parts of the built package bundled whole for the engine worker's text chunk, each with its own
 * copies of the small modules it shares with the main entry (argument rules, error types, the
 * float32 spacing): `layernorm-wasm/onnx`, and `bundled:layernorm-wasm`, the package's functions
 * that chunk calls (compareOutputs, normReference, NORMS, explainRow). Imported file by file
 * instead, those shared modules would leave the worker's first chunk for a chunk of their own, and
 * the page's first load would grow by the imports and exports between them.
 */
import { build } from 'esbuild';
import { join } from 'node:path';
import type { Plugin } from 'vite';

const PREFIX = '\0page-bundled:';

export function bundledOnnx(dist: string): Plugin {
  const entries: Record<string, string> = {
    'layernorm-wasm/onnx': `export * from ${JSON.stringify(join(dist, 'onnx/index.js'))};`,
    'bundled:layernorm-wasm': [
      `export { compareOutputs } from ${JSON.stringify(join(dist, 'numerics/metrics.js'))};`,
      `export { normReference } from ${JSON.stringify(join(dist, 'numerics/reference.js'))};`,
      `export { NORMS } from ${JSON.stringify(join(dist, 'norms.js'))};`,
      `export { explainRow } from ${JSON.stringify(join(dist, 'explainer/compute.js'))};`,
    ].join('\n'),
  };
  return {
    name: 'page-onnx-bundle',
    enforce: 'pre',
    resolveId: (source) => (source in entries ? PREFIX + source : null),
    async load(id) {
      if (!id.startsWith(PREFIX)) return null;
      const out = await build({
        stdin: { contents: entries[id.slice(PREFIX.length)]!, resolveDir: dist, loader: 'js' },
        bundle: true,
        format: 'esm',
        platform: 'browser',
        target: 'es2022',
        write: false,
        logLevel: 'silent',
      });
      return out.outputFiles[0]!.text;
    },
  };
}
