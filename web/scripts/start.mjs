#!/usr/bin/env node
// `npm start`: installs what is missing, builds the package, and serves the page with Vite on
// 127.0.0.1 (the URL is printed). Extra arguments go to Vite, e.g. `npm start -- --port 8080`.
//
// Stopping it: SIGINT, SIGTERM or SIGHUP, sent to this process or to npm, stop whichever step is
// running (the build with every compiler it started, or Vite), and this process exits 0 once that
// step has exited. npm runs scripts through `sh -c`, and Debian's sh does not pass signals on:
// package.json's start script therefore `exec`s this file. Should the parent die anyway (npm
// killed outright), this process notices and stops too.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { root } from './common.mjs';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let running = null; // { child, group }: the current step
let stopping = false;

function stop(signal) {
  if (stopping) return;
  stopping = true;
  if (!running) process.exit(0);
  try {
    // The build runs in its own process group, so cmake, make and the compilers stop with it.
    process.kill(running.group ? -running.child.pid : running.child.pid, signal);
  } catch {
    // Already gone: its 'exit' handler finishes.
  }
}
for (const signal of SIGNALS) process.on(signal, () => stop(signal));
const parent = process.ppid;
setInterval(() => process.ppid !== parent && stop('SIGTERM'), 500).unref();

/** Runs `node argv` and resolves with its exit code. */
function step(argv, { group }) {
  return new Promise((resolve) => {
    // The build reads no input, so it can leave the terminal's process group; Vite stays in it,
    // as it reads its keyboard shortcuts from the terminal.
    const child = spawn(process.execPath, argv, {
      cwd: root,
      stdio: group ? ['ignore', 'inherit', 'inherit'] : 'inherit',
      detached: group,
    });
    running = { child, group };
    child.on('exit', (code, signal) => {
      running = null;
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const built = await step(['web/scripts/build.mjs'], { group: true });
if (stopping) process.exit(0);
if (built !== 0) process.exit(built);

const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
const served = await step(
  [vite, '--config', 'web/page/vite.config.ts', '--host', '127.0.0.1', ...process.argv.slice(2)],
  { group: false },
);
process.exit(stopping ? 0 : served);
