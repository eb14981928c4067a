// The calls every runtime answers alike: a table of good calls, each on the same seeded GPT-2-like
// rows, that the main-thread suite (tests/core/calls.test.ts) judges against the exact oracle on
// both backends and the worker suite (tests/worker/calls.test.ts) runs through initWorker(),
// expecting the main thread's answer bit for bit. A case is { name, spec, run(t, a, extra) }:
// `run` makes the call on runtime `t` (init()'s or initWorker()'s) with the inputs `a` hands out
// and the worker's call options `extra`, and returns every output to compare; `spec` says what
// the call computes, for the oracle: the norm, x, d, γ, β, ε, the residual and its bias, the
// activations' dtype, and for the stages the row.
import { andThen } from './catalogue/values.mjs';
import { bfloat16Bits, float16Bits } from './halves.mjs';
import { gaussian, gpt2Like, rng } from './random.mjs';

export const D = 768;
export const ROWS = 24;

/** The data every call reads: GPT-2-like x, a residual stream, γ, β, the residual's bias, and a Scale of [4, D]. */
export const DATA = {
  x: gpt2Like(rng(21), ROWS, D),
  r: gaussian(rng(22), ROWS * D, 0, 2),
  gamma: gaussian(rng(23), D, 1, 0.2),
  beta: gaussian(rng(24), D, 0, 0.1),
  bias: gaussian(rng(25), D, 0, 0.1),
  scale: gaussian(rng(26), 4 * D, 1, 0.2),
};

export const halfBits = (values, dtype) => (dtype === 'float16' ? float16Bits(values) : bfloat16Bits(values));

/**
 * What a case's run is given: new copies of the data at each call (a worker call may move what it
 * is given), the ones that are only read (γ, β, the bias, the residual) recorded in `readOnly`
 * with their values then, so that a driver can check that they stay the caller's, unchanged.
 */
export function inputs(readOnly = []) {
  const keep = (array) => {
    readOnly.push({ array, values: array.slice() });
    return array;
  };
  return {
    x: () => DATA.x.slice(),
    bits: (dtype) => halfBits(DATA.x, dtype),
    r: () => keep(DATA.r.slice()),
    rBits: (dtype) => keep(halfBits(DATA.r, dtype)),
    gamma: () => keep(DATA.gamma.slice()),
    beta: () => keep(DATA.beta.slice()),
    bias: () => keep(DATA.bias.slice()),
    scale: () => keep(DATA.scale.slice()),
    f32: (n) => new Float32Array(n),
    f64: (n) => new Float64Array(n),
    u16: (n) => new Uint16Array(n),
  };
}

/** A resident norm's properties, its forward's output, then the norm disposed. */
const resident = (created, x, extra) =>
  andThen(created, (n) =>
    andThen(n.forward(x, undefined, extra), (y) => {
      const props = [n.norm, n.d, n.eps, n.dtype, n.hasGamma, n.hasBeta];
      n.dispose();
      return { y, props };
    }),
  );

/** The ε and γ/β option sets of the plain calls: with and without each parameter, ε default, 0.1 and 0. */
const LAYER_NORM_OPTIONS = [
  ['γ and β', { gamma: true, beta: true }],
  ['γ', { gamma: true }],
  ['no parameters', {}],
  ['γ and β, ε = 0.1', { gamma: true, beta: true, eps: 0.1 }],
  ['ε = 0', { eps: 0 }],
];
const RMS_NORM_OPTIONS = [
  ['γ', { gamma: true }],
  ['no parameters', {}],
  ['γ, ε = 0.1', { gamma: true, eps: 0.1 }],
  ['ε = 0', { eps: 0 }],
];
/** The options of `o` with γ and β filled in from `a`. */
const params = (a, o) => ({
  ...(o.gamma ? { gamma: a.gamma() } : {}),
  ...(o.beta ? { beta: a.beta() } : {}),
  ...(o.eps !== undefined ? { eps: o.eps } : {}),
});
const specParams = (o) => ({ gamma: o.gamma ? DATA.gamma : null, beta: o.beta ? DATA.beta : null, eps: o.eps ?? 1e-5 });
const tile = (v, n) => Float32Array.from({ length: v.length * n }, (_, i) => v[i % v.length]);

const plain = (norm) => ({
  norm,
  x: DATA.x,
  d: D,
  gamma: null,
  beta: null,
  eps: 1e-5,
  residual: null,
  bias: null,
  dtype: 'float32',
});
const LN = plain('layernorm');
const RMS = plain('rmsnorm');
const FUSED = { residual: DATA.r, bias: DATA.bias };

