// The `differential` fuzz target: random shapes and values through the SIMD build and the scalar
// build: bit-identical, the accuracy contract met against the exact oracle (constant rows exactly
// β), and the other entry points (layerNormStats, layerNormStages, createLayerNorm) agreeing with
// layerNorm.
import fc from 'fast-check';
import { contractViolation } from '../../kit/contract.mjs';
import { exactLayerNorm } from '../../kit/exact.mjs';
import { normal as gaussian, rng } from '../../kit/random.mjs';
import { knownIssueSlack } from '../known-issues.mjs';
import { fail, sameBits } from '../oracle.mjs';

export const differentialArbitrary = fc.record({
  d: fc.oneof(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 300 })),
  rows: fc.integer({ min: 0, max: 20 }),
  seed: fc.integer({ min: 0, max: 0xffffffff }),
  eps: fc.oneof(fc.constantFrom(0, 1e-12, 1e-5, 1e-5, 0.1, 1, 1e10), fc.double({ min: 0, max: 100, noNaN: true })),
  gamma: fc.constantFrom('none', 'ones', 'normal', 'wide', 'large'),
  beta: fc.constantFrom('none', 'zeros', 'normal', 'large'),
  constantRows: fc.double({ min: 0, max: 0.3, noNaN: true }),
  nonFiniteRows: fc.double({ min: 0, max: 0.2, noNaN: true }),
  minExp: fc.integer({ min: -40, max: 30 }),
  span: fc.integer({ min: 0, max: 70 }),
});

function param(kind, d, rand) {
  if (kind === 'none') return null;
  const a = new Float32Array(d);
  for (let j = 0; j < d; j++) {
    switch (kind) {
      case 'ones':
        a[j] = 1;
        break;
      case 'zeros':
        a[j] = 0;
        break;
      case 'normal':
        a[j] = gaussian(rand) * 0.2;
        break;
      case 'wide':
        a[j] = gaussian(rand) * 10 ** (4 * rand() - 2);
        break;
      default: // large: |v| up to 1e3
        a[j] = (rand() < 0.5 ? -1 : 1) * 1e3 * rand();
    }
  }
  return a;
}

/** Builds the arrays of one differential case. */
export function buildCase(spec) {
  const { d, rows, seed } = spec;
  const rand = rng(seed);
  const x = new Float32Array(rows * d);
  for (let r = 0; r < rows; r++) {
    const exp = spec.minExp + rand() * Math.min(spec.span, 30 - spec.minExp);
    const s = 10 ** exp;
    const offset = rand() < 0.5 ? 0 : (rand() < 0.5 ? -1 : 1) * s * 10 ** (7 * rand());
    const base = r * d;
    if (rand() < spec.constantRows) {
      x.fill(Math.fround(offset + s * gaussian(rand)), base, base + d);
    } else {
      for (let j = 0; j < d; j++) x[base + j] = offset + s * gaussian(rand);
    }
    if (rand() < spec.nonFiniteRows) {
      x[base + Math.floor(rand() * d)] = [NaN, Infinity, -Infinity][Math.floor(rand() * 3)];
    }
  }
  const gamma = param(spec.gamma, d, rand);
  if (gamma && spec.gamma === 'normal') for (let j = 0; j < d; j++) gamma[j] += 1;
  const beta = param(spec.beta, d, rand);
  return { d, rows, eps: spec.eps, x, gamma, beta };
}

/** One input of the target; throws FuzzFailure on a violation. */
export function checkDifferential(simd, scalar, spec, { extra = true } = {}) {
  const c = buildCase(spec);
  const { d, rows, x, gamma, beta, eps } = c;
  const options = { gamma, beta, eps };
  const ys = simd.layerNorm(x, d, options);
  const yc = scalar.layerNorm(x, d, options);
  if (!sameBits(ys, yc)) fail('SIMD and scalar outputs differ');
  const exact = exactLayerNorm(x, d, options);
  const why = contractViolation(ys, exact, beta, d, { slack: knownIssueSlack('layernorm', x, d, options, exact) });
  if (why) fail(why);
  for (let r = 0; r < rows; r++) {
    const row = x.subarray(r * d, (r + 1) * d);
    if (!Number.isFinite(row[0]) || !row.every((v) => v === row[0])) continue;
    for (let j = 0; j < d; j++) {
      const b = beta ? beta[j] : 0;
      if (ys[r * d + j] !== b) fail(`constant row ${r} gave ${ys[r * d + j]}, not beta ${b}`);
    }
  }
  if (!extra || rows === 0) return;
  // The other entry points agree with layerNorm, bit for bit.
  const ss = simd.layerNormStats(x, d, { eps }),
    sc = scalar.layerNormStats(x, d, { eps });
  for (const k of ['mean', 'variance', 'rstd'])
    if (!sameBits(ss[k], sc[k])) fail(`layerNormStats ${k} differs between builds`);
  const row = spec.seed % rows;
  const stages = simd.layerNormStages(x, d, row, options);
  const expect = ys.subarray(row * d, (row + 1) * d);
  // Bit for bit, except that any NaN matches any NaN (payloads are not part of the contract).
  const got = new Uint32Array(stages.output.buffer, stages.output.byteOffset, d);
  const want = new Uint32Array(expect.buffer, expect.byteOffset, d);
  const sameOutput = stages.output.every((v, j) => got[j] === want[j] || (Number.isNaN(v) && Number.isNaN(expect[j])));
  if (!sameOutput) fail('layerNormStages output differs from layerNorm');
  const ln = simd.createLayerNorm(d, options);
  try {
    if (!sameBits(ln.forward(x), ys)) fail('createLayerNorm().forward differs from layerNorm');
  } finally {
    ln.dispose();
  }
}

export function differentialTarget({ simd, scalar }) {
  return {
    name: 'differential',
    async: false,
    property: () => fc.property(differentialArbitrary, (spec) => checkDifferential(simd, scalar, spec)),
  };
}
