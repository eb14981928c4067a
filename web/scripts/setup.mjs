#!/usr/bin/env node
// Checks that the tools the build and the tests need are there, by what they can do rather than
// where one distribution puts them (emcc on PATH and its version; SIMDe and GoogleTest as CMake
// itself finds them), installs what is missing with apt-get when running as root on Debian, and
// otherwise says what to install and stops. Then installs the npm dependencies from the lock file.
// Usage: node web/scripts/setup.mjs [--check] [--native] [--browser] [--fuzz] [--numpy]
//   (always)   Node 20.19+, 22.12+ or 24+ (for developing; the package itself runs on Node 20.0+),
//              Emscripten >= 3.1.6, CMake >= 3.20, make: what `npm run build` needs
//   --native   a C++ compiler, and SIMDe and GoogleTest found by CMake (native tests, sanitizers)
//   --browser  Chromium (browser tests, the bundler matrix)
//   --fuzz     clang++ with libFuzzer and the sanitizer runtimes (npm run fuzz:native)
//   --numpy    NumPy, so the test that loads our .npy output in NumPy runs (optional: when it
//              cannot be installed, that test is reported as skipped)
//   --check    only check and report (exit 1 when something is missing); never runs apt-get or
//              npm ci, even as root (tests/scripts/setup.test.mjs runs setup this way)
//
// The Node check comes first and uses nothing newer than Node 14 has, so that an old Node gets
// this script's message rather than a crash.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_PATH, root } from './common.mjs';

const args = process.argv.slice(2);
const checkOnly = args.includes('--check');
const MIN_EMSCRIPTEN = [3, 1, 6]; // Debian 12's
// The versions the builds are tested with: Debian 12's and Debian 13's. Another (emsdk's) gets a note.
const TESTED_EMSCRIPTEN = { '3.1.6': 'Debian 12', '3.1.69': 'Debian 13' };
const MIN_CMAKE = [3, 20, 0]; // CMakeLists.txt's cmake_minimum_required

// Node for developing: package.json's devEngines range, the Nodes that both Vite 8 with its bundler
// Rolldown (`^20.19.0 || >=22.12.0`; on older Nodes they crash at import) and Vitest 4
// (`^20.0.0 || ^22.0.0 || >=24.0.0`) declare. The package's own `engines` (>=20) is for its users
// and is not this. Read here as `^x.y.z` / `>=x.y.z` alternatives, all it uses; anything else is
// this script's error to fix.
const devRange = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devEngines.runtime.version;
const nodeVersion = process.versions.node.split('.').map(Number);
const alternatives = devRange.split('||').map((alt) => {
  const m = /^\s*(\^|>=)(\d+)\.(\d+)\.(\d+)\s*$/.exec(alt);
  if (!m) throw new Error(`setup.mjs reads devEngines.runtime.version as ^x.y.z || >=x.y.z, got "${devRange}"`);
  return { caret: m[1] === '^', min: m.slice(2).map(Number) };
});
const nodeFits = alternatives.some(
  ({ caret, min }) => (!caret || nodeVersion[0] === min[0]) && compareVersions(nodeVersion, min) >= 0,
);
if (!nodeFits) {
  const each = alternatives.map(({ min }) => (min[1] === 0 && min[2] === 0 ? `${min[0]}+` : `${min[0]}.${min[1]}+`));
  const wanted = `${each.slice(0, -1).join(', ')} or ${each[each.length - 1]}`;
  console.error(
    [
      `Developing layernorm-wasm (npm start, npm test, npm run build) needs Node ${wanted} (${devRange}), this is ${process.version}:`,
      'Vite 8, its bundler Rolldown and Vitest 4 require it. The package itself runs on Node 20.0 and later; only',
      'working on it needs the newer Node. Take a supported LTS, Node 22 or 24 (Debian 12’s own nodejs is 18; Debian',
      '13’s, 20.19, works but left support in April 2026), from NodeSource’s Debian repository, nodejs.org, or a',
      'version manager (nvm, fnm), ahead of /usr/bin/node on PATH.',
    ].join('\n'),
  );
  process.exit(1);
}

