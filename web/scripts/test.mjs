#!/usr/bin/env node
// `npm test`: installs what is missing, builds, then runs every suite: the native C++ tests
// (GoogleTest through CTest, real SIMD kernel via SIMDe), the same under ASan + UBSan, the C++
// library installed and used by cpp/examples/native, the Vitest suites (both wasm backends, bad
// inputs, memory, I/O, loading, seeded fuzzing, the packed tarball, the README's Node examples), the Playwright
// suite in Chromium (the page, the README's browser examples, errors.md's browser rows), setup.mjs's checks against faked tools and
// prefixes, and `npm start`'s clean stop on SIGTERM / SIGINT (last: it rebuilds dist/). The
// bundler matrix is `npm run test:bundlers`.
// Flags: --skip-cpp, --skip-browser, --skip-start (for quick local loops).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { configureOnce, root, runner, setup } from './common.mjs';

const args = process.argv.slice(2);
const run = runner();
const hasBrowserTests = () =>
  existsSync(join(root, 'tests', 'browser')) &&
  readdirSync(join(root, 'tests', 'browser')).some((f) => f.endsWith('.spec.ts'));

const browser = !args.includes('--skip-browser') && hasBrowserTests();
const cpp = !args.includes('--skip-cpp');
setup(['--numpy', ...(cpp ? ['--native'] : []), ...(browser ? ['--browser'] : [])]);
run(process.execPath, ['web/scripts/build.mjs', '--no-setup']);

if (cpp) {
  console.log('\n== C++ tests (native, GoogleTest) ==');
  configureOnce(run, 'build/native', ['-DCMAKE_BUILD_TYPE=Release']);
  run('cmake', ['--build', 'build/native', '-j2']);
  run('ctest', ['--test-dir', 'build/native', '--output-on-failure', '-j2']);
  console.log('\n== C++ tests under AddressSanitizer + UndefinedBehaviorSanitizer ==');
  run(process.execPath, ['web/scripts/test-sanitizers.mjs']);
  console.log('\n== The C++ library installed, and as a subdirectory, in a native example ==');
  run(process.execPath, ['web/scripts/test-install.mjs']);
}

console.log('\n== JavaScript tests (Vitest) ==');
run(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run']);

if (browser) {
  console.log('\n== Browser tests (Playwright, Chromium) ==');
  run('npm', ['run', 'test:browser']);
}

if (cpp) {
  // It configures CMake projects, so it needs what setup's --native checked.
  console.log('\n== setup.mjs finds what the build finds (node:test) ==');
  run(process.execPath, ['--test', 'tests/scripts/setup.test.mjs']);
}

if (!args.includes('--skip-start')) {
  console.log('\n== npm start stops cleanly (node:test) ==');
  run(process.execPath, ['--test', 'tests/scripts/start.test.mjs']);
}
