#!/usr/bin/env node
// Builds the package into dist/: the two .wasm builds (SIMD128 and scalar) with Emscripten
// through CMake, then the TypeScript façade with tsc. Runs setup first.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { configureOnce, root, runner } from './common.mjs';

const run = runner();

if (!process.argv.includes('--no-setup')) run(process.execPath, ['web/scripts/setup.mjs']);

// emcc's JS optimizer needs Debian's acorn, found through NODE_PATH.
const emEnv = { NODE_PATH: [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(':') };
const wasmBuild = join(root, 'build', 'wasm');
configureOnce(run, 'build/wasm', ['-DCMAKE_BUILD_TYPE=Release'], { wrapper: 'emcmake', env: emEnv });
run('cmake', ['--build', 'build/wasm', '-j2'], emEnv);

const wasmOut = join(root, 'dist', 'wasm');
mkdirSync(wasmOut, { recursive: true });
for (const variant of ['simd', 'scalar']) {
  for (const ext of ['js', 'wasm']) {
    copyFileSync(join(wasmBuild, `layernorm-${variant}.${ext}`), join(wasmOut, `layernorm-${variant}.${ext}`));
  }
}
// Hand-written declarations for the Emscripten glue, so dist/*.d.ts resolve for users.
const srcWasm = join(root, 'web', 'src', 'wasm');
for (const f of readdirSync(srcWasm).filter((f) => f.endsWith('.d.ts')))
  copyFileSync(join(srcWasm, f), join(wasmOut, f));

run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json']);
if (existsSync(join(root, 'dist', 'cli.js'))) chmodSync(join(root, 'dist', 'cli.js'), 0o755);
console.log('Built dist/ (wasm: simd + scalar)');
