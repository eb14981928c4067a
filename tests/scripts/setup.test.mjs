// web/scripts/setup.mjs decides as the build will: it refuses an old emcc with its version, takes
// SIMDe and GoogleTest wherever CMake finds them (and only there), lists what is missing with
// what to install, and as a non-root user installs nothing. Run by `npm test` with node's test
// runner. Nothing here reaches the network or apt: setup runs with --check (report only) or as a
// non-root user, and `apt-get` on PATH is a fake that records how it was called.
//
// The tools setup looks for are faked by putting scripts first on PATH; the system's own
// prefixes are hidden from CMake by a toolchain file (CMAKE_TOOLCHAIN_FILE in the environment,
// CMake 3.21+; CMAKE_SYSTEM_IGNORE_PREFIX_PATH, 3.23+) so that a test's fake prefix is the only
// place SIMDe and GoogleTest can be found. The real cmake, make and C++ compiler must be
// installed, as for `npm test`; emcc is a fake wherever setup's output is compared, so that the
// Emscripten installed (Debian 12's 3.1.6, Debian 13's 3.1.69, emsdk's) changes nothing here.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

const root = join(import.meta.dirname, '..', '..');
const SETUP = join(root, 'web', 'scripts', 'setup.mjs');
const work = mkdtempSync(join(tmpdir(), 'layernorm-wasm-setup-test-'));
after(() => rmSync(work, { recursive: true, force: true }));
// Readable by the unprivileged user the non-root case runs as (mkdtemp makes it 0700).
chmodSync(work, 0o755);

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

/**
 * What setup needs to run as `nobody` (uid 65534) when this runs as root: the clone may sit where
 * no one else can read it (Debian's /root is mode 0700), and so may node (a version manager's, under
 * /root). So setup, the file it imports and the package.json it reads are copied, in the clone's
 * layout, to a folder everyone can read, and node too when `nobody` cannot run it where it is.
 */
function readableCopy() {
  const copy = folder('clone');
  for (const file of ['web/scripts/setup.mjs', 'web/scripts/common.mjs', 'package.json']) {
    write(join(copy, file), readFileSync(join(root, file)));
  }
  let node = process.execPath;
  if (spawnSync(node, ['-e', '0'], { uid: NOBODY, gid: NOBODY, cwd: copy }).status !== 0) {
    node = join(folder('node'), 'node');
    copyFileSync(process.execPath, node);
    chmodSync(node, 0o755);
  }
  return { setup: join(copy, 'web', 'scripts', 'setup.mjs'), root: copy, node };
}
// setup gives apt-get commands where there is a Debian apt-get (here always the fake), else the
// other platforms' advice.
const debian = existsSync('/etc/debian_version');

let folders = 0;
/** A new folder under the work folder, readable by everyone. */
function folder(name) {
  const dir = join(work, `${folders++}-${name}`);
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  return dir;
}

function write(path, contents, mode = 0o644) {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o755 });
  writeFileSync(path, contents);
  chmodSync(path, mode);
}

/**
 * A folder of fake commands for PATH: always an `apt-get` that answers --version and records every
 * call in `log` (anything but --version fails: nothing is ever installed), and `emcc` printing
 * the given version when one is given.
 */
