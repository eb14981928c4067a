// The calls the same-run A/B times in both builds (ab/run.mjs), each made once per build on the
// same inputs, and checked before it is timed: a build that lacks a call (an older commit without
// rmsNorm, or one that ignores an option it does not know) is reported as such, never timed.
// Browser-compatible: no Node built-ins.
//
// ab/measure.mjs imports this module once per build (a different query string each time), so that
// each build's calls and timing loop are functions of their own: one function calling into both
// builds would collect type feedback from both, and the engine would optimize it for the build it
// saw first (measured: 5% in that build's favour on one-row calls).

import { EPS, makeData, maxAbsError, TOLERANCE } from '../data.mjs';
import { residualData } from '../norm-candidates.mjs';

/** Thrown by prepare() when a build does not have the call; the message says what is missing. */
export class NotInBuild extends Error {
  name = 'NotInBuild';
}

/** A timing loop for `run`: sample(iters) → milliseconds for iters back-to-back calls. */
export function sampler(run) {
  return (iters) => {
    const t0 = performance.now();
    for (let i = 0; i < iters; i++) run();
    return performance.now() - t0;
  };
}

const ONE_ROW = 1;
const SHAPES = [
  [1, 768],
  [1024, 768],
  [8192, 768],
];

const params = (data) => ({ gamma: data.gamma, beta: data.beta, eps: EPS });

/**
 * Every call: { id, label, rows, d, gated, make(rt, data, pkg) → { run, output, dispose? },
 * reference(pkg, data) → expected float32 output, tolerance?, widen?(pkg, out) }. `gated`: the CI
 * gate holds it to the baseline (the resident kernel at [1024 × 768] and every one-row call).
 */
export function abCalls() {
  const calls = [];
  const layerNormRef = (pkg, data, d) => pkg.layerNormReference(data.x, d, params(data));
  for (const [rows, d] of SHAPES) {
    const gatedShape = rows === ONE_ROW;
    calls.push({
      id: `resident-tensor:${rows}x${d}`,
      label: 'resident `forwardTensor` (the kernel)',
      rows,
      d,
      gated: gatedShape || rows === 1024,
      make: (rt, data) => {
        const ln = rt.createLayerNorm(d, params(data));
        const tin = rt.allocate(rows, d);
        const gap = rt.allocate(1, data.pad); // the output's distance from the input (prepare())
        const tout = rt.allocate(rows, d);
        gap.dispose();
        tin.set(data.x);
        return {
          run: () => ln.forwardTensor(tin, tout),
          output: () => tout.view.slice(),
          dispose: () => (tin.dispose(), tout.dispose(), ln.dispose()),
        };
      },
      reference: (pkg, data) => layerNormRef(pkg, data, d),
    });
    calls.push({
      id: `resident-forward:${rows}x${d}`,
      label: '`ln.forward(x, out)`',
      rows,
      d,
      gated: gatedShape,
      make: (rt, data) => {
        const ln = rt.createLayerNorm(d, params(data));
        const out = new Float32Array(rows * d);
        return { run: () => ln.forward(data.x, out), output: () => out, dispose: () => ln.dispose() };
      },
      reference: (pkg, data) => layerNormRef(pkg, data, d),
    });
    calls.push({
      id: `layernorm-out:${rows}x${d}`,
      label: '`layerNorm(x, d, { out })`',
      rows,
      d,
      gated: gatedShape,
      make: (rt, data) => {
        const out = new Float32Array(rows * d);
        const { gamma, beta } = data;
        return { run: () => rt.layerNorm(data.x, d, { gamma, beta, eps: EPS, out }), output: () => out };
      },
      reference: (pkg, data) => layerNormRef(pkg, data, d),
    });
  }
  // The operations around the norm, at one token (gated) and at [1024 × 768].
  for (const rows of [1, 1024]) {
    const d = 768;
    const at = `${rows}x${d}`;
    const gated = rows === ONE_ROW;
    calls.push({
      id: `rmsnorm:${at}`,
      label: '`rmsNorm(x, d, { gamma, out })`',
      rows,
      d,
      gated,
      make: (rt, data) => {
        if (typeof rt.rmsNorm !== 'function') throw new NotInBuild('no rmsNorm');
        const out = new Float32Array(rows * d);
        return { run: () => rt.rmsNorm(data.x, d, { gamma: data.gamma, eps: EPS, out }), output: () => out };
      },
      reference: (pkg, data) => pkg.rmsNormReference(data.x, d, { gamma: data.gamma, eps: EPS }),
    });
    calls.push({
      id: `stats:${at}`,
      label: '`layerNorm(x, d, { out, mean, rstd })`',
      rows,
      d,
      gated,
      make: (rt, data) => {
        const out = new Float32Array(rows * d);
        const mean = new Float64Array(rows).fill(NaN),
          rstd = new Float64Array(rows).fill(NaN);
        const { gamma, beta } = data;
        return {
          run: () => rt.layerNorm(data.x, d, { gamma, beta, eps: EPS, out, mean, rstd }),
          output: () => {
            checkStats(data.x, d, mean, rstd);
            return out;
          },
        };
      },
      reference: (pkg, data) => layerNormRef(pkg, data, d),
    });
    calls.push({
      id: `residual:${at}`,
      label: 'fused `residual` + `bias` + `sumOut`',
      rows,
      d,
      gated,
      make: (rt, data) => {
        const { gamma, beta } = data;
        const out = new Float32Array(rows * d);
        const sumOut = new Float32Array(rows * d);
        const { residual, bias } = residualInputs(rows, d);
        return {
          run: () => rt.layerNorm(data.x, d, { gamma, beta, eps: EPS, residual, bias, sumOut, out }),
          output: () => {
            checkSum(data.x, residual, bias, d, sumOut);
            return out;
          },
        };
      },
      reference: (pkg, data) => {
        const { residual, bias } = residualInputs(rows, d);
        return pkg.layerNormReference(data.x, d, { ...params(data), residual, bias });
      },
    });
    for (const [dtype, tolerance] of [
      ['float16', 1e-2],
      ['bfloat16', 8e-2],
    ]) {
      calls.push({
        id: `${dtype}:${at}`,
        label: `${dtype} in and out (\`Uint16Array\`)`,
        rows,
        d,
        gated,
        tolerance,
        make: (rt, data, pkg) => {
          const bits = pkg.float32ToHalfBits(data.x, dtype);
          const out = new Uint16Array(rows * d);
          const { gamma, beta } = data;
          return {
            run: () => rt.layerNorm(bits, d, { gamma, beta, eps: EPS, dtype, out }),
            output: () => pkg.halfBitsToFloat32(out, dtype),
          };
        },
        reference: (pkg, data) => layerNormRef(pkg, data, d),
      });
    }
  }
  return calls;
}

