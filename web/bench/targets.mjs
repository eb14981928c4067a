// Target lines: the speed goals as paired ratios between candidates, each PASS, FAIL or N/A. The
// targets for the operations around the norm are norm-candidates.mjs's normTargets.

import { BIAS, NO_BIAS, VARIANTS, VARIANT_LABEL } from './forms.mjs';
import { fmtTime } from './format.mjs';
import { normTargets } from './norm-candidates.mjs';
import { quantile } from './timing.mjs';

function cand(results, rows, d, id) {
  const s = results.find((r) => r.rows === rows && r.d === d);
  return s?.candidates.find((c) => c.id === id && c.median != null) ?? null;
}

// median time (ms) of candidate `id` at shape rows×d, or null
function med(results, rows, d, id) {
  return cand(results, rows, d, id)?.median ?? null;
}

/**
 * Ratio a/b for target lines: the median over rounds of a's sample / b's sample in the same round
 * (paired, so load changes between rounds cancel out); falls back to the ratio of medians.
 */
function pairedRatio(results, rows, d, a, b) {
  const ca = cand(results, rows, d, a);
  const cb = cand(results, rows, d, b);
  if (!ca || !cb) return null;
  const n = Math.min(ca.samples?.length ?? 0, cb.samples?.length ?? 0);
  if (!n) return ca.median / cb.median;
  const r = [];
  for (let i = 0; i < n; i++) r.push(ca.samples[i] / cb.samples[i]);
  r.sort((p, q) => p - q);
  return quantile(r, 0.5);
}

