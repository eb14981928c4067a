// What every project script needs: the repository root, argument options, and a way to run a
// command in the root with output shown.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The value after `--name` in args, or fallback when absent. */
export function option(args, name, fallback = undefined) {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
}

/** A function running `cmd argv` in the repository root with `env` added to the environment. */
export function runner(env = {}, { echo = false } = {}) {
  return (cmd, argv, extra = {}) => {
    if (echo) console.log(`$ ${cmd} ${argv.join(' ')}`);
    execFileSync(cmd, argv, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env, ...extra } });
  };
}

/**
 * Runs web/scripts/setup.mjs with `args`. When it fails, exits with its status and nothing more:
 * setup has said what is missing, and a stack trace after that would bury it.
 */
export function setup(args = []) {
  const r = spawnSync(process.execPath, [join(root, 'web', 'scripts', 'setup.mjs'), ...args], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/**
 * Configures the CMake build tree `dir` (relative to the root) unless it already is: later runs
 * build incrementally from its cache. `wrapper` (e.g. 'emcmake') runs cmake through it.
 */
export function configureOnce(run, dir, cmakeArgs, { wrapper = null, env = {} } = {}) {
  if (existsSync(join(root, dir, 'CMakeCache.txt'))) return;
  const argv = ['-S', '.', '-B', dir, ...cmakeArgs];
  if (wrapper) run(wrapper, ['cmake', ...argv], env);
  else run('cmake', argv, env);
}

/** Chromium as the tests and the browser benchmark launch it: Debian's build, and flags that
 * keep it off the (closed) network. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