export const CALLS = [
  ...LAYER_NORM_OPTIONS.map(([what, o]) => ({
    name: `layerNorm, ${what}`,
    spec: { ...LN, ...specParams(o) },
    run: (t, a, extra) => andThen(t.layerNorm(a.x(), D, { ...params(a, o), ...extra }), (y) => ({ y })),
  })),
  ...RMS_NORM_OPTIONS.map(([what, o]) => ({
    name: `rmsNorm, ${what}`,
    spec: { ...RMS, ...specParams(o) },
    run: (t, a, extra) => andThen(t.rmsNorm(a.x(), D, { ...params(a, o), ...extra }), (y) => ({ y })),
  })),
  {
    name: 'layerNormStats, ε = 1e-3',
    spec: { ...LN, eps: 1e-3 },
    run: (t, a) => andThen(t.layerNormStats(a.x(), D, { eps: 1e-3 }), (s) => ({ ...s })),
  },
  {
    name: 'layerNormStages of row 7, γ and β',
    spec: { ...LN, gamma: DATA.gamma, beta: DATA.beta, row: 7 },
    run: (t, a) => andThen(t.layerNormStages(a.x(), D, 7, { gamma: a.gamma(), beta: a.beta() }), stagesRecord),
  },
  {
    name: 'createLayerNorm with γ, β and ε, and its forward',
    spec: { ...LN, gamma: DATA.gamma, beta: DATA.beta, props: ['layernorm', D, 1e-5, 'float32', true, true] },
    run: (t, a, extra) => resident(t.createLayerNorm(D, { gamma: a.gamma(), beta: a.beta(), eps: 1e-5 }), a.x(), extra),
  },
  {
    name: 'createRmsNorm with γ and ε, and its forward',
    spec: { ...RMS, gamma: DATA.gamma, eps: 1e-6, props: ['rmsnorm', D, 1e-6, 'float32', true, false] },
    run: (t, a, extra) => resident(t.createRmsNorm(D, { gamma: a.gamma(), eps: 1e-6 }), a.x(), extra),
  },
  {
    name: 'layerNorm with residual, bias, sumOut, mean and rstd',
    spec: { ...LN, ...FUSED, gamma: DATA.gamma, beta: DATA.beta },
    run: (t, a, extra) => {
      const filled = { sumOut: a.f32(ROWS * D), mean: a.f64(ROWS), rstd: a.f64(ROWS) };
      const options = { gamma: a.gamma(), beta: a.beta(), residual: a.r(), bias: a.bias(), ...filled, ...extra };
      return andThen(t.layerNorm(a.x(), D, options), (y) => ({ y, ...filled }));
    },
  },
  {
    name: 'rmsNorm with residual, bias, sumOut and rstd',
    spec: { ...RMS, ...FUSED, gamma: DATA.gamma },
    run: (t, a, extra) => {
      const filled = { sumOut: a.f32(ROWS * D), rstd: a.f64(ROWS) };
      const options = { gamma: a.gamma(), residual: a.r(), bias: a.bias(), ...filled, ...extra };
      return andThen(t.rmsNorm(a.x(), D, options), (y) => ({ y, ...filled }));
    },
  },
  {
    name: 'layerNormalization over axis 1 of [6, 4, D], Scale { data, shape: [4, D] }, B of [1, 1, D], ε = 0.1',
    spec: { ...LN, d: 4 * D, gamma: DATA.scale, beta: tile(DATA.beta, 4), eps: 0.1 },
    run: (t, a) => {
      const options = {
        axis: 1,
        gamma: { data: a.scale(), shape: [4, D] },
        beta: { data: a.beta(), shape: [1, 1, D] },
        epsilon: 0.1,
      };
      return andThen(t.layerNormalization(a.x(), [6, 4, D], options), (r) => ({
        y: r.y,
        mean: r.mean,
        rstd: r.invStdDev,
        shapes: [r.shape, r.statsShape],
      }));
    },
  },
  {
    name: 'layerNormStages of row 7 with a residual and its bias',
    spec: { ...LN, ...FUSED, gamma: DATA.gamma, beta: DATA.beta, row: 7 },
    run: (t, a) => {
      const options = { gamma: a.gamma(), beta: a.beta(), residual: a.r(), bias: a.bias() };
      return andThen(t.layerNormStages(a.x(), D, 7, options), stagesRecord);
    },
  },
  {
    name: 'rmsNormStages of row 3 with a residual',
    spec: { ...RMS, residual: DATA.r, gamma: DATA.gamma, row: 3 },
    run: (t, a) => andThen(t.rmsNormStages(a.x(), D, 3, { gamma: a.gamma(), residual: a.r() }), stagesRecord),
  },
  ...['float16', 'bfloat16'].flatMap((dtype) => [
    {
      name: `layerNorm of ${dtype} bits, γ and β`,
      spec: { ...LN, gamma: DATA.gamma, beta: DATA.beta, dtype },
      run: (t, a, extra) =>
        andThen(t.layerNorm(a.bits(dtype), D, { gamma: a.gamma(), beta: a.beta(), dtype, ...extra }), (y) => ({ y })),
    },
    {
      name: `rmsNorm of ${dtype} bits with a residual and sumOut`,
      spec: { ...RMS, residual: DATA.r, dtype },
      run: (t, a, extra) => {
        const sumOut = a.u16(ROWS * D);
        const options = { residual: a.rBits(dtype), sumOut, dtype, ...extra };
        return andThen(t.rmsNorm(a.bits(dtype), D, options), (y) => ({ y, sumOut }));
      },
    },
    {
      name: `createLayerNorm of ${dtype}, γ and β, and its forward`,
      spec: { ...LN, gamma: DATA.gamma, beta: DATA.beta, dtype, props: ['layernorm', D, 1e-5, dtype, true, true] },
      run: (t, a, extra) =>
        resident(t.createLayerNorm(D, { gamma: a.gamma(), beta: a.beta(), dtype }), a.bits(dtype), extra),
    },
  ]),
];

/** A row's stages as outputs: the row's output as y, its statistics, and every stage. */
function stagesRecord(s) {
  // An RMSNorm's stages have no mean (their statistic is the mean square).
  const mean = s.mean === undefined ? {} : { mean: Float64Array.of(s.mean) };
  return { y: s.output, ...mean, rstd: Float64Array.of(s.rstd), stages: s };
}
