/**
 * `layernorm-wasm/onnx` as one module for the engine worker's text chunk: the built package's
 * files bundled by esbuild, with their own copies of the small modules they share with the main
 * entry (argument rules, error types). Imported file by file instead, those shared modules would
 * leave the worker's first chunk for a chunk of their own, and the page's first load would grow
 * by the imports and exports between them.
 */
import { build } from 'esbuild';
import type { Plugin } from 'vite';

const ID = '\0layernorm-wasm-onnx-bundled';

export function bundledOnnx(entry: string): Plugin {
  return {
    name: 'page-onnx-bundle',
    enforce: 'pre',
    resolveId: (source) => (source === 'layernorm-wasm/onnx' ? ID : null),
    async load(id) {
      if (id !== ID) return null;
      const out = await build({
        entryPoints: [entry],
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
