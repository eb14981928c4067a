// The `adversarial` fuzz target: a search for the largest error, not a sample of inputs. Each input
// is a seeded start, built to sit where web/docs/numerics.md says the roundings add up (the element
// nearest the mean, γ·x̂ and β just under a power of two, ties, gains at the overflow edge, offset
// rows, elements within 2^-126 σ of the mean), from which a hill climb mutates the row, d, ε, γ and
// β to maximize the scaled-ULP error of both builds against the exact oracle. Every step is held to
// the contract (tests/kit/contract.mjs, SULP_BOUND; SIMD and scalar bit-identical), and the row a
// climb ends on also through the fused residual and the worker. Rows outside the bound's premise
// (a row whose float64 sum is not exact: README, "Numerics contract") are not climbed into.
// `summary()` reports the worst row found, with its replay; CI runs it with a fixed seed.
import fc from 'fast-check';
import { initWorker } from '../../../dist/worker/index.js';
import { contractViolation, SULP_BOUND } from '../../kit/contract.mjs';
import { compareToExact, exactLayerNorm, exactRmsNorm, residualSum, ulp32 } from '../../kit/exact.mjs';
import { normal, rng } from '../../kit/random.mjs';
import { fail, sameBits } from '../oracle.mjs';

export const STARTS = ['nearest-mean', 'binade-top', 'tie', 'overflow', 'offset', 'tiny-xhat', 'random'];
const FORMS = ['layernorm', 'biasfree', 'rmsnorm'];
/** Mutation steps per climb. */
export const STEPS = 48;

export const adversarialArbitrary = fc.record({
  seed: fc.integer({ min: 0, max: 0x7fffffff }),
  start: fc.constantFrom(...STARTS),
  form: fc.constantFrom(...FORMS),
  d: fc.oneof(fc.integer({ min: 2, max: 16 }), fc.integer({ min: 17, max: 96 }), fc.constantFrom(257, 769)),
});

const f32 = Math.fround;
/** The float32 n steps from v (n of either sign). */
function stepFloat(v, n) {
  const a = new Float32Array([v]);
  const u = new Int32Array(a.buffer);
  u[0] += v < 0 ? -n : n;
  return a[0];
}

/** The row's x̂ in double (its mean and spread, enough to aim the constructions). */
function xhat(x, eps, rms) {
  const d = x.length;
  let mean = 0;
  if (!rms) {
    for (const v of x) mean += v;
    mean /= d;
  }
  let q = 0;
  for (const v of x) q += (v - mean) ** 2;
  const r = 1 / Math.sqrt(q / d + eps);
  return { mean, r, at: (j) => (x[j] - mean) * r };
}

/**
 * The premise of the bound: the row's float64 sum is exact. Conservative: every value a multiple
 * of the smallest one's spacing, and d · max|x| within 2^52 of that spacing.
 */
export function sumIsExact(x) {
  let smallest = Infinity,
    largest = 0;
  for (const v of x) {
    const a = Math.abs(v);
    if (a !== 0 && a < smallest) smallest = a;
    if (a > largest) largest = a;
  }
  if (largest === 0) return true;
  return x.length * largest <= 2 ** 52 * ulp32(smallest);
}

/** The start of a climb: a row, γ and β (null for none) and ε, built for spec.start. */
function startCase(spec) {
  const rand = rng(spec.seed);
  const { d } = spec;
  const rms = spec.form === 'rmsnorm';
  const x = new Float32Array(d);
  const offset = spec.start === 'offset' ? f32(1e4 * (rand() < 0.5 ? 1 : -1) * (1 + rand())) : 0;
  for (let j = 0; j < d; j++) x[j] = f32(offset + normal(rand));
  let eps = [0, 1e-12, 1e-6, 1e-5, 1e-2][Math.floor(rand() * 5)];
  const gamma = new Float32Array(d).map(() => f32(1 + 0.5 * normal(rand)));
  const beta = spec.form === 'layernorm' ? new Float32Array(d).map(() => f32(0.5 * normal(rand))) : null;
  const j = Math.floor(rand() * d);
  const est = () => xhat(x, eps, rms);
  switch (spec.start) {
    case 'nearest-mean':
    case 'offset':
      // x[j] the float nearest the mean of the others with it: its x − μ is far below its spacing.
      for (let k = 0; k < 3; k++) x[j] = f32(est().mean);
      break;
    case 'binade-top': {
      // γ·x̂ and β just under the same power of two, of one sign (4.31 units at d = 8).
      const e = Math.floor(rand() * 8) - 2;
      const top = 2 ** e * (1 - 2 ** -(8 + Math.floor(rand() * 14)));
      gamma[j] = f32(top / est().at(j));
      if (beta) beta[j] = f32(Math.sign(gamma[j] * est().at(j)) * top * (1 - rand() * 2 ** -10));
      break;
    }
    case 'tie':
      // γ·x̂ + β near a midpoint between two float32s.
      if (beta) {
        const g = gamma[j] * est().at(j);
        const y = f32(g + beta[j]);
        beta[j] = f32(beta[j] + (y + ulp32(Math.abs(y)) / 2 - (g + beta[j])));
      }
      break;
    case 'overflow': {
      // γ·x̂ just under the midpoint above FLT_MAX, or at the edge of the wide path's gain check.
      const target = rand() < 0.5 ? 2 ** 128 - 2 ** 103 : 2 ** 60 / Math.sqrt(d);
      gamma[j] = f32((target * (1 - rand() * 2 ** -20)) / Math.abs(est().at(j)));
      if (!Number.isFinite(gamma[j])) gamma[j] = 3e38;
      break;
    }
    case 'tiny-xhat':
      // An element within 2^-126 σ of the mean (or of 0, for RMSNorm), before a large gain.
      x[j] = f32((rms ? 0 : est().mean) + 1e-40 * normal(rand));
      gamma[j] = f32(1e3 * (1 + rand()));
      eps = 0;
      break;
  }
  for (let k = 0; k < d; k++) if (!Number.isFinite(gamma[k])) gamma[k] = 1;
  return { d, x, gamma, beta, eps, rms, focus: j };
}

