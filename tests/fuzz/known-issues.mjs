// The kernels' known limits, cpp/tests/fuzz_regressions/README.md, as the extra error the fuzz
// targets allow for each — unless LAYERNORM_FUZZ_STRICT is set (as CI sets it), where the bound is
// the contract's (tests/kit/contract.mjs, SULP_BOUND) and nothing more. Both are rows outside the
// premise of web/docs/numerics.md (a row spanning more binades than its float64 sum holds exactly).
import { ulp32 } from '../kit/exact.mjs';
import { exactStats } from '../kit/stats.mjs';

export const STRICT = typeof process !== 'undefined' && !!process.env.LAYERNORM_FUZZ_STRICT;

/**
 * slack(i) for contractViolation on h (what the kernel normalized), or undefined when strict:
 * a subnormal float32 x̂ (rounding error up to 2^-150, times |γ|), and for LayerNorm a float64 mean
 * only as exact as a float64 sum (about d·2^-53 of the row's magnitude, times |γ|·rstd).
 */
export function knownIssueSlack(norm, h, d, { gamma, beta, eps }, exact) {
  if (STRICT) return undefined;
  const { rstd } = exactStats(h, d, { norm, eps });
  const meanError = new Float64Array(rstd.length);
  if (norm === 'layernorm') {
    for (let r = 0; r < rstd.length; r++) {
      let spread = 0,
        magnitude = 0;
      for (let j = 0; j < d; j++) {
        spread = Math.max(spread, Math.abs(h[r * d + j] - h[r * d]));
        magnitude = Math.max(magnitude, Math.abs(h[r * d + j]));
      }
      meanError[r] = spread === 0 ? 0 : d * 2 ** -52 * (spread + magnitude);
    }
  }
  return (i) => {
    const r = Math.floor(i / d),
      j = i % d;
    const b = beta ? beta[j] : 0;
    const g = gamma ? Math.abs(gamma[j]) : 1;
    const ulp = ulp32(Math.max(Math.abs(exact[i] - b), Math.abs(b)));
    let extra = (g * meanError[r] * rstd[r]) / ulp;
    if (Math.abs(exact[i] - b) < 2 ** -125 * Math.max(g, 1)) extra += (g * 2 ** -150) / ulp;
    return Number.isFinite(extra) ? extra : 0;
  };
}
