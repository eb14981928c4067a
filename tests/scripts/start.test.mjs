// `npm start` stops cleanly: SIGTERM or SIGINT sent to npm (as a service manager, a script or CI
// sends it) ends npm, web/scripts/start.mjs and everything it started, and frees the port, both
// while the build runs and while Vite serves. Run by `npm test` with node's test runner, after the
// other suites: it rebuilds dist/ (the serving cases leave it complete).
//
// Linux only: the process tree is read from /proc.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

const root = join(import.meta.dirname, '..', '..');
const linux = existsSync('/proc/self/stat');

/** Every live process started, directly or not, by `pid` (read from /proc). */
function descendants(pid) {
  const children = new Map();
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  const out = [];
  const walk = (p) => (children.get(p) ?? []).forEach((c) => (out.push(c), walk(c)));
  walk(pid);
  return out;
}

function alive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const accepts = (port) =>
  new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/**
 * Starts `npm start` on a free port, waits until `ready(output)` holds, records its process tree,
 * sends `signal` to npm, and returns what was left: npm's exit, the tree's survivors, the port.
 * A bound on every wait turns a hang into a failure, not a stuck test run; whatever way it ends,
 * nothing it started outlives it (a survivor would keep the test runner, and CI, waiting).
 */
async function startAndStop(signal, ready) {
  const port = await freePort();
  const npm = spawn('npm', ['start', '--', '--port', String(port), '--strictPort'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout.on('data', (d) => (output += d));
  npm.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => npm.on('exit', (code, sig) => resolve({ code, signal: sig })));
  let tree = [];
  try {
    for (let waited = 0; !ready(output, port); waited += 100) {
      if (waited > 240_000 || npm.exitCode !== null) throw new Error(`npm start never got ready:\n${output}`);
      await sleep(100);
    }
    tree = descendants(npm.pid);
    assert.ok(tree.length >= 2, `npm should have started sh/node children, found ${tree.length}`);
    npm.kill(signal);

    const exit = await Promise.race([exited, sleep(60_000, null, { ref: false })]);
    assert.notEqual(exit, null, `npm did not exit within 60 s of ${signal}:\n${output}`);
    // Children may take a moment after npm itself to finish their own exit.
    for (let waited = 0; tree.some(alive) && waited < 30_000; waited += 100) await sleep(100);
    return { exit, survivors: tree.filter(alive), portOpen: await accepts(port), output };
  } finally {
    for (const pid of [npm.pid, ...tree, ...descendants(npm.pid)]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    npm.stdout.destroy();
    npm.stderr.destroy();
  }
}

// Vite colours its banner whenever CI is set, even into a pipe: read the text without the codes.
const plain = (output) => output.replace(/\x1b\[[0-9;]*m/g, '');
const serving = (output, port) => plain(output).includes(`http://127.0.0.1:${port}/`);
const building = (output) => /Built target|Building CXX|Linking CXX|\[\s*\d+%\]/.test(output);

test(
  'SIGTERM while the build runs stops npm, start.mjs, the build and its compilers',
  { skip: !linux && 'needs /proc' },
  async () => {
    const { survivors, output } = await startAndStop('SIGTERM', building);
    assert.deepEqual(survivors, [], `still running after SIGTERM:\n${output}`);
  },
);

for (const signal of ['SIGTERM', 'SIGINT']) {
  test(
    `${signal} while Vite serves stops npm, start.mjs and Vite, and frees the port`,
    { skip: !linux && 'needs /proc' },
    async () => {
      const { exit, survivors, portOpen, output } = await startAndStop(signal, serving);
      assert.deepEqual(survivors, [], `still running after ${signal}:\n${output}`);
      assert.equal(portOpen, false, `the port still accepts connections after ${signal}`);
      assert.ok(exit.code === 0 || exit.signal === signal, `npm ended with ${JSON.stringify(exit)}`);
    },
  );
}
