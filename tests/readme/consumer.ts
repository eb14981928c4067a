/**
 * A folder laid out as a user's project: `node_modules/layernorm-wasm` is this package (a link to
 * the repository, so its `exports` and the built dist/ are what resolves), with the `npx` bin the
 * package declares, and the runtime a user brings to `layernorm-wasm/onnx`, onnxruntime-web (the
 * repository's devDependency, linked). Examples are written into it and run from it.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './blocks.js';

export interface Consumer {
  dir: string;
  /** Writes `name` in the folder and returns its path. */
  write(name: string, content: string | Uint8Array): string;
  remove(): void;
}

export function makeConsumer(): Consumer {
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) {
    throw new Error('dist/ is not built: run `npm run build` (npm test builds it first)');
  }
  const dir = mkdtempSync(join(tmpdir(), 'layernorm-wasm-readme-'));
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules', 'layernorm-wasm'), 'dir');
  symlinkSync(join(ROOT, 'node_modules', 'onnxruntime-web'), join(dir, 'node_modules', 'onnxruntime-web'), 'dir');
  symlinkSync('../layernorm-wasm/dist/cli/index.js', join(dir, 'node_modules', '.bin', 'layernorm-wasm'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'readme-examples', private: true, type: 'module' }));
  return {
    dir,
    write(name, content) {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
