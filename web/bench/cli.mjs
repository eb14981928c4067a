// Node-side helpers shared by run-node.mjs and run-browser.mjs (argument parsing, machine line, printing).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FULL_SHAPES, QUICK_SHAPES } from './data.mjs';
import { formatTables, formatTargets } from './format.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function parseArgs(argv) {
  const a = {
    quick: false,
    json: null,
    writeResults: false,
    rounds: null,
    shapes: null,
    against: null,
    head: null,
    gate: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    if (k === '--quick') a.quick = true;
    else if (k === '--json') a.json = argv[++i];
    else if (k === '--write-results') a.writeResults = true;
    else if (k === '--rounds') a.rounds = Number(argv[++i]);
    else if (k === '--only') a.only = argv[++i];
    else if (k === '--shapes') a.shapes = argv[++i].split(',').map((s) => s.split('x').map(Number));
    else if (k === '--against') a.against = argv[++i];
    else if (k === '--head') a.head = argv[++i];
    else if (k === '--gate') a.gate = true;
    else if (k === '--processes') a.processes = Number(argv[++i]);
    else if (k === '--help' || k === '-h') {
      console.log(
        'usage: run-node.mjs [--quick] [--rounds N] [--shapes 1x768,1024x768] [--only REGEX] [--json out.json] [--write-results]\n' +
          '       run-node.mjs --against REF [--head REF] [--rounds N] [--only REGEX] [--json out.json]\n' +
          '       run-node.mjs --gate [--rounds N]   (against web/bench/BASELINE; exits 1 on a regression)',
      );
      process.exit(0);
    } else {
      console.error(`unknown argument ${k}`);
      process.exit(2);
    }
  }
  return a;
}

export function benchOptions(args) {
  const o = benchOptionsBase(args);
  if (args.shapes) o.shapes = args.shapes;
  if (args.only) o.only = args.only;
  return o;
}

function benchOptionsBase(args) {
  return args.quick
    ? { shapes: QUICK_SHAPES, rounds: args.rounds ?? 3, minMs: 5, targetMs: 8 }
    : { shapes: FULL_SHAPES, rounds: args.rounds ?? 13, minMs: 20, targetMs: 30 };
}

export function cpuModel() {
  try {
    const m = /^model name\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) return m[1].trim();
  } catch {}
  return os.cpus()[0]?.model ?? 'unknown CPU';
}

export function loadLine() {
  return `load average at start ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
}

export function machineLineNode() {
  return `CPU: ${cpuModel()}, ${os.cpus().length} cores; Node ${process.version}, V8 ${process.versions.v8}; ${os.platform()} ${os.arch()}; ${loadLine()}`;
}

export function printResult(res, title) {
  console.log(`\n## ${title}\n`);
  console.log(res.machine + '\n');
  console.log(formatTables(res));
  console.log(
    'Targets (paired per-round ratios: the median over rounds and its 95% interval; PASS or FAIL only when the whole interval is on one side; times are the medians):',
  );
  console.log(formatTargets(res));
}

/** Which layernorm-wasm build is measured: commit, working-tree state and dist/ timestamp (at load time). */
export function buildLine() {
  const wasm = path.join(repoRoot, 'dist/wasm/layernorm-simd.wasm');
  let commit = 'unknown commit';
  try {
    const git = (...a) =>
      execFileSync('git', a, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim();
    commit = `commit ${git('rev-parse', '--short', 'HEAD')}`;
    if (git('status', '--porcelain', '--', 'cpp', 'web/src')) commit += ' + uncommitted changes in cpp/ or web/src/';
  } catch {}
  const built = existsSync(wasm)
    ? `dist/ built ${statSync(wasm)
        .mtime.toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC')}`
    : 'dist/ not built';
  return `layernorm-wasm ${commit}, ${built}`;
}

/** The build line with the kernel each backend reported ({ simd: name, scalar: name }). */
export function buildWithKernels(build, kernels) {
  const list = Object.entries(kernels)
    .map(([b, k]) => `${b} = ${k}`)
    .join(', ');
  return `${build}; kernels: ${list}`;
}
