/**
 * Apps built the way an author builds them: a folder with an index.html and sources, the package
 * in its node_modules (this repository, as built in dist/, through its package.json exports) and
 * React beside it, built by Vite with no configuration beyond a base path.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from './site';

/** The fenced blocks of README.md that a `<!-- example: spec <spec> -->` comment gives to `spec`, in order. */
export function readmeBlocks(spec: string): { lang: string; code: string }[] {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const out: { lang: string; code: string }[] = [];
  const re = /<!-- example: spec (\S+) -->\s*\n```(\w*)\n([\s\S]*?)\n```/g;
  for (const m of text.matchAll(re)) if (m[1] === spec) out.push({ lang: m[2]!, code: `${m[3]!}\n` });
  return out;
}

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
