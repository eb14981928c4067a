// The operations around a final norm (issue 14): statistics from the same pass, the fused residual
// add, RMSNorm, and float16 / bfloat16 activations, each beside the call it is measured against
// (layerNorm into a caller's array) and, for the residual, the JS add loop a caller would write.
// Every candidate is checked against the package's correctly rounded reference for what it computes.

import { BIAS, NO_BIAS, RMS } from './forms.mjs';
import { addLayerNormModelBytes, nodeModelBytes } from './onnx-model.mjs';

/** The reference of the residual candidates: LayerNorm (γ and β) of x + r. */
const RESIDUAL = `residual-${BIAS}`;

/** Residual stream values for rows × d (deterministic, activation-like). */
export function residualData(rows, d) {
  const r = new Float32Array(rows * d);
  for (let i = 0; i < r.length; i++) r[i] = Math.sin(i * 0.7071) * 0.8;
  return r;
}

/**
 * { candidates, references, cleanups } for shape rows × d: candidates carry `reference` (a key of
 * `references`) and, for 16-bit outputs, `widen` (to float32) and `tolerance`.
 */
export function normCandidates(env, rows, d, data) {
  const rt = env.lnw?.simd;
  const pkg = env.pkg;
  if (!rt || !pkg) return { candidates: [], references: {}, cleanups: [] };
  const { x, gamma, beta } = data;
  const n = rows * d;
  const eps = env.eps;
  const r = residualData(rows, d);
  const references = {
    [RESIDUAL]: () => pkg.layerNormReference(x, d, { gamma, beta, eps, residual: r }),
    [RMS]: () => pkg.rmsNormReference(x, d, { gamma, eps }),
  };
  const out = new Float32Array(n);
  const mean = new Float64Array(rows),
    rstd = new Float64Array(rows);
  const h = new Float32Array(n);
  const candidates = [
    {
      id: `lnw-simd:stats:${BIAS}`,
      name: 'layernorm-wasm simd, caller out + mean/rstd from the same pass',
      variant: BIAS,
      run: () => rt.layerNorm(x, d, { gamma, beta, eps, out, mean, rstd }),
      result: () => out,
    },
    {
      id: `lnw-simd:residual:${BIAS}`,
      name: 'layernorm-wasm simd, fused residual add, caller out',
      variant: BIAS,
      reference: RESIDUAL,
      run: () => rt.layerNorm(x, d, { gamma, beta, eps, residual: r, out }),
      result: () => out,
    },
    {
      id: `lnw-simd:residual-sum:${BIAS}`,
      name: 'layernorm-wasm simd, fused residual add, caller out + sumOut',
      variant: BIAS,
      reference: RESIDUAL,
      run: () => rt.layerNorm(x, d, { gamma, beta, eps, residual: r, sumOut: h, out }),
      result: () => out,
    },
    {
      id: `js-add+lnw:${BIAS}`,
      name: 'JS add loop, then layernorm-wasm simd caller out',
      variant: BIAS,
      reference: RESIDUAL,
      run: () => {
        for (let i = 0; i < n; i++) h[i] = x[i] + r[i];
        rt.layerNorm(h, d, { gamma, beta, eps, out });
      },
      result: () => out,
    },
    {
      id: `lnw-simd:${RMS}:${NO_BIAS}`,
      name: 'layernorm-wasm simd, rmsNorm caller out',
      variant: NO_BIAS,
      reference: RMS,
      run: () => rt.rmsNorm(x, d, { gamma, eps, out }),
      result: () => out,
    },
  ];
  for (const [dtype, tolerance] of [
    ['float16', 1e-2],
    ['bfloat16', 8e-2],
  ]) {
    const xh = pkg.float32ToHalfBits(x, dtype);
    const oh = new Uint16Array(n);
    candidates.push({
      id: `lnw-simd:${dtype}:${BIAS}`,
      name: `layernorm-wasm simd, ${dtype} in and out, caller out`,
      variant: BIAS,
      tolerance,
      run: () => rt.layerNorm(xh, d, { gamma, beta, eps, dtype, out: oh }),
      result: () => pkg.halfBitsToFloat32(oh, dtype),
    });
  }
  return { candidates, references, cleanups: [] };
}

/**
 * onnxruntime's own ops for the same work, in each onnxruntime the benchmark loads (not its
 * default-import variant): SkipLayerNormalization (com.microsoft, the fused residual add), the
 * unfused Add + LayerNormalization graph, and SimplifiedLayerNormalization (RMSNorm).
 */