export function evaluateTargets(results, env) {
  const T = [];
  const ortKey = env.ortRefKey;
  const ortLabel = env.ortRefLabel ?? 'onnxruntime-web';
  const add = (label, value, limit, fmt, cmp = '≤', detail = '') => {
    if (value == null || !Number.isFinite(value)) {
      T.push({ label, status: 'N/A', text: `N/A   ${label}: not measured` });
      return;
    }
    const pass = cmp === '≤' ? value <= limit : value >= limit;
    let shown = fmt(value);
    if (shown === fmt(limit) && value !== limit) shown = fmt(value, 5); // don't print "0.300× (≤ 0.300×)" for a FAIL
    T.push({
      label,
      status: pass ? 'PASS' : 'FAIL',
      value,
      limit,
      text: `${pass ? 'PASS' : 'FAIL'}  ${label}: ${shown} (target ${cmp} ${fmt(limit)})${detail ? ` — ${detail}` : ''}`,
    });
  };
  const x = (v, digits = 3) => `${v.toFixed(digits)}×`;
  // Ratio a/b of two candidates' medians, with the times as detail.
  const cmpRatio = (label, shape, a, b, limit, cmp = '≤', invert = false) => {
    const ta = med(results, shape[0], shape[1], a);
    const tb = med(results, shape[0], shape[1], b);
    const v = invert ? pairedRatio(results, shape[0], shape[1], b, a) : pairedRatio(results, shape[0], shape[1], a, b);
    add(label, v, limit, x, cmp, v != null ? `${fmtTime(ta)} vs ${fmtTime(tb)}` : '');
  };

  cmpRatio(`[1024×768] caller out vs ${ortLabel}`, [1024, 768], `lnw-simd:out:${BIAS}`, `${ortKey}:${BIAS}`, 0.15);
  if (env.nativeKey)
    cmpRatio(
      '[1024×768] caller out vs native onnxruntime-node',
      [1024, 768],
      `lnw-simd:out:${BIAS}`,
      `${env.nativeKey}:${BIAS}`,
      0.6,
    );
  cmpRatio(`[1024×768] new Float32Array vs ${ortLabel}`, [1024, 768], `lnw-simd:new:${BIAS}`, `${ortKey}:${BIAS}`, 0.3);
  cmpRatio(
    '[1024×768] zero-copy resident vs wasm memory.copy',
    [1024, 768],
    `lnw-simd:zerocopy:${BIAS}`,
    'limit:memcpy',
    1.6,
  );
  cmpRatio(
    '[16384×768] zero-copy resident vs wasm memory.copy',
    [16384, 768],
    `lnw-simd:zerocopy:${BIAS}`,
    'limit:memcpy',
    1.25,
  );
  // Against the float32-statistics kernel (limit:f32stats): the same loads and stores, and 8 float
  // additions per 8 floats (its pipes' bottleneck on the AMD EPYC measured) where the float64 sums
  // make ours 14, and 4 float→double conversions more. Issue 19 asks for 1.10×; the float64
  // statistics alone measured 1.39× in a loop of their own (web/bench/README.md, "Where the time
  // goes"), which is where the kernel stands.
  for (const [shape, limit] of [
    [[1024, 768], 1.1],
    [[16384, 768], 1.1],
  ])
    cmpRatio(
      `[${shape[0]}×${shape[1]}] zero-copy resident vs float32-statistics kernel`,
      shape,
      `lnw-simd:zerocopy:${BIAS}`,
      'limit:f32stats',
      limit,
    );
  cmpRatio(
    '[1024×768] worker round trip (transfer) vs main-thread caller out',
    [1024, 768],
    `lnw-worker:transfer:${BIAS}`,
    `lnw-simd:out:${BIAS}`,
    2,
  );
  const out1 = med(results, 1, 768, `lnw-simd:out:${BIAS}`);
  add(
    '[1×768] caller out time per call',
    out1 != null ? out1 * 1000 : null,
    1.5,
    (v, digits = 3) => `${v.toFixed(digits)} µs`,
  );
  cmpRatio(
    `[1×768] caller out vs ${ortLabel} (1/30 = 0.033×)`,
    [1, 768],
    `lnw-simd:out:${BIAS}`,
    `${ortKey}:${BIAS}`,
    1 / 30,
  );

  normTargets(cmpRatio);

  // Bias-free within 10% of gain+bias: worst shape, caller out and zero-copy.
  for (const [api, label] of [
    ['out', 'caller out'],
    ['zerocopy', 'zero-copy'],
  ]) {
    let worst = null;
    let where = '';
    for (const s of results) {
      const a = med(results, s.rows, s.d, `lnw-simd:${api}:${NO_BIAS}`);
      const b = med(results, s.rows, s.d, `lnw-simd:${api}:${BIAS}`);
      const r = pairedRatio(results, s.rows, s.d, `lnw-simd:${api}:${NO_BIAS}`, `lnw-simd:${api}:${BIAS}`);
      if (r != null && (worst == null || r > worst)) {
        worst = r;
        where = `${s.rows}×${s.d}: ${fmtTime(a)} vs ${fmtTime(b)}`;
      }
    }
    add(`bias-free / gain+bias, SIMD ${label}, worst shape`, worst, 1.1, x, '≤', where);
  }
  // Scalar fallback into caller out ≥ 2× faster than plain JS: at 1024×768 and worst shape.
  cmpRatio(
    '[1024×768] scalar caller out speed-up over plain JS',
    [1024, 768],
    `lnw-scalar:out:${BIAS}`,
    `js:out:${BIAS}`,
    2,
    '≥',
    true,
  );
  {
    let worst = null;
    let where = '';
    for (const s of results)
      for (const v of VARIANTS) {
        const a = med(results, s.rows, s.d, `lnw-scalar:out:${v}`);
        const b = med(results, s.rows, s.d, `js:out:${v}`);
        const r = pairedRatio(results, s.rows, s.d, `js:out:${v}`, `lnw-scalar:out:${v}`);
        if (r != null && (worst == null || r < worst)) {
          worst = r;
          where = `${s.rows}×${s.d} ${VARIANT_LABEL[v]}: ${fmtTime(a)} vs ${fmtTime(b)}`;
        }
      }
    add('scalar caller out speed-up over plain JS, worst shape', worst, 2, x, '≥', where);
  }
  return T;
}
