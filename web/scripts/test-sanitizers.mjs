#!/usr/bin/env node
// `npm run test:sanitizers`: the native GoogleTest suite built with AddressSanitizer (with
// LeakSanitizer) and UndefinedBehaviorSanitizer, any finding fatal. Uses clang++ where there is
// one (its UBSan also reports arithmetic on null pointers, which GCC's does not; Debian's libgtest,
// built with g++, links with it through libstdc++), else g++. Build tree: build/asan (configured
// once, then incremental).
// Flags: --clean (reconfigure from scratch), --jobs N (default 2).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
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

/** clang++ when it can link the sanitizers here (it needs Debian's libclang-rt-14-dev), else g++. */
function compiler() {
  for (const cc of ['clang++', 'clang++-14']) {
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