export async function ortNormCandidates(env, rows, d, data, sessionCache) {
  const { x, gamma, beta } = data;
  const r = residualData(rows, d);
  const eps = env.eps;
  const models = [
    {
      id: `skip:${BIAS}`,
      what: 'SkipLayerNormalization (fused add)',
      variant: BIAS,
      reference: RESIDUAL,
      bytes: () =>
        nodeModelBytes({
          op: 'SkipLayerNormalization',
          domain: 'com.microsoft',
          inputs: { X: [1, 'N', d], R: [1, 'N', d] },
          weights: { G: gamma, B: beta },
          order: ['X', 'R', 'G', 'B'],
          attributes: { epsilon: eps },
          outputDims: [1, 'N', d],
        }),
      feeds: (ort) => ({
        X: new ort.Tensor('float32', x, [1, rows, d]),
        R: new ort.Tensor('float32', r, [1, rows, d]),
      }),
    },
    {
      id: `add+ln:${BIAS}`,
      what: 'Add, then LayerNormalization',
      variant: BIAS,
      reference: RESIDUAL,
      bytes: () => addLayerNormModelBytes(d, gamma, beta, eps),
      feeds: (ort) => ({ X: new ort.Tensor('float32', x, [rows, d]), R: new ort.Tensor('float32', r, [rows, d]) }),
    },
    {
      id: `simplified:${NO_BIAS}`,
      what: 'SimplifiedLayerNormalization (RMSNorm)',
      variant: NO_BIAS,
      reference: RMS,
      bytes: () =>
        nodeModelBytes({
          op: 'SimplifiedLayerNormalization',
          inputs: { X: ['N', d] },
          weights: { G: gamma },
          order: ['X', 'G'],
          attributes: { axis: -1, epsilon: eps },
          outputDims: ['N', d],
        }),
      feeds: (ort) => ({ X: new ort.Tensor('float32', x, [rows, d]) }),
    },
  ];
  const candidates = [];
  for (const o of env.orts ?? []) {
    if (o.variants) continue; // the default-import variant is measured on the plain LayerNorm only
    for (const m of models) {
      const key = `${o.key}:${m.id}:${d}`;
      let session = sessionCache.get(key);
      if (session === undefined) {
        try {
          session = await o.ort.InferenceSession.create(m.bytes(), o.sessionOptions ?? {});
        } catch (e) {
          env.log(`  ${o.label} ${m.what}: session creation failed (${e?.message ?? e}); skipped`);
          session = null;
        }
        sessionCache.set(key, session);
      }
      if (!session) continue;
      const feeds = m.feeds(o.ort);
      let last = null;
      candidates.push({
        id: `${o.key}:${m.id}`,
        name: `${o.label}, ${m.what}`,
        variant: m.variant,
        reference: m.reference,
        async: true,
        run: async () => {
          last = (await session.run(feeds)).Y;
        },
        result: () => last?.data,
      });
    }
  }
  return candidates;
}

/**
 * Target lines for these candidates (issue 14's speed targets, and issue 19's per-call costs at one
 * token and at [1024 × 768]), given cmpRatio from targets.mjs.
 */
export function normTargets(cmpRatio) {
  const s = [1024, 768];
  for (const shape of [[1, 768], s]) {
    const at = `[${shape[0]}×${shape[1]}]`;
    cmpRatio(
      `${at} rmsNorm vs layerNorm (gain only), caller out`,
      shape,
      `lnw-simd:${RMS}:${NO_BIAS}`,
      `lnw-simd:out:${NO_BIAS}`,
      shape[0] === 1 ? 1.1 : 1.0,
    );
    cmpRatio(
      `${at} mean/rstd from the same pass vs plain caller out`,
      shape,
      `lnw-simd:stats:${BIAS}`,
      `lnw-simd:out:${BIAS}`,
      shape[0] === 1 ? 1.15 : 1.05,
    );
    cmpRatio(
      `${at} fused residual vs JS add loop + layerNorm`,
      shape,
      `lnw-simd:residual:${BIAS}`,
      `js-add+lnw:${BIAS}`,
      shape[0] === 1 ? 0.8 : 0.5,
    );
    for (const dtype of ['float16', 'bfloat16']) {
      cmpRatio(
        `${at} ${dtype} in/out vs float32, caller out`,
        shape,
        `lnw-simd:${dtype}:${BIAS}`,
        `lnw-simd:out:${BIAS}`,
        1.3,
      );
    }
  }
  cmpRatio(
    '[1024×768] fused residual vs plain caller out',
    s,
    `lnw-simd:residual:${BIAS}`,
    `lnw-simd:out:${BIAS}`,
    1.25,
  );
  cmpRatio(
    '[1024×768] fused residual vs onnxruntime-web SkipLayerNormalization',
    s,
    `lnw-simd:residual:${BIAS}`,
    `ortweb:skip:${BIAS}`,
    0.25,
  );
  cmpRatio(
    '[1024×768] rmsNorm vs onnxruntime-web SimplifiedLayerNormalization',
    s,
    `lnw-simd:${RMS}:${NO_BIAS}`,
    `ortweb:simplified:${NO_BIAS}`,
    0.25,
  );
}
