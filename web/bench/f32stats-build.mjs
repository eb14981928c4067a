// Node only: builds cpp/bench/f32_stats_layernorm.cc into build/bench/f32-stats.wasm for the
// `limit:f32stats` candidate (f32stats.mjs), when the source or this script is newer than the
// module. Not part of dist/: the runners call it before they run.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from './cli.mjs';

const SOURCE = path.join(repoRoot, 'cpp/bench/f32_stats_layernorm.cc');
export const F32STATS_WASM = path.join(repoRoot, 'build/bench/f32-stats.wasm');

/** Builds the module if it is out of date; returns its path. Throws when em++ is missing. */
export function buildF32Stats(log = (s) => console.log(s)) {
  const mtime = (f) => statSync(f).mtimeMs;
  const newest = Math.max(mtime(SOURCE), mtime(fileURLToPath(import.meta.url)));
  if (existsSync(F32STATS_WASM) && mtime(F32STATS_WASM) >= newest) return F32STATS_WASM;
  mkdirSync(path.dirname(F32STATS_WASM), { recursive: true });
  // -sSTANDALONE_WASM with no libc calls: a module with no imports, so the page and Node instantiate
  // it directly. Growth stays allowed: each shape's arrays are placed past the initial memory.
  const args = ['-O3', '-msimd128', '--no-entry', '-sSTANDALONE_WASM', '-sALLOW_MEMORY_GROWTH'];
  args.push('-sEXPORTED_FUNCTIONS=_layernorm_f32_stats', '-o', F32STATS_WASM, SOURCE);
  log(`building ${path.relative(repoRoot, F32STATS_WASM)} (the limit:f32stats kernel)`);
  try {
    // emcc's JS optimizer needs Debian's acorn, found through NODE_PATH (as in web/scripts/build.mjs).
    const NODE_PATH = [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(':');
    execFileSync('em++', args, { cwd: repoRoot, stdio: 'inherit', env: { ...process.env, NODE_PATH } });
  } catch (e) {
    if (e.code === 'ENOENT')
      throw new Error(
        'the limit:f32stats candidate is built with em++, which is not on PATH: apt-get install -y emscripten',
      );
    throw new Error(`building ${path.relative(repoRoot, F32STATS_WASM)} failed (em++ exited with ${e.status})`);
  }
  return F32STATS_WASM;
}
