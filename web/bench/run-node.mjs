#!/usr/bin/env node
// Node runner for the LayerNorm benchmark.
//
//   node web/bench/run-node.mjs [--quick] [--rounds N] [--json out.json] [--write-results]
//   node web/bench/run-node.mjs --against REF [--head REF] | --gate   (same-run A/B: ab/run.mjs)
//
// --quick          few rounds, small shapes only (smoke test, never assert times)
// --json FILE      also write the raw results as JSON
// --write-results  run the full Node benchmark, then the Chromium one (run-browser.mjs),
//                  and write web/bench/RESULTS.md
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { initBackends, initWorkerRuntime, loadOrtWeb, loadTfjsWasm } from './backends.mjs';
import { runBenchmark } from './benchmark.mjs';
import { createF32Stats } from './f32stats.mjs';
import { buildF32Stats } from './f32stats-build.mjs';
import { BIAS } from './forms.mjs';
import { formatTables, formatTargets } from './format.mjs';
import { referenceSpeed } from './reference-speed.mjs';
import {
  repoRoot,
  parseArgs,
  benchOptions,
  machineLineNode,
  printResult,
  buildLine,
  buildWithKernels,
} from './cli.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

// LAYERNORM_WASM_ENTRY overrides the built entry point (e.g. to benchmark another build).
const entry = process.env.LAYERNORM_WASM_ENTRY
  ? path.resolve(process.env.LAYERNORM_WASM_ENTRY)
  : path.join(repoRoot, 'dist/index.js');

async function loadLayerNormWasm(log) {
  if (!existsSync(entry)) throw new Error(`${entry} not found: the benchmark needs the built package (npm run build)`);
  return initBackends(await import(pathToFileURL(entry).href), log);
}

async function loadOrts(log) {
  const webDist = path.join(repoRoot, 'node_modules/onnxruntime-web/dist');
  const orts = [
    await loadOrtWeb(
      () => import(pathToFileURL(path.join(webDist, 'ort.wasm.min.mjs')).href),
      { key: 'ortweb', label: 'onnxruntime-web wasm, 1 thread' },
      log,
    ),
    await loadOrtWeb(
      () => import('onnxruntime-web'),
      { key: 'ortweb-default', label: "onnxruntime-web, default import 'onnxruntime-web'", variants: [BIAS] },
      log,
    ),
  ].filter(Boolean);
  let nativeKey = null;
  try {
    const ort = await import('onnxruntime-node');
    orts.push({
      key: 'ortnode',
      label: 'onnxruntime-node native CPU, 1 thread',
      ort,
      sessionOptions: {
        executionProviders: ['cpu'],
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
        executionMode: 'sequential',
      },
    });
    nativeKey = 'ortnode';
  } catch (e) {
    log(`NOTE: onnxruntime-node (native) unavailable, skipped: ${e?.message?.split('\n')[0] ?? e}`);
  }
  return { orts, nativeKey };
}

function exposeGc() {
  if (process.env.BENCH_NO_GC) return null;
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  try {
    v8.setFlagsFromString('--expose-gc');
    return vm.runInNewContext('gc');
  } catch {
    return null;
  }
}

export async function runNode(args, log = (s) => console.log(s)) {
  const machine = machineLineNode();
  log(machine);
  // First, so that a missing em++ stops the run before anything else has loaded.
  const f32stats = await createF32Stats(readFileSync(buildF32Stats(log)));
  const build = buildLine();
  const lnw = await loadLayerNormWasm(log);
  const workerEntry = pathToFileURL(path.join(path.dirname(entry), 'worker', 'index.js')).href;
  const lnwWorker = lnw ? await initWorkerRuntime(() => import(workerEntry), log) : null;
  const { orts, nativeKey } = await loadOrts(log);
  const tf = await loadTfjsWasm(
    () => import('@tensorflow/tfjs-core'),
    () => import('@tensorflow/tfjs-backend-wasm'),
    path.join(repoRoot, 'node_modules/@tensorflow/tfjs-backend-wasm/dist') + path.sep,
    log,
  );
  const opts = benchOptions(args);
  log(`${args.quick ? 'quick' : 'full'} mode: ${opts.shapes.length} shapes, ${opts.rounds} rounds`);
  const t0 = performance.now();
  const res = await runBenchmark(
    {
      lnw,
      lnwWorker,
      orts,
      tf,
      f32stats,
      gc: exposeGc(),
      nativeKey,
      ortRefKey: 'ortweb',
      ortRefLabel: 'onnxruntime-web',
      log,
    },
    opts,
  );
  lnwWorker?.dispose();
  res.env = 'node';
  res.machine = machine;
  res.mode = args.quick ? 'quick' : 'full';
  res.kernels = Object.fromEntries(Object.entries(lnw).map(([b, rt]) => [b, rt.kernel]));
  res.build = buildWithKernels(build, res.kernels);
  res.seconds = (performance.now() - t0) / 1000;
  return res;
}

function toJson(res) {
  return JSON.stringify(res, (k, v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v), 2);
}

