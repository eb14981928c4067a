/**
 * Apps built the way an author builds them: a folder with an index.html and sources, the package
 * in its node_modules (this repository, as built in dist/, through its package.json exports) and
 * React beside it, built by Vite with no configuration beyond a base path.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from './site';

/** Builds `files` with Vite under `base` (e.g. '/app/'); returns the output folder and a cleanup. */
export async function viteApp(files: Record<string, string>, base: string): Promise<{ out: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'layernorm-explainer-app-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'layernorm-wasm'), 'dir');
  for (const dep of ['react', 'react-dom', 'scheduler']) {
    symlinkSync(join(ROOT, 'node_modules', dep), join(dir, 'node_modules', dep), 'dir');
  }
  for (const [path, contents] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), contents);
  }
  const { build } = await import('vite');
  await build({ root: dir, base, configFile: false, logLevel: 'warn', build: { outDir: 'dist' } });
  return { out: join(dir, 'dist'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
