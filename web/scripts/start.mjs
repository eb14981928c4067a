#!/usr/bin/env node
// `npm start`: installs what is missing, builds the package, and serves the page with Vite on
// 127.0.0.1 (the URL is printed). Extra arguments go to Vite, e.g. `npm start -- --port 8080`.
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { root } from './common.mjs';

execFileSync(process.execPath, ['web/scripts/build.mjs'], { cwd: root, stdio: 'inherit' });

const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
const child = spawn(
  process.execPath,
  [vite, '--config', 'web/page/vite.config.ts', '--host', '127.0.0.1', ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit' },
);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
