#!/usr/bin/env node
// `npm run test:sanitizers`: the native GoogleTest suite built with AddressSanitizer (with
// LeakSanitizer) and UndefinedBehaviorSanitizer, any finding fatal. Uses g++, as Debian's
// libgtest is built with it. Build tree: build/asan (configured once, then incremental).
// Flags: --clean (reconfigure from scratch), --jobs N (default 2).
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

if (args.includes('--clean')) rmSync(dir, { recursive: true, force: true });
const started = Date.now();
try {
  configureOnce(run, 'build/asan', [
    '-DCMAKE_CXX_COMPILER=g++',
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
