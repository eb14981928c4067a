#!/usr/bin/env node
// Installs what the build and the tests need and is missing: Debian packages (as root, or says
// exactly what to run when not root) and the npm dependencies from the lock file.
// Usage: node web/scripts/setup.mjs [--browser] [--fuzz] [--numpy]
//   --browser also ensures Chromium (browser tests), --fuzz clang with libFuzzer (npm run fuzz:native),
//   --numpy NumPy, so the test that loads our .npy output in NumPy runs (optional: when it cannot be
//   installed, that test is reported as skipped)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM_PATH, root } from './common.mjs';

const wantBrowser = process.argv.includes('--browser');

const onPath = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

// Each requirement: how to tell it is there, and the Debian package that provides it.
const requirements = [
  { what: 'Emscripten (emcc)', ok: () => onPath('emcc'), pkg: 'emscripten' },
  { what: 'SIMDe headers', ok: () => existsSync('/usr/include/simde/wasm/simd128.h'), pkg: 'libsimde-dev' },
  { what: 'CMake', ok: () => onPath('cmake'), pkg: 'cmake' },
  { what: "make (CMake's default generator)", ok: () => onPath('make'), pkg: 'make' },
  { what: 'a C++ compiler', ok: () => onPath('g++') || onPath('c++'), pkg: 'g++' },
  { what: 'GoogleTest', ok: () => existsSync('/usr/include/gtest/gtest.h'), pkg: 'libgtest-dev' },
];
if (wantBrowser) {
  requirements.push({ what: 'Chromium', ok: () => existsSync(CHROMIUM_PATH), pkg: 'chromium' });
}
// Debian's python3-numpy installs for /usr/bin/python3, which another python3 on PATH may shadow.
const hasNumpy = () =>
  ['python3', '/usr/bin/python3'].some(
    (python) => spawnSync(python, ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0,
  );
if (process.argv.includes('--numpy')) {
  requirements.push({ what: 'NumPy', ok: hasNumpy, pkg: 'python3-numpy', optional: true });
}
if (process.argv.includes('--fuzz')) {
  requirements.push({ what: 'clang', ok: () => onPath('clang++'), pkg: 'clang' });
  requirements.push({
    what: "clang's sanitizer and libFuzzer runtimes",
    ok: () => existsSync('/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a'),
    pkg: 'libclang-rt-14-dev',
  });
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
let missing = requirements.filter((r) => !r.ok());
if (!isRoot) {
  for (const r of missing.filter((r) => r.optional)) {
    console.log(`Optional, not installed: ${r.what} (sudo apt-get install -y ${r.pkg}); its tests will be skipped.`);
  }
  missing = missing.filter((r) => !r.optional);
}
if (missing.length > 0) {
  const pkgs = missing.map((r) => r.pkg);
  if (!isRoot) {
    console.error(`layernorm-wasm needs: ${missing.map((r) => r.what).join(', ')}.`);
    console.error(`Install them with:\n  sudo apt-get update && sudo apt-get install -y ${pkgs.join(' ')}`);
    process.exit(1);
  }
  console.log(`Installing Debian packages: ${pkgs.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], { stdio: 'inherit', env });
  const still = missing.filter((r) => !r.ok() && !r.optional);
  if (still.length > 0) {
    console.error(`Still missing after apt-get: ${still.map((r) => r.what).join(', ')}`);
    process.exit(1);
  }
}

// npm dependencies: install from the lock file when node_modules is missing or older than it.
// --ignore-scripts: no dependency needs its install script here, and onnxruntime-node's (a
// benchmark peer) would try to download GPU libraries.
const lock = join(root, 'package-lock.json');
const stamp = join(root, 'node_modules', '.package-lock.json');
if (!existsSync(stamp) || statSync(stamp).mtimeMs < statSync(lock).mtimeMs) {
  console.log('Installing npm dependencies (npm ci)');
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
}
