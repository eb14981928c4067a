// The `exact` fuzz target: the test kit's hard rows (near-constant at offsets, few levels, huge,
// subnormal, narrow, γ·x̂ beyond float32, GPT-2-like; widths up to 4,096, up to 8,192 elements)
// through the SIMD and scalar builds, for LayerNorm, bias-free, RMSNorm and the fused residual,
// judged by the exact oracle: within 6.5 scaled ULP, NaN/±Infinity exactly where the exact answer
// has them (plus the known limits of ../known-issues.mjs unless strict). The input is the case's
// seed: replay with hardCase(seed, { kind, maxD: 4096, maxElements: 8192 }).
import fc from 'fast-check';
import { contractViolation } from '../../kit/contract.mjs';
import { exactLayerNorm, exactRmsNorm, residualSum } from '../../kit/exact.mjs';
import { HARD_KINDS, hardCase, splitResidual } from '../../kit/hard-rows.mjs';
import { knownIssueSlack } from '../known-issues.mjs';
import { fail } from '../oracle.mjs';

const SIZE = { maxD: 4096, maxElements: 8192 };

export const exactArbitrary = fc.record({
  seed: fc.integer({ min: 0, max: 0x7fffffff }),
  kind: fc.constantFrom(...HARD_KINDS),
  norm: fc.constantFrom('layernorm', 'rmsnorm'),
  bias: fc.boolean(), // β for LayerNorm (when the case has one)
  fused: fc.boolean(),
});

/** One input of the target; throws FuzzFailure on a violation. */
export function checkExact(simd, scalar, spec) {
  const c = hardCase(spec.seed, { kind: spec.kind, ...SIZE });
  const rms = spec.norm === 'rmsnorm';
  const beta = rms || !spec.bias ? null : c.beta;
  const options = rms ? { gamma: c.gamma, eps: c.eps } : { gamma: c.gamma, beta, eps: c.eps };
  let x = c.h,
    h = c.h,
    fused = {};
  if (spec.fused) {
    const split = splitResidual(spec.seed, c.h, c.d);
    x = split.x;
    h = residualSum(split.x, split.residual, split.bias, c.d);
    fused = { residual: split.residual, bias: split.bias };
  }
  const exact = rms ? exactRmsNorm(h, c.d, options) : exactLayerNorm(h, c.d, options);
  const slack = knownIssueSlack(spec.norm, h, c.d, { gamma: c.gamma, beta, eps: c.eps }, exact);
  for (const [name, rt] of [
    ['SIMD', simd],
    ['scalar', scalar],
  ]) {
    const y = rms ? rt.rmsNorm(x, c.d, { ...options, ...fused }) : rt.layerNorm(x, c.d, { ...options, ...fused });
    const why = contractViolation(y, exact, beta, c.d, { slack });
    if (why) fail(`${name} ${spec.norm}${spec.fused ? ' (fused residual)' : ''}, ${c.label} (ε = ${c.eps}): ${why}`);
  }
}

export function exactTarget({ simd, scalar }) {
  return {
    name: 'exact',
    async: false,
    property: () => fc.property(exactArbitrary, (spec) => checkExact(simd, scalar, spec)),
  };
}
