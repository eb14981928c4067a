// Target lines: the speed goals as paired ratios between candidates, each PASS, FAIL, UNSURE or
// N/A. The targets for the operations around the norm are norm-candidates.mjs's normTargets.
//
// A verdict is given only when the measurement decides it: PASS when the whole 95% confidence
// interval of the median ratio is within the target, FAIL when the whole interval is beyond it,
// UNSURE when the interval straddles the target. A median alone would pass a ratio whose
// denominator the machine disturbed in half the rounds (a candidate at 0.65 µs in some rounds and
// 1.8 µs in others made a 1.45x ratio read 0.61x in Chromium).

import { BIAS, NO_BIAS, VARIANTS, VARIANT_LABEL } from './forms.mjs';
import { fmtTime } from './format.mjs';
import { normTargets } from './norm-candidates.mjs';
import { summarize } from './ab/paired.mjs';

function cand(results, rows, d, id) {
  const s = results.find((r) => r.rows === rows && r.d === d);
  return s?.candidates.find((c) => c.id === id && c.median != null) ?? null;
}

// median time (ms) of candidate `id` at shape rows×d, or null
function med(results, rows, d, id) {
  return cand(results, rows, d, id)?.median ?? null;
}

/**
 * Ratio a/b for target lines: the per-round ratios of the pair's own paired measurement when it
 * has one (variant-pairs.mjs), else a's sample / b's sample in each main round (paired, so load
 * changes between rounds cancel out); their median and its 95% interval ({ median, lo, hi },
 * ab/paired.mjs's summarize), or null when either is not measured.
 */
export function pairedRatio(results, rows, d, a, b) {
  const ca = cand(results, rows, d, a);
  const cb = cand(results, rows, d, b);
  if (!ca || !cb) return null;
  const own = results.find((r) => r.rows === rows && r.d === d)?.paired?.[`${a}|${b}`];
  if (own?.length) return summarize(own);
  const n = Math.min(ca.samples.length, cb.samples.length);
  return summarize(Array.from({ length: n }, (_, i) => ca.samples[i] / cb.samples[i]));
}

/**
 * The verdict on a measured { median, lo, hi } against a target (cmp '≤': at most limit; '≥': at
 * least): PASS or FAIL only when the whole interval is on one side of the limit.
 */
export function verdict({ lo, hi }, limit, cmp) {
  const [best, worst] = cmp === '≤' ? [hi <= limit, lo > limit] : [lo >= limit, hi < limit];
  return best ? 'PASS' : worst ? 'FAIL' : 'UNSURE';
}

export function evaluateTargets(results, env) {
  const T = [];
  const ortKey = env.ortRefKey;
  const ortLabel = env.ortRefLabel ?? 'onnxruntime-web';
  // m: { median, lo, hi } (the median and its 95% interval) or null.
  const add = (label, m, limit, fmt, cmp = '≤', detail = '') => {
    if (m == null || ![m.median, m.lo, m.hi].every(Number.isFinite)) {
      T.push({ label, status: 'N/A', text: `N/A     ${label}: not measured` });
      return;
    }
    const status = verdict(m, limit, cmp);
    // Enough digits that a value beside an equal-looking limit shows which side it is on.
    const show = (v) => (fmt(v) === fmt(limit) && v !== limit ? fmt(v, 5) : fmt(v));
    T.push({
      label,
      status,
      value: m.median,
      lo: m.lo,
      hi: m.hi,
      limit,
      text:
        `${status.padEnd(6)}  ${label}: ${show(m.median)} (95% ${show(m.lo)} – ${show(m.hi)}; ` +
        `target ${cmp} ${fmt(limit)})${detail ? ` — ${detail}` : ''}`,
    });
  };
  const x = (v, digits = 3) => `${v.toFixed(digits)}×`;
  // Paired ratio a/b of two candidates, with their median times as detail.
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
  const out1 = cand(results, 1, 768, `lnw-simd:out:${BIAS}`);
  add(
    '[1×768] caller out time per call',
    out1 ? summarize(out1.samples.map((ms) => ms * 1000)) : null,
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
      if (r != null && (worst == null || r.median > worst.median)) {
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
        if (r != null && (worst == null || r.median < worst.median)) {
          worst = r;
          where = `${s.rows}×${s.d} ${VARIANT_LABEL[v]}: ${fmtTime(a)} vs ${fmtTime(b)}`;
        }
      }
    add('scalar caller out speed-up over plain JS, worst shape', worst, 2, x, '≥', where);
  }
  return T;
}
