// web/scripts/setup.mjs refuses a Node older than what developing needs (package.json's
// devEngines) with a message saying the package itself runs on 20.0+, and refuses an old emcc with
// its version. Run by `npm test` with node's test runner. Nothing here reaches the network or apt:
// setup runs with --check (report only), and `apt-get` on PATH is a fake that records how it was
// called. The real emcc, cmake and make must be installed, as for `npm test`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

const root = join(import.meta.dirname, '..', '..');
const SETUP = join(root, 'web', 'scripts', 'setup.mjs');
const work = mkdtempSync(join(tmpdir(), 'layernorm-wasm-setup-test-'));
after(() => rmSync(work, { recursive: true, force: true }));
// Readable by the unprivileged user the non-root case runs as (mkdtemp makes it 0700).
chmodSync(work, 0o755);

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

/** The environment without anything that steers what setup or CMake finds, plus `env`. */
function cleanEnv(env) {
  const base = { ...process.env };
  for (const name of ['CMAKE_PREFIX_PATH', 'CMAKE_TOOLCHAIN_FILE', 'CPLUS_INCLUDE_PATH', 'CPATH', 'CXX', 'GTEST_ROOT'])
    delete base[name];
  return { ...base, ...env };
}

/** Runs setup.mjs with `args` and `env`; node options (e.g. --import) go before the script. */
function setup(args, env = {}, { nodeOptions = [], uid } = {}) {
  const r = spawnSync(process.execPath, [...nodeOptions, SETUP, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: cleanEnv(env),
    ...(uid === undefined ? {} : { uid, gid: uid }),
  });
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

describe('Node', () => {
  /** setup as if run by Node `version` (process.version and process.versions.node replaced first). */
  const asNode = (version) =>
    setup(
      ['--check'],
      {},
      {
        nodeOptions: [
          '--import',
          `data:text/javascript,Object.defineProperty(process,'version',{value:'v${version}'});Object.defineProperty(process.versions,'node',{value:'${version}'})`,
        ],
      },
    );
  const refusal = (version) =>
    `Developing layernorm-wasm (npm start, npm test, npm run build) needs Node 20.19+ or 22.12+ (^20.19.0 || >=22.12.0), this is v${version}:\n` +
    'Vite 8 and its bundler Rolldown require it. The package itself runs on Node 20.0 and later; only working on it\n' +
    'needs the newer Node. Debian 12’s own nodejs is 18: install a current Node 20 or 22 from NodeSource’s Debian\n' +
    'repository, nodejs.org, or a version manager (nvm, fnm), ahead of /usr/bin/node on PATH.\n';

  for (const version of ['18.19.0', '20.0.0', '20.18.3', '21.7.3', '22.11.0']) {
    test(`${version} is refused for developing, saying the package itself runs on 20.0+`, () => {
      assert.deepEqual(asNode(version), { status: 1, stdout: '', stderr: refusal(version) });
    });
  }

  for (const version of ['20.19.0', '22.12.0', '24.0.0']) {
    test(`${version} passes the Node check`, () => {
      const r = asNode(version);
      assert.doesNotMatch(r.stderr, /Developing layernorm-wasm/);
      assert.equal(r.status, 0, r.stderr);
    });
  }

  test("devEngines is the range Vite and Rolldown declare in the lock file (package.json's engines stays >=20)", () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages;
    assert.deepEqual(
      ['vite', 'rolldown'].map((name) => lock[`node_modules/${name}`].engines.node),
      [pkg.devEngines.runtime.version, pkg.devEngines.runtime.version],
    );
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

  test('a newer emcc passes, with a note of the version the builds are tested with', () => {
    const fake = fakeBin({ emcc: '3.1.74' });
    assert.deepEqual(setup(['--check'], { PATH: `${fake.bin}:${PATH}` }), {
      status: 0,
      stdout: 'Emscripten 3.1.74: the builds are tested with 3.1.6 (Debian 12).\nEverything checked is there.\n',
      stderr: '',
    });
  });
});
