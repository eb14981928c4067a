// Benchmark core shared by the Node runner (run-node.mjs) and the Chromium page (page.mjs).
// Browser-compatible ES module: no Node built-ins, no bare imports. Everything environment-specific
// (the layernorm-wasm runtimes, onnxruntime modules, machine line) is passed in by the runner.

import { rng } from '../shared/rng.mjs';
import { normCandidates, normTargets } from './norm-candidates.mjs';
import { layerNormModelBytes } from './onnx-model.mjs';

export const FULL_SHAPES = [
  [1, 768],
  [64, 768],
  [1024, 768],
  [16384, 768],
  [1024, 1600],
  [1024, 4096],
];
export const QUICK_SHAPES = [
  [1, 768],
  [64, 768],
  [1024, 768],
];

export const EPS = 1e-5;
/** Largest |candidate − float64 reference| accepted before a candidate is reported WRONG. */
export const TOLERANCE = 1e-4;

const VARIANTS = ['gb', 'nb']; // gain+bias, bias-free (gain only)
export const VARIANT_LABEL = { gb: 'gain+bias', nb: 'bias-free', '-': '—' };

// ---------------------------------------------------------------------------------------------
// Deterministic data
// ---------------------------------------------------------------------------------------------

export function makeData(rows, d, seed = 1234) {
  const rnd = rng(seed ^ (rows * 7919) ^ (d * 104729));
  const x = new Float32Array(rows * d);
  // Activation-like rows: a per-row offset and scale plus noise.
  for (let r = 0; r < rows; r++) {
    const off = (rnd() - 0.5) * 2;
    const sc = 0.5 + rnd() * 2;
    for (let i = 0, o = r * d; i < d; i++) x[o + i] = off + sc * (rnd() + rnd() + rnd() - 1.5);
  }
  // γ and β depend on d only (onnxruntime sessions, which embed them, are reused across shapes).
  const prm = rng(seed ^ (d * 31337));
  const gamma = new Float32Array(d);
  const beta = new Float32Array(d);
  for (let i = 0; i < d; i++) {
    gamma[i] = 0.5 + prm();
    beta[i] = (prm() - 0.5) * 0.2;
  }
  return { x, gamma, beta };
}

export function maxAbsError(out, ref) {
  if (!out || out.length !== ref.length) return Infinity;
  let m = 0;
  for (let i = 0; i < ref.length; i++) {
    const e = Math.abs(out[i] - ref[i]);
    if (!(e <= m)) m = Number.isNaN(e) ? Infinity : e;
  }
  return m;
}

// ---------------------------------------------------------------------------------------------
// Plain JS LayerNorm, best effort: two passes, float64 accumulation in JS numbers, 4 accumulators.
// ---------------------------------------------------------------------------------------------

export function plainLayerNorm(x, rows, d, gamma, beta, eps, out) {
  // Separate monomorphic functions per variant keep V8's optimized code specialized.
  return beta ? plainLayerNormGB(x, rows, d, gamma, beta, eps, out) : plainLayerNormNB(x, rows, d, gamma, eps, out);
}

const rowMean = new Float64Array(1);

function rowStats(x, o, d, eps) {
  const d4 = d & ~3;
  let s0 = 0,
    s1 = 0,
    s2 = 0,
    s3 = 0;
  let i = 0;
  for (; i < d4; i += 4) {
    s0 += x[o + i];
    s1 += x[o + i + 1];
    s2 += x[o + i + 2];
    s3 += x[o + i + 3];
  }
  for (; i < d; i++) s0 += x[o + i];
  const mean = (s0 + s1 + s2 + s3) / d;
  let v0 = 0,
    v1 = 0,
    v2 = 0,
    v3 = 0;
  for (i = 0; i < d4; i += 4) {
    const c0 = x[o + i] - mean;
    const c1 = x[o + i + 1] - mean;
    const c2 = x[o + i + 2] - mean;
    const c3 = x[o + i + 3] - mean;
    v0 += c0 * c0;
    v1 += c1 * c1;
    v2 += c2 * c2;
    v3 += c3 * c3;
  }
  for (; i < d; i++) {
    const c = x[o + i] - mean;
    v0 += c * c;
  }
  rowMean[0] = mean;
  return 1 / Math.sqrt((v0 + v1 + v2 + v3) / d + eps);
}