/** Negative, zero or positive as version a (x.y.z, as numbers) is below, at or above b. */
function compareVersions(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
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

const atLeast = (v, min) => compareVersions(v, min) >= 0;

/** The C++ compiler CMake takes, when it runs: $CXX if set (CMake then tries no other), else the
 * first of c++, g++, clang++ on PATH. */
function firstCompiler() {
  const candidates = process.env.CXX ? [process.env.CXX] : ['c++', 'g++', 'clang++'];
  return candidates.find((cc) => output(cc, ['--version']) !== null) ?? null;
}

/**
 * What CMake finds, by configuring cmake/probe (which includes the file CMakeLists.txt finds its
 * dependencies with) in a temporary folder: { simde, gtest } (each a path or null), or { error }
 * when CMake cannot configure a C++ project here. Run once per round of checks.
 */
let probed = null;
function cmakeFinds() {
  if (probed) return probed;
  const dir = mkdtempSync(join(tmpdir(), 'layernorm-wasm-probe-'));
  try {
    const r = spawnSync('cmake', ['-S', join(root, 'cmake', 'probe'), '-B', dir], { encoding: 'utf8' });
    const text = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    const found = (name) => {
      const m = new RegExp(`^-- layernorm-probe ${name}: (.*)$`, 'm').exec(text);
      return m && m[1] && !m[1].endsWith('-NOTFOUND') ? m[1] : null;
    };
    if (r.status !== 0) {
      // The first "CMake Error at …:" block's message: its indented lines, up to the call stack.
      const lines = text.split('\n');
      const start = lines.findIndex((line) => line.startsWith('CMake Error'));
      const stop = lines.findIndex((line, i) => i > start && line.startsWith('Call Stack'));
      const message = start < 0 ? [] : lines.slice(start + 1, stop < 0 ? undefined : stop);
      const why =
        message
          .map((l) => l.trim())
          .filter(Boolean)
          .join(' ') || `exit ${r.status}`;
      probed = { error: `not checked, as CMake cannot configure a C++ project here: ${why}` };
    } else {
      probed = { simde: found('simde'), gtest: found('gtest') };
    }
    return probed;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The problem with what CMake finds for `key`, or null; `missing` says what is not found. */
function cmakeProblem(key, missing) {
  if (!version(output('cmake', ['--version'])) || output('make', ['--version']) === null || !firstCompiler()) {
    return 'not checked: CMake, make and a C++ compiler come first';
  }
  const r = cmakeFinds();
  if (r.error) return r.error;
  return r[key] ? null : missing;
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
      if (!Object.hasOwn(TESTED_EMSCRIPTEN, v.join('.'))) {
        const tested = Object.entries(TESTED_EMSCRIPTEN).map(([version, where]) => `${version} (${where})`);
        console.log(`Emscripten ${v.join('.')}: the builds are tested with ${tested.join(' and ')}.`);
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
const SEARCHED = 'on CMAKE_PREFIX_PATH, CPLUS_INCLUDE_PATH, CPATH or the system prefixes';
if (args.includes('--native')) {
  requirements.push(
    {
      what: 'a C++ compiler ($CXX, c++, g++ or clang++)',
      check: () =>
        firstCompiler()
          ? null
          : process.env.CXX
            ? `CXX is ${process.env.CXX}, which does not run`
            : 'no C++ compiler on PATH',
      debian: 'g++',
      elsewhere: 'your system’s C++ compiler',
    },
    {
      what: 'the SIMDe headers (simde/wasm/simd128.h), found by CMake',
      check: () => cmakeProblem('simde', `CMake does not find simde/wasm/simd128.h ${SEARCHED}`),
      debian: 'libsimde-dev',
      elsewhere:
        '`brew install simde`, or put SIMDe’s prefix on CMAKE_PREFIX_PATH (or its include folder on CPLUS_INCLUDE_PATH)',
    },
    {
      what: 'GoogleTest (gtest/gtest.h and its CMake package)',
      check: () =>
        cmakeProblem(
          'gtest',
          'CMake does not find the GTest package (GTestConfig.cmake, or gtest/gtest.h with its libraries)',
        ),
      debian: 'libgtest-dev',
      elsewhere: '`brew install googletest`, or put GoogleTest’s prefix on CMAKE_PREFIX_PATH',
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
    // Debian's default clang and the compiler-rt of that version (14 on Debian 12, 19 on 13).
    debian: ['clang', 'libclang-rt-dev'],
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

const problems = (list) => {
  probed = null; // what CMake finds may have changed (a round of apt-get install)
  return list.map((r) => ({ r, problem: r.check() })).filter((p) => p.problem !== null);
};
let missing = problems(requirements);
if (missing.length > 0) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const debian = existsSync('/etc/debian_version') && output('apt-get', ['--version']) !== null;
  const pkgs = [...new Set(missing.flatMap(({ r }) => r.debian))];
  if (debian && isRoot && !checkOnly) {
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

if (probed?.simde && probed.gtest)
  console.log(`CMake finds SIMDe in ${probed.simde} and GoogleTest in ${probed.gtest}.`);
if (checkOnly) {
  console.log('Everything checked is there.');
  process.exit(0);
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
