#!/usr/bin/env node
// `npm run fuzz`: property-based fuzzing of the built package (dist/) with fast-check: the
// numeric API with arguments of every type, SIMD vs scalar vs the exact oracle on random shapes
// and values and on the test kit's hard rows, and the I/O parsers on arbitrary and mutated bytes (tests/fuzz/targets/).
// Runs 1,000,000 generated inputs in total by default and prints the count per target.
//   --budget N   total inputs (default 1000000), split over the targets by weight
//   --seed S     base seed (default: time-based; printed, so a failure can be replayed)
//   --only a,b   run only these targets
// Exit status 1 on any failure, with the shrunk counterexample and the seed to replay it.
import fc from 'fast-check';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { option, root } from './common.mjs';

if (!existsSync(join(root, 'dist', 'index.js'))) {
  console.error('fuzz: dist/ is missing; run `npm run build` first');
  process.exit(1);
}
const { setup, targets } = await import(pathToFileURL(join(root, 'tests', 'fuzz', 'targets', 'index.mjs')).href);

const args = process.argv.slice(2);
const budget = Number(option(args, '--budget') ?? 1_000_000);
if (!Number.isInteger(budget) || budget < 1) {
  console.error(`fuzz: --budget must be a positive integer, got ${option(args, '--budget')}`);
  process.exit(2);
}
const seed = Number(option(args, '--seed') ?? Date.now() % 2 ** 31);
const only = option(args, '--only')?.split(',');

// Share of the budget per target (cheap targets get more inputs).
const WEIGHTS = {
  api: 40,
  differential: 15,
  'io-npy': 10,
  'io-json': 10,
  'io-text': 10,
  'io-safetensors': 5,
  'io-gguf': 5,
  'io-weights-npy': 5,
  exact: 10,
  'io-onnx': 5,
  // A climb is 48 exact evaluations and a worker call: ~200 of them per 50,000 inputs of budget.
  adversarial: 0.2,
};

const ctx = await setup();
const all = targets(ctx);
const list = all.filter((t) => !only || only.includes(t.name));
const totalWeight = list.reduce((s, t) => s + (WEIGHTS[t.name] ?? 5), 0);
console.log(`fuzz: seed ${seed}, budget ${budget.toLocaleString('en')} inputs over ${list.length} targets`);

let total = 0,
  failed = false;
const started = performance.now();
for (const t of list) {
  const runs = Math.max(1, Math.round((budget * (WEIGHTS[t.name] ?? 5)) / totalWeight));
  const t0 = performance.now();
  const params = { seed: seed + all.indexOf(t), numRuns: runs, endOnFailure: false };
  const result = t.async ? await fc.check(t.property(), params) : fc.check(t.property(), params);
  const seconds = ((performance.now() - t0) / 1000).toFixed(1);
  total += result.numRuns;
  if (result.failed) {
    failed = true;
    console.log(`  ${t.name.padEnd(16)} FAILED after ${result.numRuns.toLocaleString('en')} inputs (${seconds} s)`);
    console.log(
      `    ${result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)}`,
    );
    console.log(`    counterexample: ${fc.stringify(result.counterexample).slice(0, 2000)}`);
    console.log(`    replay: node web/scripts/fuzz.mjs --only ${t.name} --seed ${seed} --budget ${budget}`);
  } else {
    console.log(`  ${t.name.padEnd(16)} ${result.numRuns.toLocaleString('en').padStart(9)} inputs  ok  (${seconds} s)`);
  }
  if (t.summary) console.log(`    ${t.summary()}`);
  t.close?.();
}
const seconds = ((performance.now() - started) / 1000).toFixed(0);
console.log(
  `fuzz: ${total.toLocaleString('en')} inputs in total, ${failed ? 'FAILURES' : 'no failures'} (${seconds} s)`,
);
process.exit(failed ? 1 : 0);
