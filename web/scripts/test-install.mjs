#!/usr/bin/env node
// The C++ library as another native project gets it: installed (liblayernorm.a, its header and
// its CMake package), then cpp/examples/native built against the installed package with
// find_package(layernorm), and again with the repository as a subdirectory, which must build
// the library alone (no tests). Both example programs must run and pass their own checks.
// Everything happens in a temporary folder, removed afterwards. Run by `npm test`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, runner } from './common.mjs';

const run = runner({}, { echo: true });
const work = mkdtempSync(join(tmpdir(), 'layernorm-install-'));
const example = join(root, 'cpp', 'examples', 'native');
try {
  const build = join(work, 'build'),
    prefix = join(work, 'prefix');
  run('cmake', ['-S', root, '-B', build, '-DLAYERNORM_BUILD_TESTS=OFF', `-DCMAKE_INSTALL_PREFIX=${prefix}`]);
  run('cmake', ['--build', build, '-j2']);
  run('cmake', ['--install', build]);

  const installed = join(work, 'installed');
  run('cmake', ['-S', example, '-B', installed, `-DCMAKE_PREFIX_PATH=${prefix}`]);
  run('cmake', ['--build', installed, '-j2']);
  run(join(installed, 'layernorm_example'), []);

  const sub = join(work, 'subdirectory');
  run('cmake', ['-S', example, '-B', sub, `-DLAYERNORM_SOURCE_DIR=${root}`]);
  const targets = execFileSync('cmake', ['--build', sub, '--target', 'help'], { encoding: 'utf8' });
  if (/layernorm_tests|layernorm_bench|layernorm_fuzz/.test(targets)) {
    throw new Error('as a subdirectory, the repository must build the library alone, not its tests');
  }
  run('cmake', ['--build', sub, '-j2']);
  run(join(sub, 'layernorm_example'), []);
  console.log('installed package and subdirectory: both examples built and passed');
} finally {
  rmSync(work, { recursive: true, force: true });
}