function residualInputs(rows, d) {
  const residual = residualData(rows, d);
  const bias = new Float32Array(d);
  for (let j = 0; j < d; j++) bias[j] = ((j % 7) - 3) * 0.01;
  return { residual, bias };
}

/** The statistics outputs hold each row's mean and rstd (a build that ignores them leaves NaN). */
function checkStats(x, d, mean, rstd) {
  for (let r = 0; r < mean.length; r++) {
    let s = 0,
      q = 0;
    for (let j = 0; j < d; j++) s += x[r * d + j];
    const mu = s / d;
    for (let j = 0; j < d; j++) q += (x[r * d + j] - mu) ** 2;
    const want = 1 / Math.sqrt(q / d + EPS);
    if (!(Math.abs(mean[r] - mu) <= 1e-6 * (1 + Math.abs(mu)) && Math.abs(rstd[r] - want) <= 1e-6 * want)) {
      throw new NotInBuild('the mean/rstd outputs are not written');
    }
  }
}

/** sumOut holds (x + residual) + bias (a build that ignores the option leaves zeros). */
function checkSum(x, residual, bias, d, sumOut) {
  for (let i = 0; i < x.length; i++) {
    if (sumOut[i] !== Math.fround(Math.fround(x[i] + residual[i]) + bias[i % d])) {
      throw new NotInBuild('sumOut is not written as (x + residual) + bias');
    }
  }
}

/**
 * The call `id` made in one build, run twice and checked against the correctly rounded reference of `pkg`:
 * { sample, renew, dispose } or a NotInBuild with what the build lacks. renew() makes the call again
 * on fresh copies of its inputs placed at other addresses (rnd() picks the gaps before them): how
 * far apart a call's buffers are modulo 4 KiB changes how fast the processor copies and streams
 * them (loads that look like they alias earlier stores wait for them), by up to ~9% on a one-row
 * call, and which layout a build happens to get would otherwise decide a comparison.
 */
export function prepare(id, rt, pkg, rnd = Math.random) {
  const call = abCalls().find((c) => c.id === id);
  const data = { ...makeData(call.rows, call.d), pad: 1 };
  let made;
  try {
    made = call.make(rt, data, pkg);
    made.run();
    made.run();
  } catch (e) {
    made?.dispose?.();
    if (e instanceof NotInBuild) throw e;
    throw new NotInBuild(`the call fails: ${e?.message ?? e}`);
  }
  const expected = call.reference(pkg, data);
  const tolerance = call.tolerance ?? TOLERANCE;
  let err;
  try {
    err = maxAbsError(made.output(), expected);
  } catch (e) {
    made.dispose?.();
    throw e;
  }
  if (!(err <= tolerance)) {
    made.dispose?.();
    throw new NotInBuild(`its output is off by ${err} (> ${tolerance}): it computes something else`);
  }
  const prepared = {
    sample: sampler(made.run),
    renew() {
      made.dispose?.();
      const gap = new ArrayBuffer(16 * (1 + Math.floor(rnd() * 256)));
      const copy = { x: data.x.slice(), gamma: data.gamma.slice(), beta: data.beta.slice() };
      copy.pad = 1 + Math.floor(rnd() * 1024);
      made = call.make(rt, copy, pkg);
      made.run();
      prepared.sample = sampler(made.run);
      return gap.byteLength;
    },
    dispose: () => made.dispose?.(),
  };
  return prepared;
}
