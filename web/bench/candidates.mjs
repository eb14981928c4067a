// The candidates for one shape: layernorm-wasm through each of its APIs, the operations around the
// norm (norm-candidates.mjs), the worker, the plain-JS peer, tfjs-wasm, onnxruntime, the copy
// limits and the float32-statistics limit. Each is
// { id, name, variant, run, result | verify, async?, exact?, reference?, tolerance? }.

import { EPS } from './data.mjs';
import { f32StatsCandidate } from './f32stats.mjs';
import { BIAS, VARIANTS } from './forms.mjs';
import { plainLayerNorm } from './js-peer.mjs';
import { memcpyCandidate } from './memcpy.mjs';
import { normCandidates, ortNormCandidates } from './norm-candidates.mjs';
import { layerNormModelBytes } from './onnx-model.mjs';

/**
 * env = {
 *   lnw: { simd?: LayerNormRuntime, scalar?: LayerNormRuntime } | null,
 *   pkg: the layernorm-wasm package module (its oracles and helpers),
 *   lnwWorker: LayerNormWorker (layernorm-wasm/worker, SIMD) | null,
 *   orts: [{ key, label, ort }]        // onnxruntime modules with the InferenceSession API
 *   tf: tfjs-core module with the wasm backend active, or null
 *   memcpy: the exports of createMemcpy() (memcpy.mjs), or null
 *   f32stats: createF32Stats(bytes) (f32stats.mjs), or null
 *   log: (s) => void,
 * }
 * Returns { candidates, references, cleanup }; sessionCache keeps onnxruntime sessions across shapes.
 */
export async function buildCandidates(env, rows, d, data, sessionCache) {
  const { x, gamma, beta } = data;
  const n = rows * d;
  const cands = [];
  const cleanups = [];
  const params = (v) => ({ gamma, beta: v === BIAS ? beta : null, eps: EPS });

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
    const p = params(BIAS);
    const out = new Float32Array(n);
    cands.push({
      id: `lnw-worker:copy:${BIAS}`,
      name: 'layernorm-wasm/worker, round trip (transfer: false, into out)',
      variant: BIAS,
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
      const b = v === BIAS ? tf.tensor1d(beta) : null;
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

  // onnxruntime's ops for the fused residual and RMSNorm
  cands.push(...(await ortNormCandidates({ ...env, eps: EPS }, rows, d, data, sessionCache)));

  // limits
  if (env.memcpy) cands.push(memcpyCandidate(env.memcpy, x));
  if (env.f32stats) cands.push(f32StatsCandidate(env.f32stats, rows, d, data, EPS));
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
