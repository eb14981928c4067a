#!/usr/bin/env node
// `npm run test:sanitizers`: the native GoogleTest suite built with AddressSanitizer (with
// LeakSanitizer) and UndefinedBehaviorSanitizer, any finding fatal. Uses clang++ where there is
// one (its UBSan also reports arithmetic on null pointers, which GCC's does not; Debian's libgtest,
// built with g++, links with it through libstdc++), else g++. Build tree: build/asan (configured
// once, then incremental).
// Flags: --clean (reconfigure from scratch), --jobs N (default 2).
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { configureOnce, option, root, runner } from './common.mjs';

const args = process.argv.slice(2);
const jobs = String(option(args, '--jobs', '2'));
const dir = join(root, 'build', 'asan');
const sanitizerEnv = {
  ASAN_OPTIONS:
    'detect_leaks=1:halt_on_error=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1',
  UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
  LSAN_OPTIONS: 'report_objects=1',
};
const run = runner(sanitizerEnv, { echo: true });

/**
 * The clang++ commands on PATH: clang++, then the versioned ones newest first (Debian's emscripten
 * brings clang-14 on Debian 12 and clang-19 on Debian 13, as clang++-N without a plain clang++).
 */
function clangs() {
  const versioned = new Set();
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    let names = [];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) if (/^clang\+\+-\d+$/.test(name)) versioned.add(name);
  }
  const version = (name) => Number(name.slice('clang++-'.length));
  return ['clang++', ...[...versioned].sort((a, b) => version(b) - version(a))];
}

/** A clang++ that can link the sanitizers here (it needs the compiler-rt of its version, Debian's libclang-rt-N-dev), else g++. */
function compiler() {
  for (const cc of clangs()) {
    const probe = spawnSync(cc, ['-fsanitize=address,undefined', '-x', 'c++', '-', '-o', '/dev/null'], {
      input: 'int main() { return 0; }\n',
    });
    if (probe.status === 0) return cc;
  }
  return 'g++';
}

if (args.includes('--clean')) rmSync(dir, { recursive: true, force: true });
const started = Date.now();
try {
  configureOnce(run, 'build/asan', [
    `-DCMAKE_CXX_COMPILER=${compiler()}`,
    '-DCMAKE_BUILD_TYPE=RelWithDebInfo',
    '-DLAYERNORM_SANITIZE=ON',
    '-DLAYERNORM_BUILD_TESTS=ON',
  ]);
  run('cmake', ['--build', 'build/asan', '-j', jobs]);
  run('ctest', ['--test-dir', 'build/asan', '--output-on-failure', '-j', jobs]);
} catch (error) {
  console.error(`\ntest:sanitizers failed (${error.status ?? error.message})`);
  process.exit(1);
}
console.log(
  `\nsanitizers: GoogleTest suite clean under ASan+LSan+UBSan (${((Date.now() - started) / 1000).toFixed(0)} s)`,
);