/**
 * The answer in float64, unrounded, for the climb to aim by: against the exact answer rounded to
 * float32 errors come in whole spacings, which gives a climb no slope. Each x − μ is exact before
 * its one rounding to float64 ((d·x − Σx)/d over integers, every float32 being one times 2^-149);
 * the contract itself is judged by the exact oracle.
 */
export function realAnswer(c) {
  const { d, x } = c;
  const units = Array.from(x, (v) => BigInt(v * 2 ** 149));
  const sum = c.rms ? 0n : units.reduce((a, b) => a + b, 0n);
  const n = BigInt(c.rms ? 1 : d);
  const centred = units.map((u) => (Number(u * n - sum) * 2 ** -149) / Number(n));
  let q = 0;
  for (const v of centred) q += v * v;
  const r = 1 / Math.sqrt(q / d + c.eps);
  return Float64Array.from(centred, (v, j) => v * r * c.gamma[j] + (c.beta ? c.beta[j] : 0));
}

/** The largest error of y against the float64 answer, in the contract's unit, and where. */
function realError(c, y) {
  const real = realAnswer(c);
  let score = 0,
    worst = -1;
  for (let j = 0; j < c.d; j++) {
    if (!Number.isFinite(y[j]) || !Number.isFinite(real[j])) continue;
    const b = c.beta ? c.beta[j] : 0;
    const s = Math.abs(y[j] - real[j]) / ulp32(Math.max(Math.abs(real[j] - b), Math.abs(b)));
    if (s > score || worst < 0) {
      score = s;
      worst = j;
    }
  }
  return { score, worst };
}

/** The worst error of both builds on c (SIMD and scalar bit-identical), and where. */
function evaluate(simd, scalar, c) {
  const options = c.rms ? { gamma: c.gamma, eps: c.eps } : { gamma: c.gamma, beta: c.beta, eps: c.eps };
  const exact = c.rms ? exactRmsNorm(c.x, c.d, options) : exactLayerNorm(c.x, c.d, options);
  const call = (rt) => (c.rms ? rt.rmsNorm(c.x, c.d, options) : rt.layerNorm(c.x, c.d, options));
  const ys = call(simd);
  if (!sameBits(ys, call(scalar))) fail(`SIMD and scalar differ: ${describe(c)}`);
  const why = contractViolation(ys, exact, c.beta, c.d);
  if (why) fail(`${why}: ${describe(c)}`);
  const { maxSulp } = compareToExact(ys, exact, c.beta, c.d);
  const { score, worst } = realError(c, ys);
  return { score, rounded: maxSulp, worst, exact, y: ys, options };
}

function describe(c) {
  const list = (a) => (a ? `[${Array.from(a).join(', ')}]` : 'none');
  return `${c.rms ? 'RMSNorm' : 'LayerNorm'} d = ${c.d}, ε = ${c.eps}, x = ${list(c.x)}, γ = ${list(c.gamma)}, β = ${list(c.beta)}`;
}

