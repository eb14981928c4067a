#!/usr/bin/env node
// Formatting check (or --fix): clang-format (Google style) for C++, prettier for TS/JS; then the
// code base's shape (structure.mjs: no source file over 600 lines, no import cycle), which no
// formatter can fix, so --fix leaves it to the check.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { root } from './common.mjs';
import { checkStructure } from './structure.mjs';

const fix = process.argv.includes('--fix');
const tracked = (patterns) =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...patterns], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);

// registry.inc is a list of macro calls, which clang-format would re-flow.
const cpp = tracked(['cpp/*.h', 'cpp/*.cc']);
execFileSync('clang-format', [fix ? '-i' : '--dry-run', ...(fix ? [] : ['-Werror']), ...cpp], {
  cwd: root,
  stdio: 'inherit',
});
const prettier = join(root, 'node_modules', 'prettier', 'bin', 'prettier.cjs');
execFileSync(process.execPath, [prettier, fix ? '--write' : '--check', 'web', 'tests', '*.ts', '*.json'], {
  cwd: root,
  stdio: 'inherit',
});
console.log(fix ? 'Formatted.' : 'Formatting is clean.');
if (!fix && !checkStructure(root)) process.exit(1);
