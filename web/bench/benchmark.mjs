// The benchmark run shared by the Node runner (run-node.mjs) and the Chromium page (page.mjs): per
// shape, every candidate is checked against the package's correctly rounded reference, then the correct ones are timed;
// the results carry the ratios to memcpy and onnxruntime-web, and the target lines.
// Browser-compatible ES modules throughout: no Node built-ins, no bare imports. Everything
// environment-specific (the layernorm-wasm runtimes, onnxruntime modules, machine line) is passed in
// by the runner (backends.mjs loads them).

import { buildCandidates } from './candidates.mjs';
import { EPS, TOLERANCE, makeData, maxAbsError } from './data.mjs';
import { BIAS, NO_BIAS, VARIANT_LABEL } from './forms.mjs';
import { fmtErr } from './format.mjs';
import { createMemcpy } from './memcpy.mjs';
import { evaluateTargets } from './targets.mjs';
import { now, timeCandidates, timeIters } from './timing.mjs';
import { measureVariantPairs } from './variant-pairs.mjs';

/**
 * Fills row.maxErr, row.ok and row.error for candidate c: its output against `expected` (the copy
 * limits, marked exact, against x itself, bit for bit).
 */
async function check(c, row, x, expected) {
  try {
    let out;
    if (c.verify) out = await c.verify();
    else {
      await timeIters(c, 2);
      out = c.result();
    }
    if (c.exact) {
      let same = out && out.length === x.length;
      for (let i = 0; same && i < out.length; i++) if (out[i] !== x[i]) same = false;
      row.maxErr = same ? 0 : Infinity;
    } else {
      row.maxErr = maxAbsError(out, expected());
    }
    const tolerance = c.tolerance ?? TOLERANCE;
    row.ok = row.maxErr <= tolerance;
    if (!row.ok) row.error = `WRONG: max abs error ${fmtErr(row.maxErr)} > ${tolerance}`;
  } catch (e) {
    row.error = `FAILED: ${e?.message ?? e}`;
  }
}

/**
 * Runs the whole benchmark. opts = { shapes, rounds, minMs, targetMs, only? }.
 * Returns { shapes: [{ rows, d, bytes, candidates: [...] }], targets: [...] }.
 */
export async function runBenchmark(env, opts) {
  const log = env.log ?? (() => {});
  // Every candidate is checked against the package's correctly rounded reference, so the package must load.
  env = { ...env, pkg: env.lnw?.pkg };
  if (!env.pkg) throw new Error('the benchmark needs the built package (dist/): run `npm run build` first');
  const { shapes, rounds = 11, minMs = 20, targetMs = 30 } = opts;
  if (!env.memcpy) env.memcpy = await createMemcpy();
  const sessionCache = new Map();
  const results = [];
  for (const [rows, d] of shapes) {
    const t0 = now();
    const data = makeData(rows, d);
    const refs = {
      [BIAS]: env.pkg.layerNormReference(data.x, d, { gamma: data.gamma, beta: data.beta, eps: EPS }),
      [NO_BIAS]: env.pkg.layerNormReference(data.x, d, { gamma: data.gamma, eps: EPS }),
    };
    const built = await buildCandidates(env, rows, d, data, sessionCache);
    // Candidates that compute something else than LayerNorm(x) name their own oracle (computed once).
    const reference = (key) => {
      if (!(key in refs)) refs[key] = built.references[key]();
      return refs[key];
    };
    // opts.only: a RegExp source matched against candidate ids (the memcpy and float32-statistics
    // limits, which the ratios and targets are relative to, are always kept).
    const only = opts.only ? new RegExp(opts.only) : null;
    const keep = new Set(['limit:memcpy', 'limit:f32stats']);
    const candidates = only ? built.candidates.filter((c) => keep.has(c.id) || only.test(c.id)) : built.candidates;
    const rowsOut = [];
    const live = [];
    // Correctness first: every candidate against the package's correctly rounded reference (memcpy/slice: exact copy).
    for (const c of candidates) {
      const row = { id: c.id, name: c.name, variant: c.variant, maxErr: null, ok: false, error: null };
      rowsOut.push(row);
      await check(c, row, data.x, () => (c.reference ? reference(c.reference) : refs[c.variant]));
      if (row.ok) live.push({ c, row });
      else log(`  [${rows}x${d}] ${c.name} (${VARIANT_LABEL[c.variant]}): ${row.error} — not timed`);
    }
    await timeCandidates(live, { rounds, minMs, targetMs, gc: env.gc });
    const paired = await measureVariantPairs(live, rows, d, env.gc);
    built.cleanup();
    const bytes = 2 * rows * d * 4;
    const byId = Object.fromEntries(rowsOut.map((r) => [r.id, r]));
    const memcpy = byId['limit:memcpy']?.median;
    for (const r of rowsOut) {
      if (r.median == null) continue;
      r.gbps = bytes / (r.median * 1e6);
      r.xMemcpy = memcpy ? r.median / memcpy : null;
      const ortRef = byId[`${env.ortRefKey}:${r.variant === '-' ? BIAS : r.variant}`]?.median;
      r.xOrt = ortRef ? r.median / ortRef : null;
    }
    results.push({ rows, d, bytes, candidates: rowsOut, paired });
    log(`  [${rows}x${d}] done in ${((now() - t0) / 1000).toFixed(1)} s (${rounds} rounds)`);
  }
  return { shapes: results, targets: evaluateTargets(results, env) };
}