function fakeBin({ emcc } = {}) {
  const bin = folder('bin');
  const log = join(bin, 'apt-get.log');
  write(log, '', 0o666);
  write(
    join(bin, 'apt-get'),
    `#!/bin/sh\necho "$*" >> '${log}'\n[ "$1" = --version ] && echo 'apt 2.6.1 (amd64)' && exit 0\nexit 1\n`,
    0o755,
  );
  if (emcc) {
    write(
      join(bin, 'emcc'),
      `#!/bin/sh\necho 'emcc (Emscripten gcc/clang-like replacement + linker emulating GNU ld) ${emcc} ()'\n`,
      0o755,
    );
  }
  return { bin, aptCalls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

/** A prefix holding SIMDe's header (an empty stand-in: only its path matters to setup). */
function simdePrefix() {
  const prefix = folder('simde-prefix');
  write(join(prefix, 'include', 'simde', 'wasm', 'simd128.h'), '// stand-in for SIMDe\n');
  return prefix;
}

/** A prefix holding a GTest CMake package: the config file with the targets the build links. */
function gtestPrefix() {
  const prefix = folder('gtest-prefix');
  write(
    join(prefix, 'lib', 'cmake', 'GTest', 'GTestConfig.cmake'),
    'add_library(GTest::gtest INTERFACE IMPORTED)\nadd_library(GTest::gtest_main INTERFACE IMPORTED)\n',
  );
  return prefix;
}

/** A toolchain file hiding the system's prefixes (/usr, /usr/local, /) from CMake's find_*. */
const hideSystem = join(folder('toolchain'), 'hide-system.cmake');
write(hideSystem, 'set(CMAKE_SYSTEM_IGNORE_PREFIX_PATH /usr /usr/local /)\n');
/** Why the tests that hide the system's prefixes cannot run here (CMake before 3.23 ignores the file), or false. */
const cannotHideSystem = (() => {
  const m = /cmake version (\d+)\.(\d+)/.exec(spawnSync('cmake', ['--version'], { encoding: 'utf8' }).stdout ?? '');
  if (!m) return 'cmake --version printed no version';
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 3 || (major === 3 && minor >= 23)
    ? false
    : `CMake ${major}.${minor} has no CMAKE_SYSTEM_IGNORE_PREFIX_PATH (3.23+), so the system's own SIMDe and GoogleTest stay visible`;
})();

/** The environment without anything that steers what setup or CMake finds, plus `env`. */
function cleanEnv(env) {
  const base = { ...process.env };
  for (const name of ['CMAKE_PREFIX_PATH', 'CMAKE_TOOLCHAIN_FILE', 'CPLUS_INCLUDE_PATH', 'CPATH', 'CXX', 'GTEST_ROOT'])
    delete base[name];
  return { ...base, ...env };
}

/**
 * Runs setup.mjs with `args` and `env`; node options (e.g. --import) go before the script. With
 * `uid`, as that user, from a copy that user can read (readableCopy).
 */
function setup(args, env = {}, { nodeOptions = [], uid } = {}) {
  const from = uid === undefined ? { setup: SETUP, root, node: process.execPath } : readableCopy();
  const r = spawnSync(from.node, [...nodeOptions, from.setup, ...args], {
    cwd: from.root,
    encoding: 'utf8',
    env: cleanEnv(env),
    ...(uid === undefined ? {} : { uid, gid: uid }),
  });
  // A user that cannot even start node (no permission to switch users here) is not a setup problem.
  assert.notEqual(r.error?.code, 'EPERM', `cannot run as uid ${uid}: ${r.error?.message}`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** What setup says to install, as it says it on this platform. */
function advice(debs, elsewhere) {
  return debian
    ? `Install them with:\n  sudo apt-get update && sudo apt-get install -y ${debs.join(' ')}\n`
    : `To install:\n${elsewhere.map((line) => `  - ${line}\n`).join('')}`;
}

const MISSING = 'layernorm-wasm cannot build or test here yet. Missing:\n';
const PATH = process.env.PATH;
/** PATH with a fake emcc of a tested version (Debian 13's) first, whatever Emscripten is installed. */
const EMCC_PATH = `${fakeBin({ emcc: '3.1.69' }).bin}:${PATH}`;

describe('Node', () => {
  /** setup as if run by Node `version` (process.version and process.versions.node replaced first). */
  const asNode = (version) =>
    setup(
      ['--check'],
      { PATH: EMCC_PATH },
      {
        nodeOptions: [
          '--import',
          `data:text/javascript,Object.defineProperty(process,'version',{value:'v${version}'});Object.defineProperty(process.versions,'node',{value:'${version}'})`,
        ],
      },
    );
  const refusal = (version) =>
    `Developing layernorm-wasm (npm start, npm test, npm run build) needs Node 20.19+, 22.12+ or 24+ (^20.19.0 || ^22.12.0 || >=24.0.0), this is v${version}:\n` +
    'Vite 8, its bundler Rolldown and Vitest 4 require it. The package itself runs on Node 20.0 and later; only\n' +
    'working on it needs the newer Node. Take a supported LTS, Node 22 or 24 (Debian 12’s own nodejs is 18; Debian\n' +
    '13’s, 20.19, works but left support in April 2026), from NodeSource’s Debian repository, nodejs.org, or a\n' +
    'version manager (nvm, fnm), ahead of /usr/bin/node on PATH.\n';

  for (const version of ['18.19.0', '20.0.0', '20.18.3', '21.7.3', '22.11.0', '23.11.0']) {
    test(`${version} is refused for developing, saying the package itself runs on 20.0+`, () => {
      assert.deepEqual(asNode(version), { status: 1, stdout: '', stderr: refusal(version) });
    });
  }

  // 20.19.2 is Debian 13's nodejs.
  for (const version of ['20.19.0', '20.19.2', '22.12.0', '24.0.0', '26.1.0']) {
    test(`${version} passes the Node check`, () => {
      const r = asNode(version);
      assert.doesNotMatch(r.stderr, /Developing layernorm-wasm/);
      assert.equal(r.status, 0, r.stderr);
    });
  }

  /** Whether Node `version` (x.y.z) is in `range`, a `||` of `^x.y.z` and `>=x.y.z` (all the tools here write). */
  function inRange(version, range) {
    const v = version.split('.').map(Number);
    return range.split('||').some((alternative) => {
      const m = /^\s*(\^|>=)(\d+)\.(\d+)\.(\d+)\s*$/.exec(alternative);
      assert.ok(m, `cannot read "${alternative}" of "${range}"`);
      const min = m.slice(2).map(Number);
      const above = v[0] !== min[0] ? v[0] > min[0] : v[1] !== min[1] ? v[1] > min[1] : v[2] >= min[2];
      return above && (m[1] === '>=' || v[0] === min[0]);
    });
  }

  test("devEngines is the Nodes that Vite, Rolldown and Vitest all declare in the lock file (package.json's engines stays >=20)", () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages;
    const tools = ['vite', 'rolldown', 'vitest'].map((name) => lock[`node_modules/${name}`].engines.node);
    const dev = pkg.devEngines.runtime.version;
    // Every release line's first and a late version, and the boundaries the ranges name.
    const versions = [18, 19, 20, 21, 22, 23, 24, 25, 26, 27].flatMap((major) => [`${major}.0.0`, `${major}.40.0`]);
    versions.push('20.18.9', '20.19.0', '22.11.9', '22.12.0', '22.13.0', '23.5.0');
    for (const version of versions) {
      assert.equal(
        inRange(version, dev),
        tools.every((range) => inRange(version, range)),
        `Node ${version}: ${dev} vs ${tools.join(' / ')}`,
      );
    }
    assert.equal(pkg.engines.node, '>=20');
  });
});

describe('Emscripten', () => {
  test('an emcc older than 3.1.6 is refused, with its version', () => {
    const fake = fakeBin({ emcc: '3.1.5' });
    const r = setup(['--check'], { PATH: `${fake.bin}:${PATH}` });
    assert.deepEqual(r, {
      status: 1,
      stdout: '',
      stderr:
        `${MISSING}  - Emscripten 3.1.6 or later (emcc on PATH): emcc is 3.1.5\n` +
        advice(
          ['emscripten'],
          ['Emscripten 3.1.6 or later (emcc on PATH): emsdk (emscripten.org), or `brew install emscripten`'],
        ),
    });
    assert.deepEqual(
      fake.aptCalls().filter((call) => call !== '--version'),
      [],
    );
  });

  for (const version of ['3.1.6', '3.1.69']) {
    test(`${version}, a version the builds are tested with (Debian ${version === '3.1.6' ? 12 : 13}), passes without a note`, () => {
      const fake = fakeBin({ emcc: version });
      assert.deepEqual(setup(['--check'], { PATH: `${fake.bin}:${PATH}` }), {
        status: 0,
        stdout: 'Everything checked is there.\n',
        stderr: '',
      });
    });
  }

  test('another newer emcc passes, with a note of the versions the builds are tested with', () => {
    const fake = fakeBin({ emcc: '3.1.74' });
    assert.deepEqual(setup(['--check'], { PATH: `${fake.bin}:${PATH}` }), {
      status: 0,
      stdout:
        'Emscripten 3.1.74: the builds are tested with 3.1.6 (Debian 12) and 3.1.69 (Debian 13).\nEverything checked is there.\n',
      stderr: '',
    });
  });
});

describe('SIMDe and GoogleTest, as CMake finds them', { skip: cannotHideSystem }, () => {
  /** Configures the real CMakeLists.txt (native, with tests) in `env`: exit status and output. */
  function configureBuild(env) {
    const dir = folder('build');
    const r = spawnSync('cmake', ['-S', root, '-B', dir, '-DLAYERNORM_BUILD_TESTS=ON'], {
      encoding: 'utf8',
      env: cleanEnv(env),
    });
    return { status: r.status, output: `${r.stdout}${r.stderr}` };
  }

  test('found only under CMAKE_PREFIX_PATH: accepted, and the build configures', () => {
    const simde = simdePrefix();
    const gtest = gtestPrefix();
    const env = { CMAKE_TOOLCHAIN_FILE: hideSystem, CMAKE_PREFIX_PATH: `${simde}:${gtest}` };
    assert.deepEqual(setup(['--check', '--native'], { ...env, PATH: EMCC_PATH }), {
      status: 0,
      stdout: `CMake finds SIMDe in ${simde}/include and GoogleTest in ${gtest}/lib/cmake/GTest.\nEverything checked is there.\n`,
      stderr: '',
    });
    const build = configureBuild(env);
    assert.equal(build.status, 0, build.output);
  });

  test('SIMDe only on CPLUS_INCLUDE_PATH (where the compiler looks): accepted, and the build configures', () => {
    const simde = simdePrefix();
    const gtest = gtestPrefix();
    const env = {
      CMAKE_TOOLCHAIN_FILE: hideSystem,
      CPLUS_INCLUDE_PATH: join(simde, 'include'),
      CMAKE_PREFIX_PATH: gtest,
    };
    const r = setup(['--check', '--native'], { ...env, PATH: EMCC_PATH });
    assert.equal(
      r.stdout,
      `CMake finds SIMDe in ${simde}/include and GoogleTest in ${gtest}/lib/cmake/GTest.\nEverything checked is there.\n`,
    );
    assert.equal(r.status, 0, r.stderr);
    const build = configureBuild(env);
    assert.equal(build.status, 0, build.output);
  });

  test('nowhere CMake looks: refused with what to install, and the build refuses too', () => {
    const fake = fakeBin({ emcc: '3.1.69' });
    const env = { CMAKE_TOOLCHAIN_FILE: hideSystem, PATH: `${fake.bin}:${PATH}` };
    assert.deepEqual(setup(['--check', '--native'], env), {
      status: 1,
      stdout: '',
      stderr:
        `${MISSING}  - the SIMDe headers (simde/wasm/simd128.h), found by CMake: CMake does not find simde/wasm/simd128.h on CMAKE_PREFIX_PATH, CPLUS_INCLUDE_PATH, CPATH or the system prefixes\n` +
        '  - GoogleTest (gtest/gtest.h and its CMake package): CMake does not find the GTest package (GTestConfig.cmake, or gtest/gtest.h with its libraries)\n' +
        advice(
          ['libsimde-dev', 'libgtest-dev'],
          [
            'the SIMDe headers (simde/wasm/simd128.h), found by CMake: `brew install simde`, or put SIMDe’s prefix on CMAKE_PREFIX_PATH (or its include folder on CPLUS_INCLUDE_PATH)',
            'GoogleTest (gtest/gtest.h and its CMake package): `brew install googletest`, or put GoogleTest’s prefix on CMAKE_PREFIX_PATH',
          ],
        ),
    });
    const build = configureBuild(env);
    assert.notEqual(build.status, 0);
    assert.match(build.output, /SIMDe \(simde\/wasm\/simd128\.h\) not found: install libsimde-dev/);
  });

  test('SIMDe found but not GoogleTest: only GoogleTest is missing, for setup and for the build', () => {
    const simde = simdePrefix();
    const env = { CMAKE_TOOLCHAIN_FILE: hideSystem, CMAKE_PREFIX_PATH: simde };
    const r = setup(['--check', '--native'], { ...env, PATH: EMCC_PATH });
    assert.equal(r.status, 1);
    assert.equal(
      r.stderr.split('\n')[1],
      '  - GoogleTest (gtest/gtest.h and its CMake package): CMake does not find the GTest package (GTestConfig.cmake, or gtest/gtest.h with its libraries)',
    );
    assert.doesNotMatch(r.stderr, /SIMDe headers/);
    const build = configureBuild(env);
    assert.notEqual(build.status, 0);
    assert.match(build.output, /GoogleTest's CMake package not found/);
  });
});

test("when CMake cannot configure a C++ project, setup says CMake's error", () => {
  const failing = join(folder('toolchain'), 'failing.cmake');
  write(failing, 'message(FATAL_ERROR "this toolchain file stops every configure")\n');
  const r = setup(['--check', '--native'], { CMAKE_TOOLCHAIN_FILE: failing, PATH: EMCC_PATH });
  const problem =
    'not checked, as CMake cannot configure a C++ project here: this toolchain file stops every configure';
  assert.equal(r.status, 1);
  assert.deepEqual(r.stderr.split('\n').slice(0, 3), [
    MISSING.trimEnd(),
    `  - the SIMDe headers (simde/wasm/simd128.h), found by CMake: ${problem}`,
    `  - GoogleTest (gtest/gtest.h and its CMake package): ${problem}`,
  ]);
});

test('with nothing installed, a non-root user is told everything to install, and nothing is installed', () => {
  const fake = fakeBin();
  const chromium = join(work, 'no-such-chromium');
  // As root, run as the unprivileged `nobody` (uid 65534): setup must not even try apt-get.
  const r = setup(
    ['--native', '--browser'],
    { PATH: fake.bin, CHROMIUM_PATH: chromium },
    { uid: isRoot ? NOBODY : undefined },
  );
  const notChecked = 'not checked: CMake, make and a C++ compiler come first';
  assert.deepEqual(r, {
    status: 1,
    stdout: '',
    stderr:
      MISSING +
      '  - Emscripten 3.1.6 or later (emcc on PATH): emcc is not on PATH\n' +
      '  - CMake 3.20.0 or later: cmake is not on PATH\n' +
      "  - make (CMake's default generator): make is not on PATH\n" +
      '  - a C++ compiler ($CXX, c++, g++ or clang++): no C++ compiler on PATH\n' +
      `  - the SIMDe headers (simde/wasm/simd128.h), found by CMake: ${notChecked}\n` +
      `  - GoogleTest (gtest/gtest.h and its CMake package): ${notChecked}\n` +
      `  - Chromium (${chromium}; CHROMIUM_PATH overrides): ${chromium} does not exist\n` +
      advice(
        ['emscripten', 'cmake', 'make', 'g++', 'libsimde-dev', 'libgtest-dev', 'chromium'],
        [
          'Emscripten 3.1.6 or later (emcc on PATH): emsdk (emscripten.org), or `brew install emscripten`',
          'CMake 3.20.0 or later: `brew install cmake`, or cmake.org',
          "make (CMake's default generator): your system’s build tools (Xcode command line tools on macOS)",
          'a C++ compiler ($CXX, c++, g++ or clang++): your system’s C++ compiler',
          'the SIMDe headers (simde/wasm/simd128.h), found by CMake: `brew install simde`, or put SIMDe’s prefix on CMAKE_PREFIX_PATH (or its include folder on CPLUS_INCLUDE_PATH)',
          'GoogleTest (gtest/gtest.h and its CMake package): `brew install googletest`, or put GoogleTest’s prefix on CMAKE_PREFIX_PATH',
          `Chromium (${chromium}; CHROMIUM_PATH overrides): a Chromium or Chrome build, with CHROMIUM_PATH set to its executable`,
        ],
      ),
  });
  assert.deepEqual(
    fake.aptCalls().filter((call) => call !== '--version'),
    [],
  );
});
