// Node only: the same-run A/B between this checkout's package and another commit's, and the CI gate
// on it (web/bench/README.md, "Same-run A/B and the gate").
//
//   npm run bench -- --against <ref> [--head <ref>] [--rounds N] [--processes P] [--only REGEX] [--json FILE]
//   npm run bench -- --gate [--against <ref>] [--head <ref>]
//                                (against web/bench/BASELINE, or <ref>; exits 1 on a regression)
//
// Both packages are loaded in one process and every call is timed in both, interleaved pair by
// pair (ab/paired.mjs); a row is the median of the per-round ratios HEAD / ref. Identical builds
// measured this way still differ by up to ~4% on the JavaScript-heavy one-row calls within one
// process, the same way every round (where each build's code and data happen to land), and by a
// different amount in the next process; so each measurement runs in several processes, loading the
// two builds in alternating order, and pools their rounds. Ratios, never times.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildF32Stats } from '../f32stats-build.mjs';
import { buildLine, machineLineNode, repoRoot } from '../cli.mjs';
import { abCalls } from './calls.mjs';
import { formatAb } from './format.mjs';
import { gate, summarize } from './paired.mjs';
import { buildCommit, CannotBuildError } from './scratch-build.mjs';

/** A regression the gate does not let through: the median paired ratio HEAD / baseline over this. */
export const GATE_LIMIT = 1.05;
export const BASELINE_FILE = path.join(repoRoot, 'web', 'bench', 'BASELINE');
/** The pause before the gate's third measurement of a row over the limit. */
const CONFIRM_PAUSE_MS = 30_000;
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'child.mjs');

/** The baseline commit: the first line of web/bench/BASELINE that is not a comment. */
export function baselineRef() {
  const line = readFileSync(BASELINE_FILE, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith('#'));
  if (!line) throw new CannotBuildError(`${path.relative(repoRoot, BASELINE_FILE)} names no commit`);
  return line;
}

/**
 * `processes` measurements (ab/child.mjs), one after the other, the first loading HEAD first and
 * the next the other way round: per call id, all their rounds' ratios, or why a build lacks it.
 */
function measureInProcesses(spec, processes, log) {
  const pooled = { calls: {}, limit: [] };
  for (let p = 0; p < processes; p++) {
    const arg = JSON.stringify({ ...spec, headFirst: p % 2 === 0 });
    const r = spawnSync(process.execPath, ['--expose-gc', CHILD, arg], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 64 << 20,
    });
    if (r.status !== 0) throw new Error(`the A/B measurement process exited with ${r.status}`);
    const res = JSON.parse(r.stdout.toString());
    for (const [id, c] of Object.entries(res.calls)) {
      const into = (pooled.calls[id] ??= { ratios: [] });
      if (c.missing) Object.assign(into, { missing: c.missing, why: c.why });
      else into.ratios.push(...c.ratios);
    }
    if (res.limit) pooled.limit.push(...res.limit);
    log(`  measurement ${p + 1} of ${processes} done`);
  }
  return pooled;
}

/**
 * args: { against?, head?, gate, rounds?, processes?, only?, quick? }. Returns what formatAb
 * prints: { machine, head, ref, rounds, processes, rows, limit, failed }.
 */
export async function runAb(args, log = (s) => console.log(s)) {
  const machine = machineLineNode();
  log(machine);
  // The gate holds HEAD to web/bench/BASELINE unless told another commit (--against).
  const ref = buildCommit(args.against ?? baselineRef(), log);
  let head;
  if (args.head) {
    const h = buildCommit(args.head, log);
    head = { label: `${h.sha.slice(0, 7)} (${h.subject})`, entry: h.entry };
  } else {
    const entry = process.env.LAYERNORM_WASM_ENTRY
      ? path.resolve(process.env.LAYERNORM_WASM_ENTRY)
      : path.join(repoRoot, 'dist', 'index.js');
    head = { label: buildLine(), entry };
  }
  const only = args.only ? new RegExp(args.only) : null;
  const calls = abCalls().filter((c) => (!only || only.test(c.id)) && (!args.gate || c.gated));
  const rounds = args.rounds ?? (args.quick ? 9 : 21);
  const processes = args.processes ?? (args.quick ? 1 : 4);
  const spec = {
    head: head.entry,
    ref: ref.entry,
    ids: calls.map((c) => c.id),
    rounds,
    f32stats: args.gate ? null : buildF32Stats(log),
  };
  log(`HEAD: ${head.label}`);
  log(`ref:  ${ref.sha.slice(0, 7)} (${ref.subject})`);
  const pooled = measureInProcesses(spec, processes, log);
  let rows = calls.map((c) => {
    const m = pooled.calls[c.id];
    const row = { id: c.id, label: c.label, rows: c.rows, d: c.d, gated: args.gate && c.gated };
    return m.missing ? { ...row, missing: m.missing, why: m.why } : { ...row, ratios: m.ratios };
  });
  let failed = false;
  if (args.gate) {
    const remeasure = (ids) => {
      const again = measureInProcesses({ ...spec, ids, rounds: 2 * rounds }, processes, log);
      return Object.fromEntries(ids.map((id) => [id, again.calls[id].ratios]));
    };
    const measureAgain = (ids) => {
      log(`measuring again: ${ids.join(', ')}`);
      return remeasure(ids);
    };
    // The third measurement (gate(), ab/paired.mjs) starts after a pause, so that a machine still
    // busy with what ran before (CI's fuzzers) has settled.
    const confirm = async (ids) => {
      log(`over the limit twice; measuring a third time after ${CONFIRM_PAUSE_MS / 1000} s: ${ids.join(', ')}`);
      await new Promise((r) => setTimeout(r, CONFIRM_PAUSE_MS));
      return remeasure(ids);
    };
    ({ rows, failed } = await gate(rows, measureAgain, GATE_LIMIT, confirm));
  } else {
    rows = rows.map((r) => (r.missing ? r : { ...r, ...summarize(r.ratios) }));
  }
  for (const r of rows) delete r.ratios;
  const limit = pooled.limit.length ? { rows: 1024, d: 768, ...summarize(pooled.limit) } : null;
  return {
    machine,
    head: head.label,
    ref: { sha: ref.sha, subject: ref.subject },
    rounds,
    processes,
    rows,
    limit,
    gate: args.gate ? GATE_LIMIT : null,
    failed,
  };
}

/** The runner's entry (run-node.mjs): prints the table; the exit status (gate: 1 on a regression). */
export async function runAbMain(args) {
  let res;
  try {
    res = await runAb(args);
  } catch (e) {
    if (e instanceof CannotBuildError) {
      console.error(`\nThe A/B cannot run: ${e.message}`);
      return 2;
    }
    throw e;
  }
  console.log(`\n${formatAb(res)}`);
  if (args.json) {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(args.json, JSON.stringify(res, null, 2));
    console.log(`wrote ${args.json}`);
  }
  if (args.gate) {
    console.log(
      res.failed
        ? `\nGATE FAILED: a gated call is more than ${Math.round((GATE_LIMIT - 1) * 100)}% slower than the baseline (rows marked FAIL)`
        : '\nGate passed.',
    );
    return res.failed ? 1 : 0;
  }
  return 0;
}
