#!/usr/bin/env node
// `npm run fuzz:native`: the libFuzzer target cpp/tests/operator_fuzz.cc (clang, with ASan and
// UBSan; the core library is coverage-instrumented). First replays every saved reproducer in
// cpp/tests/fuzz_regressions/, then fuzzes, keeping its corpus in build/fuzz/corpus.
//   default       10 minutes (-max_total_time=600)
//   --ci          200,000 inputs (-runs=200000), for CI
//   --time S      S seconds;  --runs N  N inputs;  --clean  reconfigure build/fuzz
// A crash leaves its input in build/fuzz/artifacts/; copy it to cpp/tests/fuzz_regressions/.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { configureOnce, option, root, runner } from './common.mjs';

const args = process.argv.slice(2);
const dir = join(root, 'build', 'fuzz');
const sanitizerEnv = {
  ASAN_OPTIONS: 'detect_leaks=1:halt_on_error=1',
  UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
};
const run = runner(sanitizerEnv, { echo: true });

if (args.includes('--clean')) rmSync(dir, { recursive: true, force: true });
try {
  configureOnce(run, 'build/fuzz', [
    '-DCMAKE_CXX_COMPILER=clang++',
    '-DCMAKE_BUILD_TYPE=RelWithDebInfo',
    '-DLAYERNORM_FUZZ=ON',
    '-DLAYERNORM_BUILD_TESTS=OFF',
  ]);
  run('cmake', ['--build', 'build/fuzz', '-j2', '--target', 'layernorm_fuzz']);
} catch (error) {
  console.error(`fuzz:native: build failed (${error.status ?? error.message})`);
  process.exit(1);
}

const binary = join(dir, 'layernorm_fuzz');
const regressions = join(root, 'cpp', 'tests', 'fuzz_regressions');
const saved = existsSync(regressions)
  ? readdirSync(regressions)
      .filter((f) => !f.startsWith('.') && !f.endsWith('.md'))
      .map((f) => join(regressions, f))
  : [];
if (saved.length > 0) {
  console.log(`\n== replaying ${saved.length} saved reproducer(s) ==`);
  const replay = spawnSync(binary, saved, { cwd: root, stdio: 'inherit', env: { ...process.env, ...sanitizerEnv } });
  if (replay.status !== 0) {
    console.error('fuzz:native: a saved reproducer fails again');
    process.exit(1);
  }
}

const corpus = join(dir, 'corpus');
const artifacts = join(dir, 'artifacts') + '/';
mkdirSync(corpus, { recursive: true });
mkdirSync(artifacts, { recursive: true });
const limit = args.includes('--ci')
  ? ['-runs=200000']
  : option(args, '--runs')
    ? [`-runs=${Number(option(args, '--runs'))}`]
    : [`-max_total_time=${Number(option(args, '--time') ?? 600)}`];
const flags = [
  ...limit,
  '-max_len=1400',
  '-timeout=10',
  '-rss_limit_mb=2048',
  '-print_final_stats=1',
  `-artifact_prefix=${artifacts}`,
  corpus,
];
console.log(`\n== fuzzing: ${binary} ${flags.join(' ')} ==`);
const started = Date.now();
const result = spawnSync(binary, flags, { cwd: root, stdio: 'inherit', env: { ...process.env, ...sanitizerEnv } });
const seconds = ((Date.now() - started) / 1000).toFixed(0);
if (result.status !== 0) {
  console.error(`\nfuzz:native: FINDING after ${seconds} s; the input is in ${artifacts}`);
  process.exit(1);
}
console.log(`\nfuzz:native: no findings in ${seconds} s`);