function plainLayerNormGB(x, rows, d, gamma, beta, eps, out) {
  for (let r = 0, o = 0; r < rows; r++, o += d) {
    const rstd = rowStats(x, o, d, eps);
    const mean = rowMean[0];
    for (let i = 0; i < d; i++) out[o + i] = (x[o + i] - mean) * rstd * gamma[i] + beta[i];
  }
  return out;
}

function plainLayerNormNB(x, rows, d, gamma, eps, out) {
  for (let r = 0, o = 0; r < rows; r++, o += d) {
    const rstd = rowStats(x, o, d, eps);
    const mean = rowMean[0];
    for (let i = 0; i < d; i++) out[o + i] = (x[o + i] - mean) * rstd * gamma[i];
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The memcpy limit: a hand-assembled wasm module exporting copy(dst, src, n) = memory.copy.
// ---------------------------------------------------------------------------------------------

export function memcpyModuleBytes() {
  // prettier-ignore
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version 1
    0x01, 0x07, 0x01, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x00, // type: (i32 i32 i32) -> ()
    0x03, 0x02, 0x01, 0x00, // function section: 1 function of type 0
    0x05, 0x03, 0x01, 0x00, 0x01, // memory section: 1 memory, min 1 page, no max
    0x07, 0x11, 0x02, // export section, 2 exports
    0x04, 0x63, 0x6f, 0x70, 0x79, 0x00, 0x00, // "copy" func 0
    0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, // "memory" memory 0
    0x0a, 0x0e, 0x01, 0x0c, 0x00, // code section, 1 body of 12 bytes, 0 locals
    0x20, 0x00, 0x20, 0x01, 0x20, 0x02, // local.get 0, 1, 2
    0xfc, 0x0a, 0x00, 0x00, // memory.copy mem 0 -> mem 0
    0x0b, // end
  ]);
}

export async function createMemcpy() {
  const { instance } = await WebAssembly.instantiate(memcpyModuleBytes());
  return instance.exports;
}

// ---------------------------------------------------------------------------------------------
// Candidates
// ---------------------------------------------------------------------------------------------

/**
 * env = {
 *   lnw: { simd?: LayerNormRuntime, scalar?: LayerNormRuntime } | null,
 *   lnwWorker: LayerNormWorker (layernorm-wasm/worker, SIMD) | null,
 *   orts: [{ key, label, ort }]        // onnxruntime modules with the InferenceSession API
 *   tf: tfjs-core module with the wasm backend active, or null
 *   log: (s) => void,
 * }
 * Returns { candidates, cleanup }.
 */
