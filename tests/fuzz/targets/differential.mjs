// The `differential` fuzz target: random shapes and values through the SIMD build, the scalar build
// and the float64 reference: SIMD and scalar bit-identical, the accuracy contract met, and the other
// entry points (layerNormStats, layerNormStages, createLayerNorm) agreeing with layerNorm.
import fc from 'fast-check';
import { layerNormReference, ulp32 } from '../../../dist/index.js';
import { normal as gaussian, rng } from '../../kit/random.mjs';
import { fail, sameBits } from '../oracle.mjs';

/** Set to fail on the known issues of cpp/tests/fuzz_regressions/README.md as well. */
const STRICT = typeof process !== 'undefined' && !!process.env.LAYERNORM_FUZZ_STRICT;

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
  const ref = layerNormReference(x, d, options);
  for (let r = 0; r < rows; r++) {
    const base = r * d;
    let finite = true,
      mean = 0,
      spread = 0,
      magnitude = 0;
    for (let j = 0; j < d; j++) {
      const v = x[base + j];
      finite &&= Number.isFinite(v);
      mean += v;
      spread = Math.max(spread, Math.abs(v - x[base]));
      magnitude = Math.max(magnitude, Math.abs(v));
    }
    mean /= d;
    let squares = 0;
    for (let j = 0; j < d; j++) squares += (x[base + j] - mean) ** 2;
    const rstd = 1 / Math.sqrt(squares / d + eps);
    const meanError = spread === 0 ? 0 : d * 2 ** -52 * (spread + magnitude);
    for (let j = 0; j < d; j++) {
      const y = ys[base + j],
        e = ref[base + j];
      if (!finite) {
        if (!Number.isNaN(y) || !Number.isNaN(e))
          fail(`row ${r} holds NaN/Inf but element ${j} is ${y} (reference ${e})`);
        continue;
      }
      if (!Number.isFinite(e)) fail(`reference not finite on a finite row (row ${r}, element ${j})`);
      if (!Number.isFinite(y)) fail(`output ${y} where the reference is ${e} (row ${r}, element ${j})`);
      const b = beta ? beta[j] : 0;
      const g = gamma ? Math.abs(gamma[j]) : 1;
      const ulp = ulp32(Math.abs(e - b) + Math.abs(b));
      let bound = 4;
      if (!STRICT) {
        // The known issues of cpp/tests/fuzz_regressions/README.md, each allowed for exactly its
        // mechanism: a subnormal float32 x-hat (rounding error <= 2^-150, scaled by gamma) and a
        // float64 mean only as exact as a float64 sum (~d * 2^-53 of the row's magnitude).
        if (Math.abs(e - b) < 2 ** -125 * Math.max(g, 1)) bound += (g * 2 ** -150) / ulp;
        if (meanError > 0) bound += (g * meanError * rstd) / ulp;
      }
      const err = Math.abs(y - e) / ulp;
      if (!(err <= bound)) {
        fail(
          `error ${err.toFixed(2)} scaled ULP > ${bound.toFixed(2)} at row ${r}, element ${j}: ${y} vs reference ${e}`,
        );
      }
      if (spread === 0 && y !== b) fail(`constant row ${r} gave ${y}, not beta ${b}`);
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