/** One mutation of c (a copy), aimed at the element with the largest error or at random. */
function mutate(c, worst, rand) {
  const m = { ...c, x: c.x.slice(), gamma: c.gamma.slice(), beta: c.beta ? c.beta.slice() : null };
  const j = rand() < 0.7 ? worst : Math.floor(rand() * c.d);
  const steps = () => (rand() < 0.5 ? -1 : 1) * (1 + Math.floor(rand() * 2 ** Math.floor(rand() * 12)));
  switch (Math.floor(rand() * 9)) {
    case 0:
      m.x[j] = stepFloat(m.x[j], steps());
      break;
    case 1:
      m.x[Math.floor(rand() * c.d)] = stepFloat(m.x[Math.floor(rand() * c.d)], steps());
      break;
    case 2:
      m.gamma[j] = stepFloat(m.gamma[j], steps());
      break;
    case 3:
      if (m.beta) m.beta[j] = stepFloat(m.beta[j], steps());
      else m.gamma[j] = stepFloat(m.gamma[j], steps());
      break;
    case 4:
      // Move γ·x̂ (and β) toward just under a power of two.
      {
        const g = m.gamma[j] * xhat(m.x, m.eps, m.rms).at(j);
        const top = 2 ** Math.ceil(Math.log2(Math.abs(g) || 1));
        m.gamma[j] = f32((m.gamma[j] * top * (1 - 2 ** -(10 + rand() * 14))) / Math.abs(g || 1));
        if (m.beta) m.beta[j] = f32(Math.sign(g) * top * (1 - 2 ** -(10 + rand() * 14)));
      }
      break;
    case 5:
      m.eps = m.eps === 0 ? 2 ** -(10 + Math.floor(rand() * 30)) : m.eps * 2 ** (rand() * 4 - 2);
      break;
    case 6:
      // Put another element on the mean's nearest float.
      if (!m.rms) m.x[Math.floor(rand() * c.d)] = f32(xhat(m.x, m.eps, m.rms).mean);
      break;
    case 7:
      // A wider or narrower row: one value appended or dropped (the parameters with it).
      if (c.d > 2 && rand() < 0.5) {
        m.d = c.d - 1;
        m.x = m.x.subarray(0, m.d).slice();
        m.gamma = m.gamma.subarray(0, m.d).slice();
        if (m.beta) m.beta = m.beta.subarray(0, m.d).slice();
      } else {
        m.d = c.d + 1;
        const grow = (a, v) => {
          const b = new Float32Array(m.d);
          b.set(a);
          b[c.d] = v;
          return b;
        };
        m.x = grow(m.x, m.x[Math.floor(rand() * c.d)]);
        m.gamma = grow(m.gamma, m.gamma[j]);
        if (m.beta) m.beta = grow(m.beta, m.beta[j]);
      }
      break;
    default:
      m.x[j] = f32(m.x[j] * (1 + normal(rand) * 2 ** -(rand() * 20)));
  }
  return m;
}

/** The worst row over every climb of this process (the summary's). */
const record = { score: 0, rounded: 0, where: '', replay: '' };

/** One climb; throws FuzzFailure on a violation. Resolves to the climb's worst error. */
export async function climb(ctx, spec, { steps = STEPS } = {}) {
  const { simd, scalar } = ctx;
  const rand = rng(spec.seed ^ 0x5bd1e995);
  let c = startCase(spec);
  if (!sumIsExact(c.x)) return 0;
  let best = evaluate(simd, scalar, c);
  if (best.worst < 0) best.worst = c.focus;
  for (let s = 0; s < steps; s++) {
    const m = mutate(c, best.worst % c.d, rand);
    if (!m.gamma.every(Number.isFinite) || !(m.beta ?? []).every(Number.isFinite) || !sumIsExact(m.x)) continue;
    if (!m.x.every(Number.isFinite) || !Number.isFinite(m.eps)) continue;
    const r = evaluate(simd, scalar, m);
    if (r.score >= best.score) {
      c = m;
      best = r;
      if (best.worst < 0) best.worst = m.focus;
    }
  }
  record.rounded = Math.max(record.rounded, best.rounded);
  if (best.score > record.score) {
    record.score = best.score;
    record.where = describe(c);
    record.replay = JSON.stringify(spec);
  }
  // The row the climb ended on, formed by a fused residual (h = x + 0) and through the worker.
  const zeros = new Float32Array(c.d);
  const fused = c.rms
    ? simd.rmsNorm(c.x, c.d, { ...best.options, residual: zeros })
    : simd.layerNorm(c.x, c.d, { ...best.options, residual: zeros });
  if (!sameBits(residualSum(c.x, zeros, null, c.d), c.x) || !sameBits(fused, best.y))
    fail(`the fused residual differs from the plain call: ${describe(c)}`);
  ctx.worker ??= await initWorker();
  const w = c.rms
    ? await ctx.worker.rmsNorm(c.x, c.d, best.options)
    : await ctx.worker.layerNorm(c.x, c.d, best.options);
  if (!sameBits(w, best.y)) fail(`the worker differs from the main thread: ${describe(c)}`);
  return best.score;
}

/** The target; its worker (`initWorker()`, started at the first climb's end) stops with `close()`. */
export function adversarialTarget({ simd, scalar }) {
  const ctx = { simd, scalar, worker: null };
  return {
    name: 'adversarial',
    async: true,
    property: () => fc.asyncProperty(adversarialArbitrary, (spec) => climb(ctx, spec).then(() => undefined)),
    close: () => ctx.worker?.dispose(),
    summary: () =>
      `worst ${record.score.toFixed(3)} scaled ULP of the answer in float64, ${record.rounded.toFixed(3)} of the exact ` +
      `answer rounded to float32 (bound ${SULP_BOUND})` +
      (record.replay ? `, start ${record.replay}\n    ${record.where.slice(0, 600)}` : ''),
  };
}
