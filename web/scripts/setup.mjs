#!/usr/bin/env node
// Checks that the tools the build and the tests need are there, by what they can do rather than
// where one distribution puts them (emcc on PATH and its version, headers the compiler finds),
// installs what is missing with apt-get when running as root on Debian, and otherwise says what
// to install and stops. Then installs the npm dependencies from the lock file.
// Usage: node web/scripts/setup.mjs [--native] [--browser] [--fuzz] [--numpy]
//   (always)   Node >= 20, Emscripten >= 3.1.6, CMake >= 3.20, make: what `npm run build` needs
//   --native   a C++ compiler with the SIMDe and GoogleTest headers (native tests, sanitizers)
//   --browser  Chromium (browser tests, the bundler matrix)
//   --fuzz     clang++ with libFuzzer and the sanitizer runtimes (npm run fuzz:native)
//   --numpy    NumPy, so the test that loads our .npy output in NumPy runs (optional: when it
//              cannot be installed, that test is reported as skipped)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_PATH, root } from './common.mjs';

const args = process.argv.slice(2);
const MIN_EMSCRIPTEN = [3, 1, 6]; // Debian 12's, the version the builds are tested with
const MIN_CMAKE = [3, 20, 0]; // CMakeLists.txt's cmake_minimum_required

const nodeMajor = Number(process.versions.node.split('.')[0]);
if (nodeMajor < 20) {
  console.error(
    `layernorm-wasm needs Node 20 or later, this is ${process.version}. Debian 12's own nodejs is 18: ` +
      'install Node 20 from nodejs.org, NodeSource’s Debian repository, or a version manager (nvm, fnm).',
  );
  process.exit(1);
}

/** stdout of a command, or null when it cannot run. */
function output(cmd, argv, input) {
  const r = spawnSync(cmd, argv, { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] });
  return r.status === 0 ? `${r.stdout}${r.stderr}` : null;
}

/** The first x.y.z in text, as numbers. */
function version(text) {
  const m = /(\d+)\.(\d+)\.(\d+)/.exec(text ?? '');
  return m ? m.slice(1, 4).map(Number) : null;
}

const atLeast = (v, min) => {
  for (let i = 0; i < 3; i++) if (v[i] !== min[i]) return v[i] > min[i];
  return true;
};

function firstCompiler() {
  return ['c++', 'g++', 'clang++'].find((cc) => output(cc, ['--version']) !== null) ?? null;
}

/** Whether the C++ compiler finds `header` (on its default paths, CPATH, CPLUS_INCLUDE_PATH…). */
function compilerFinds(header) {
  const cc = firstCompiler();
  return cc !== null && output(cc, ['-fsyntax-only', '-x', 'c++', '-'], `#include <${header}>\n`) !== null;
}