async function buildCandidates(env, rows, d, data, sessionCache) {
  const { x, gamma, beta } = data;
  const n = rows * d;
  const cands = [];
  const cleanups = [];
  const params = (v) => ({ gamma, beta: v === 'gb' ? beta : null, eps: EPS });

  // layernorm-wasm
  for (const backend of ['simd', 'scalar']) {
    const rt = env.lnw?.[backend];
    if (!rt) continue;
    const tag = `lnw-${backend}`;
    // Resident tensors for the zero-copy API, shared by both variants (input written once).
    const tin = rt.allocate(rows, d);
    const tout = rt.allocate(rows, d);
    tin.set(x);
    cleanups.push(() => {
      tin.dispose();
      tout.dispose();
    });
    for (const v of VARIANTS) {
      const p = params(v);
      const out = new Float32Array(n);
      cands.push({
        id: `${tag}:out:${v}`,
        name: `layernorm-wasm ${backend}, caller out`,
        variant: v,
        run: () => rt.layerNorm(x, d, { gamma: p.gamma, beta: p.beta, eps: p.eps, out }),
        result: () => out,
      });
      if (backend === 'simd') {
        let last = null;
        cands.push({
          id: `${tag}:new:${v}`,
          name: `layernorm-wasm ${backend}, new array`,
          variant: v,
          run: () => {
            last = rt.layerNorm(x, d, p);
          },
          result: () => last,
        });
        const ln = rt.createLayerNorm(d, p);
        cleanups.push(() => ln.dispose());
        const out2 = new Float32Array(n);
        cands.push({
          id: `${tag}:resident:${v}`,
          name: `layernorm-wasm ${backend}, resident forward(x, out)`,
          variant: v,
          run: () => ln.forward(x, out2),
          result: () => out2,
        });
      }
      const lnz = rt.createLayerNorm(d, p);
      cleanups.push(() => lnz.dispose());
      cands.push({
        id: `${tag}:zerocopy:${v}`,
        name: `layernorm-wasm ${backend}, zero-copy forwardTensor`,
        variant: v,
        run: () => lnz.forwardTensor(tin, tout),
        result: () => tout.toArray(),
      });
      if (backend === 'simd') {
        // In place (a runtime that no longer needs its input): each timed call normalizes the
        // previous output, so correctness is checked on a fresh copy of x instead.
        const tio = rt.allocate(rows, d);
        cleanups.push(() => tio.dispose());
        cands.push({
          id: `${tag}:inplace:${v}`,
          name: `layernorm-wasm ${backend}, zero-copy in place`,
          variant: v,
          run: () => lnz.forwardTensor(tio, tio),
          verify: () => {
            tio.set(x);
            lnz.forwardTensor(tio, tio);
            return tio.toArray();
          },
        });
      }
    }
  }

  // The operations around a final norm: same-pass statistics, fused residual, RMSNorm, 16-bit types.
  const norms = normCandidates({ lnw: env.lnw, pkg: env.pkg, eps: EPS }, rows, d, data);
  cands.push(...norms.candidates);
  cleanups.push(...norms.cleanups);

  // layernorm-wasm/worker: the whole round trip, from the call to the result in this thread.
  if (env.lnwWorker) {
    const w = env.lnwWorker;
    for (const v of VARIANTS) {
      const p = params(v);
      // x moves to the worker and comes back normalized in the same memory; the next call sends
      // that back (normalizing an output again costs the same), so no copy is timed.
      let buf = x.slice();
      cands.push({
        id: `lnw-worker:transfer:${v}`,
        name: 'layernorm-wasm/worker, round trip (transfer)',
        variant: v,
        async: true,
        run: async () => {
          buf = await w.layerNorm(buf, d, p);
        },
        verify: () => w.layerNorm(x.slice(), d, p),
      });
    }
    const p = params('gb');
    const out = new Float32Array(n);
    cands.push({
      id: 'lnw-worker:copy:gb',
      name: 'layernorm-wasm/worker, round trip (transfer: false, into out)',
      variant: 'gb',
      async: true,
      run: () => w.layerNorm(x, d, { ...p, out, transfer: false }),
      result: () => out,
    });
  }

  // plain JS
  for (const v of VARIANTS) {
    const p = params(v);
    const out = new Float32Array(n);
    cands.push({
      id: `js:out:${v}`,
      name: 'plain JS, caller out',
      variant: v,
      run: () => plainLayerNorm(x, rows, d, p.gamma, p.beta, p.eps, out),
      result: () => out,
    });
  }

  // TensorFlow.js wasm backend: no fused LayerNorm op, so moments + elementwise ops (copy in, copy out).
  if (env.tf) {
    const tf = env.tf;
    for (const v of VARIANTS) {
      const g = tf.tensor1d(gamma);
      const b = v === 'gb' ? tf.tensor1d(beta) : null;
      cleanups.push(() => {
        g.dispose();
        b?.dispose();
      });
      let last = null;
      cands.push({
        id: `tfjs:${v}`,
        name: `tfjs-wasm ${tf.version_core}, moments + elementwise`,
        variant: v,
        run: () => {
          const y = tf.tidy(() => {
            const t = tf.tensor2d(x, [rows, d]);
            const m = tf.moments(t, -1, true);
            const yn = tf.mul(tf.mul(tf.sub(t, m.mean), tf.rsqrt(tf.add(m.variance, EPS))), g);
            return b ? tf.add(yn, b) : yn;
          });
          last = y.dataSync();
          y.dispose();
        },
        result: () => last,
      });
    }
  }

  // onnxruntime (web builds and native)
  for (const o of env.orts ?? []) {
    for (const v of VARIANTS) {
      if (o.variants && !o.variants.includes(v)) continue;
      const key = `${o.key}:${d}:${v}`;
      let session = sessionCache.get(key);
      if (!session) {
        const p = params(v);
        const model = layerNormModelBytes(d, p.gamma, p.beta, EPS);
        try {
          session = await o.ort.InferenceSession.create(model, o.sessionOptions ?? {});
        } catch (e) {
          env.log(`  ${o.label}: session creation failed (${e?.message ?? e}); skipped`);
          session = null;
        }
        sessionCache.set(key, session);
      }
      if (!session) continue;
      const feeds = { X: new o.ort.Tensor('float32', x, [rows, d]) };
      let last = null;
      cands.push({
        id: `${o.key}:${v}`,
        name: o.label,
        variant: v,
        async: true,
        run: async () => {
          const r = await session.run(feeds);
          last = r.Y;
        },
        result: () => last?.data,
      });
    }
  }

  // limits
  if (env.memcpy) {
    const bytes = n * 4;
    const mc = env.memcpy;
    const need = 2 * bytes + 65536;
    const have = mc.memory.buffer.byteLength;
    if (need > have) mc.memory.grow(Math.ceil((need - have) / 65536));
    const dst = bytes + (65536 - (bytes % 65536)); // 64 KiB-aligned destination
    new Float32Array(mc.memory.buffer, 0, n).set(x);
    cands.push({
      id: 'limit:memcpy',
      name: 'limit: wasm memory.copy',
      variant: '-',
      exact: true,
      run: () => mc.copy(dst, 0, bytes),
      result: () => new Float32Array(mc.memory.buffer, dst, n),
    });
  }
  {
    let last = null;
    cands.push({
      id: 'limit:slice',
      name: 'limit: new Float32Array copy (slice)',
      variant: '-',
      exact: true,
      run: () => {
        last = x.slice();
      },
      result: () => last,
    });
  }
  return {
    candidates: cands,
    references: norms.references,
    cleanup: () => {
      for (const f of cleanups) {
        try {
          f();
        } catch {}
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------------------------

const now = () => performance.now();

async function timeIters(c, iters) {
  const run = c.run;
  let t0;
  if (c.async) {
    t0 = now();
    for (let i = 0; i < iters; i++) await run();
  } else {
    t0 = now();
    for (let i = 0; i < iters; i++) run();
  }
  return now() - t0;
}

async function calibrate(c, minMs, targetMs) {
  let iters = 1;
  let t = await timeIters(c, iters);
  for (let k = 0; k < 12 && t < minMs; k++) {
    const per = Math.max(t, 0.02) / iters;
    iters = Math.max(iters + 1, Math.ceil(targetMs / per));
    t = await timeIters(c, iters);
  }
  return iters;
}

function quantile(sorted, q) {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

const yieldToLoop = () => new Promise((r) => setTimeout(r, 0));

/**
 * Runs the whole benchmark. opts = { shapes, rounds, minMs, targetMs, only? }.
 * Returns { shapes: [{ rows, d, bytes, rows: [...] }], targets: [...] }.
 */
export async function runBenchmark(env, opts) {
  const log = env.log ?? (() => {});
  // Every candidate is checked against the package's float64 oracle, so the package must load.
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
      gb: env.pkg.layerNormReference(data.x, d, { gamma: data.gamma, beta: data.beta, eps: EPS }),
      nb: env.pkg.layerNormReference(data.x, d, { gamma: data.gamma, eps: EPS }),
    };
    const built = await buildCandidates(env, rows, d, data, sessionCache);
    // Candidates that compute something else than LayerNorm(x) name their own oracle (computed once).
    const reference = (key) => {
      if (!(key in refs)) refs[key] = built.references[key]();
      return refs[key];
    };
    const { cleanup } = built;
    // opts.only: a RegExp source matched against candidate ids (the memcpy limit is always kept).
    const only = opts.only ? new RegExp(opts.only) : null;
    const candidates = only
      ? built.candidates.filter((c) => c.id === 'limit:memcpy' || only.test(c.id))
      : built.candidates;
    const rowsOut = [];
    const live = [];
    // Correctness first: every candidate against the float64 reference (memcpy/slice: exact copy).
    for (const c of candidates) {
      const row = { id: c.id, name: c.name, variant: c.variant, maxErr: null, ok: false, error: null };
      rowsOut.push(row);
      try {
        let out;
        if (c.verify) out = await c.verify();
        else {
          await timeIters(c, 2);
          out = c.result();
        }
        if (c.exact) {
          let same = out && out.length === data.x.length;
          for (let i = 0; same && i < out.length; i++) if (out[i] !== data.x[i]) same = false;
          row.maxErr = same ? 0 : Infinity;
        } else {
          row.maxErr = maxAbsError(out, c.reference ? reference(c.reference) : refs[c.variant]);
        }
        const tolerance = c.tolerance ?? TOLERANCE;
        row.ok = row.maxErr <= tolerance;
        if (!row.ok) row.error = `WRONG: max abs error ${fmtErr(row.maxErr)} > ${tolerance}`;
      } catch (e) {
        row.error = `FAILED: ${e?.message ?? e}`;
      }
      if (row.ok) live.push({ c, row, samples: [] });
      else log(`  [${rows}x${d}] ${c.name} (${VARIANT_LABEL[c.variant]}): ${row.error} — not timed`);
    }
    // Calibrate each candidate to ~targetMs per sample.
    for (const l of live) {
      l.iters = await calibrate(l.c, minMs, targetMs);
      await yieldToLoop();
    }
    // Interleaved rounds, rotating the order each round. A full GC (when the runner exposes one)
    // before each sample keeps one candidate's garbage from being collected on another's clock.
    const gc = env.gc ?? (() => {});
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < live.length; k++) {
        const l = live[(k + r) % live.length];
        gc();
        const t = await timeIters(l.c, l.iters);
        l.samples.push(t / l.iters);
      }
      await yieldToLoop();
    }
    for (const l of live) {
      const s = [...l.samples].sort((a, b) => a - b);
      l.row.median = quantile(s, 0.5);
      l.row.spread = (quantile(s, 0.75) - quantile(s, 0.25)) / l.row.median;
      l.row.iters = l.iters;
      l.row.samples = l.samples; // per round, in round order (for paired ratios)
    }
    cleanup();
    const bytes = 2 * rows * d * 4;
    const byId = Object.fromEntries(rowsOut.map((r) => [r.id, r]));
    const memcpy = byId['limit:memcpy']?.median;
    for (const r of rowsOut) {
      if (r.median == null) continue;
      r.gbps = bytes / (r.median * 1e6);
      r.xMemcpy = memcpy ? r.median / memcpy : null;
      const ortRef = byId[`${env.ortRefKey}:${r.variant === '-' ? 'gb' : r.variant}`]?.median;
      r.xOrt = ortRef ? r.median / ortRef : null;
    }
    results.push({ rows, d, bytes, candidates: rowsOut });
    log(`  [${rows}x${d}] done in ${((now() - t0) / 1000).toFixed(1)} s (${rounds} rounds)`);
  }
  return { shapes: results, targets: evaluateTargets(results, env) };
}

// ---------------------------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------------------------

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

  cmpRatio(`[1024×768] caller out vs ${ortLabel}`, [1024, 768], 'lnw-simd:out:gb', `${ortKey}:gb`, 0.15);
  if (env.nativeKey)
    cmpRatio(
      '[1024×768] caller out vs native onnxruntime-node',
      [1024, 768],
      'lnw-simd:out:gb',
      `${env.nativeKey}:gb`,
      0.6,
    );
  cmpRatio(`[1024×768] new Float32Array vs ${ortLabel}`, [1024, 768], 'lnw-simd:new:gb', `${ortKey}:gb`, 0.3);
  cmpRatio(
    '[1024×768] zero-copy resident vs wasm memory.copy',
    [1024, 768],
    'lnw-simd:zerocopy:gb',
    'limit:memcpy',
    1.6,
  );
  cmpRatio(
    '[16384×768] zero-copy resident vs wasm memory.copy',
    [16384, 768],
    'lnw-simd:zerocopy:gb',
    'limit:memcpy',
    1.25,
  );
  cmpRatio(
    '[1024×768] worker round trip (transfer) vs main-thread caller out',
    [1024, 768],
    'lnw-worker:transfer:gb',
    'lnw-simd:out:gb',
    2,
  );
  const out1 = med(results, 1, 768, 'lnw-simd:out:gb');
  add(
    '[1×768] caller out time per call',
    out1 != null ? out1 * 1000 : null,
    1.5,
    (v, digits = 3) => `${v.toFixed(digits)} µs`,
  );
  cmpRatio(`[1×768] caller out vs ${ortLabel} (1/30 = 0.033×)`, [1, 768], 'lnw-simd:out:gb', `${ortKey}:gb`, 1 / 30);

  normTargets(cmpRatio);

  // Bias-free within 10% of gain+bias: worst shape, caller out and zero-copy.
  for (const [api, label] of [
    ['out', 'caller out'],
    ['zerocopy', 'zero-copy'],
  ]) {
    let worst = null;
    let where = '';
    for (const s of results) {
      const a = med(results, s.rows, s.d, `lnw-simd:${api}:nb`);
      const b = med(results, s.rows, s.d, `lnw-simd:${api}:gb`);
      const r = pairedRatio(results, s.rows, s.d, `lnw-simd:${api}:nb`, `lnw-simd:${api}:gb`);
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
    'lnw-scalar:out:gb',
    'js:out:gb',
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

// ---------------------------------------------------------------------------------------------
// Formatting (Markdown tables; also readable on a terminal)
// ---------------------------------------------------------------------------------------------

export function fmtTime(ms) {
  if (ms == null) return '—';
  if (ms < 1) return `${(ms * 1000).toFixed(ms < 0.01 ? 3 : 2)} µs`;
  return `${ms.toFixed(3)} ms`;
}
function fmtErr(e) {
  if (e == null) return '—';
  if (e === 0) return '0';
  if (!Number.isFinite(e)) return 'mismatch';
  return e.toExponential(1);
}
const fmtX = (v) =>
  v == null ? '—' : v >= 100 ? `${v.toFixed(0)}×` : v >= 10 ? `${v.toFixed(1)}×` : `${v.toFixed(2)}×`;

export function formatTables(res) {
  const lines = [];
  for (const s of res.shapes) {
    lines.push(`### [${s.rows} × ${s.d}] — ${(s.bytes / 1e6).toFixed(3)} MB moved per call (in + out)`);
    lines.push('');
    lines.push('| candidate | variant | median / call | GB/s | × memcpy | × ort-web | spread (IQR) | max abs err |');
    lines.push('|---|---|--:|--:|--:|--:|--:|--:|');
    for (const c of s.candidates) {
      if (c.median == null) {
        lines.push(
          `| ${c.name} | ${VARIANT_LABEL[c.variant]} | ${c.error ?? 'not timed'} | | | | | ${fmtErr(c.maxErr)} |`,
        );
        continue;
      }
      lines.push(
        `| ${c.name} | ${VARIANT_LABEL[c.variant]} | ${fmtTime(c.median)} | ${c.gbps.toFixed(2)} | ${fmtX(c.xMemcpy)} | ${fmtX(c.xOrt)} | ${(c.spread * 100).toFixed(1)}% | ${fmtErr(c.maxErr)} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

export function formatTargets(res) {
  return res.targets.map((t) => t.text).join('\n');
}

/** Both layernorm-wasm runtimes from an imported package module; a backend that fails is skipped. */
/**
 * layernorm-wasm runtimes by backend ({ simd, scalar }, those that load), with the package module
 * itself as the non-enumerable `pkg` (its oracles and helpers, for the candidates that need them).
 */
export async function initBackends(mod, log) {
  const lnw = {};
  Object.defineProperty(lnw, 'pkg', { value: mod, enumerable: false });
  for (const backend of ['simd', 'scalar']) {
    try {
      lnw[backend] = await mod.init({ backend });
      log(`layernorm-wasm ${backend}: kernel ${lnw[backend].kernel}`);
    } catch (e) {
      log(`NOTE: init({ backend: '${backend}' }) failed (${e?.message ?? e}); skipped.`);
    }
  }
  return lnw;
}

/** A layernorm-wasm/worker runtime (SIMD) from `importEntry()`, or null (with a note) when it fails. */
export async function initWorkerRuntime(importEntry, log) {
  try {
    const w = await (await importEntry()).initWorker({ backend: 'simd' });
    log(`layernorm-wasm/worker: kernel ${w.kernel}`);
    return w;
  } catch (e) {
    log(`NOTE: layernorm-wasm/worker unavailable (${e?.message ?? e}); its candidates skipped.`);
    return null;
  }
}

/**
 * An onnxruntime-web entry from `importEntry()`, set to 1 thread without a proxy worker, as a peer
 * for runBenchmark's `orts`; null (with a note) when it does not load.
 */
export async function loadOrtWeb(importEntry, { key, label, wasmPaths, ...extra }, log) {
  try {
    const ort = await importEntry();
    ort.env.wasm.numThreads = 1;
    ort.env.wasm.proxy = false;
    if (wasmPaths) ort.env.wasm.wasmPaths = wasmPaths;
    return { key, label, ort, sessionOptions: { executionProviders: ['wasm'] }, ...extra };
  } catch (e) {
    log(`NOTE: ${label} unavailable: ${e?.message ?? e}`);
    return null;
  }
}

/** tfjs-core on its wasm backend, 1 thread, from the two imported modules; null (with a note) when it fails. */
export async function loadTfjsWasm(importCore, importBackend, wasmDir, log) {
  try {
    const tf = await importCore();
    const tfw = await importBackend();
    tfw.setThreadsCount(1);
    tfw.setWasmPaths(wasmDir);
    if (!(await tf.setBackend('wasm'))) throw new Error('setBackend(wasm) failed');
    await tf.ready();
    return tf;
  } catch (e) {
    log(`NOTE: tfjs-wasm unavailable, skipped: ${e?.message ?? e}`);
    return null;
  }
}