export function resultsMarkdown(nodeRes, browserRes, abTables = [], when = new Date()) {
  const date = when
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
  const out = [];
  out.push('# LayerNorm benchmark results', '');
  // The command that produced the file (without --json FILE, which only adds a side output).
  const argv = process.argv.slice(2);
  const j = argv.indexOf('--json');
  if (j >= 0) argv.splice(j, 2);
  const cmd = ['npm run bench --', ...argv].join(' ');
  out.push(`Generated ${date} by \`${cmd}\`.`, '');
  out.push(
    'Method: every candidate is checked against the package’s correctly rounded reference first (max abs error shown; a candidate over ' +
      '1e-4 is reported WRONG and not timed). Each sample lasts ~20–50 ms (iterations calibrated per candidate), ' +
      'candidates are interleaved within each round with a rotating order, and the table shows the median over ' +
      'the rounds. GB/s counts bytes in + bytes out (2 × rows × d × 4). "× memcpy" is relative to a wasm ' +
      '`memory.copy` of the same bytes, "× ort-web" to onnxruntime-web 1.30 (`ort.wasm.min.mjs`, wasm backend, ' +
      '1 thread, LayerNormalization opset 17, γ/β as initializers) for the same variant. ' +
      'The float32-statistics limit is the same LayerNorm with one-pass float32 sums in wasm SIMD128: a floor that ' +
      'does less arithmetic and gives up accuracy on rows with large offsets, not a peer (web/bench/README.md). ' +
      'Target lines use paired ratios: per round, candidate A’s sample over candidate B’s sample from the same round, ' +
      'then the median over rounds (robust to load changing between rounds), with a 95% confidence interval of that median ' +
      '(order statistics); the times shown beside them are the medians. A line says PASS or FAIL only when the whole ' +
      'interval is on one side of its target, and UNSURE when the interval straddles it. ' +
      'The variant ratios (rmsNorm, mean/rstd, the fused residual, float16 and bfloat16 against the plain call) ' +
      'come from a paired measurement of their own, as the A/B above: 21 rounds of 9 back-to-back pairs of ~1 ms ' +
      'samples, each side’s fastest per round. ' +
      'A first round warms up and is not kept. ' +
      'A full GC runs before each sample, and 30 ms for the freeing to finish, outside the timed region. ' +
      'Bias-free = γ given, β omitted. Ratios are the numbers to compare; absolute times drift between runs.',
    '',
  );
  if (abTables.length) {
    out.push('## Against earlier builds (Node, same run)', '');
    out.push(...abTables, '');
  }
  for (const [title, r] of [
    ['Node', nodeRes],
    ['Chromium (headless)', browserRes],
  ]) {
    out.push(`## ${title}`, '');
    if (!r) {
      out.push('Not run (see runner output).', '');
      continue;
    }
    out.push(`Machine: ${r.machine}`, '');
    out.push(`Build: ${r.build}`, '');
    out.push(`Rounds per shape: ${r.rounds ?? ''} — total ${r.seconds.toFixed(0)} s`, '');
    out.push(formatTables(r));
    out.push('### Targets', '');
    out.push('```');
    out.push(formatTargets(r));
    out.push('```', '');
  }
  return out.join('\n');
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const args = parseArgs(process.argv.slice(2));
  if (args.against || args.gate) {
    const { runAbMain } = await import('./ab/run.mjs');
    process.exit(await runAbMain(args));
  }
  if (args.head) {
    console.error('--head needs --against REF (or --gate)');
    process.exit(2);
  }
  if (args.writeResults && args.quick) {
    console.error('--write-results needs a full run; drop --quick');
    process.exit(2);
  }
  const t0 = performance.now();
  const nodeRes = await runNode(args);
  nodeRes.rounds = benchOptions(args).rounds;
  printResult(nodeRes, 'Node');
  console.log(await referenceSpeed(await import(pathToFileURL(entry).href), { quick: args.quick, gc: exposeGc() }));
  let browserRes = null;
  if (args.writeResults) {
    const { runBrowser } = await import('./run-browser.mjs');
    try {
      browserRes = await runBrowser(args);
      printResult(browserRes, 'Chromium (headless)');
    } catch (e) {
      console.error(`Chromium run failed: ${e?.stack ?? e}`);
    }
    // The same-run A/B against the baseline and against 232e1e5 (the build before issue 19's
    // regression), as `npm run bench -- --against <ref>` prints it: once when they are one commit.
    const { runAb, baselineRef } = await import('./ab/run.mjs');
    const { formatAb } = await import('./ab/format.mjs');
    const abTables = [];
    const baseline = baselineRef();
    for (const ref of baseline.startsWith('232e1e5') ? [baseline] : [baseline, '232e1e5']) {
      try {
        abTables.push(formatAb(await runAb({ against: ref })));
      } catch (e) {
        abTables.push(`The A/B against ${ref} could not run: ${e?.message ?? e}`);
      }
    }
    const file = path.join(here, 'RESULTS.md');
    writeFileSync(file, resultsMarkdown(nodeRes, browserRes, abTables));
    console.log(`\nwrote ${path.relative(process.cwd(), file)}`);
  }
  if (args.json) {
    writeFileSync(args.json, toJson(browserRes ? { node: nodeRes, chromium: browserRes } : nodeRes));
    console.log(`wrote ${args.json}`);
  }
  console.log(`total ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  // onnxruntime keeps handles open; exit explicitly.
  process.exit(0);
}