/** Whether clang++ builds and links a libFuzzer target with ASan and UBSan. */
function clangFuzzes() {
  const dir = mkdtempSync(join(tmpdir(), 'layernorm-wasm-setup-'));
  try {
    const source = 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n';
    const flags = ['-fsanitize=fuzzer,address,undefined', '-x', 'c++', '-', '-o', join(dir, 'probe')];
    return output('clang++', flags, source) !== null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Each requirement: what it is, a check returning null when fine or the problem, the Debian
// package that provides it, and where to get it elsewhere.
const requirements = [
  {
    what: `Emscripten ${MIN_EMSCRIPTEN.join('.')} or later (emcc on PATH)`,
    check() {
      const v = version(output('emcc', ['--version']));
      if (!v) return 'emcc is not on PATH';
      if (!atLeast(v, MIN_EMSCRIPTEN)) return `emcc is ${v.join('.')}`;
      if (v.join('.') !== MIN_EMSCRIPTEN.join('.')) {
        console.log(`Emscripten ${v.join('.')}: the builds are tested with ${MIN_EMSCRIPTEN.join('.')} (Debian 12).`);
      }
      return null;
    },
    debian: 'emscripten',
    elsewhere: 'emsdk (emscripten.org), or `brew install emscripten`',
  },
  {
    what: `CMake ${MIN_CMAKE.join('.')} or later`,
    check() {
      const v = version(output('cmake', ['--version']));
      if (!v) return 'cmake is not on PATH';
      return atLeast(v, MIN_CMAKE) ? null : `cmake is ${v.join('.')}`;
    },
    debian: 'cmake',
    elsewhere: '`brew install cmake`, or cmake.org',
  },
  {
    what: "make (CMake's default generator)",
    check: () => (output('make', ['--version']) !== null ? null : 'make is not on PATH'),
    debian: 'make',
    elsewhere: 'your system’s build tools (Xcode command line tools on macOS)',
  },
];
if (args.includes('--native')) {
  requirements.push(
    {
      what: 'a C++ compiler (c++, g++ or clang++)',
      check: () => (firstCompiler() ? null : 'no C++ compiler on PATH'),
      debian: 'g++',
      elsewhere: 'your system’s C++ compiler',
    },
    {
      what: 'the SIMDe headers (simde/wasm/simd128.h)',
      check: () => (compilerFinds('simde/wasm/simd128.h') ? null : 'the compiler does not find simde/wasm/simd128.h'),
      debian: 'libsimde-dev',
      elsewhere: '`brew install simde`, or put SIMDe on CPLUS_INCLUDE_PATH',
    },
    {
      what: 'GoogleTest (gtest/gtest.h and its CMake package)',
      check: () => (compilerFinds('gtest/gtest.h') ? null : 'the compiler does not find gtest/gtest.h'),
      debian: 'libgtest-dev',
      elsewhere: '`brew install googletest`',
    },
  );
}
if (args.includes('--browser')) {
  requirements.push({
    what: `Chromium (${CHROMIUM_PATH}; CHROMIUM_PATH overrides)`,
    check: () => (existsSync(CHROMIUM_PATH) ? null : `${CHROMIUM_PATH} does not exist`),
    debian: 'chromium',
    elsewhere: 'a Chromium or Chrome build, with CHROMIUM_PATH set to its executable',
  });
}
if (args.includes('--fuzz')) {
  requirements.push({
    what: 'clang++ with libFuzzer and the sanitizer runtimes',
    check: () => (clangFuzzes() ? null : 'clang++ cannot link -fsanitize=fuzzer,address,undefined'),
    debian: ['clang', 'libclang-rt-14-dev'],
    elsewhere: 'LLVM’s clang with compiler-rt (Apple’s clang has no libFuzzer: `brew install llvm`)',
  });
}

// Debian's python3-numpy installs for /usr/bin/python3, which another python3 on PATH may shadow.
const hasNumpy = () =>
  ['python3', '/usr/bin/python3'].some(
    (python) => spawnSync(python, ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0,
  );
if (args.includes('--numpy')) {
  requirements.push({
    what: 'NumPy',
    check: () => (hasNumpy() ? null : 'python3 cannot import numpy'),
    debian: 'python3-numpy',
    elsewhere: '`pip install numpy`',
    optional: true,
  });
}

const problems = (list) => list.map((r) => ({ r, problem: r.check() })).filter((p) => p.problem !== null);
let missing = problems(requirements);
if (missing.length > 0) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const debian = existsSync('/etc/debian_version') && output('apt-get', ['--version']) !== null;
  const pkgs = [...new Set(missing.flatMap(({ r }) => r.debian))];
  if (debian && isRoot) {
    const size = pkgs.includes('emscripten') ? ' (with Emscripten and its LLVM, about 2 GB; takes minutes)' : '';
    console.log(`Installing Debian packages: ${pkgs.join(' ')}${size}`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], { stdio: 'inherit', env });
    missing = problems(missing.map(({ r }) => r));
  }
  for (const { r } of missing.filter(({ r }) => r.optional)) {
    console.log(
      `Optional, not installed: ${r.what} (${debian ? `apt-get install ${r.debian}` : r.elsewhere}); its tests will be skipped.`,
    );
  }
  missing = missing.filter(({ r }) => !r.optional);
  if (missing.length > 0) {
    console.error('layernorm-wasm cannot build or test here yet. Missing:');
    for (const { r, problem } of missing) console.error(`  - ${r.what}: ${problem}`);
    if (debian) {
      const still = [...new Set(missing.flatMap(({ r }) => r.debian))];
      console.error(`Install them with:\n  sudo apt-get update && sudo apt-get install -y ${still.join(' ')}`);
    } else {
      console.error('To install:');
      for (const { r } of missing) console.error(`  - ${r.what}: ${r.elsewhere}`);
    }
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
