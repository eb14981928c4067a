// The accuracy contract judged against the exact oracle: every output within `bound` scaled ULP
// (|y − e| / ulp32(max(|e − β|, |β|)), the spacing of max(|γ·x̂|, |β|)) of the exact answer where that answer is finite, and NaN or
// ±Infinity exactly where the exact answer has them (never Inf where the exact answer is finite).
import { ulp32 } from './exact.mjs';

/** The bound web/docs/numerics.md proves for every float32 output, in scaled ULP. */
export const SULP_BOUND = 6.5;

/**
 * null when y meets the contract against exact (β of column i % d, null for none), else a message
 * naming the first element that breaks it: its row and column, both values and the error. `slack`
 * (optional, i => extra scaled ULP) widens the bound element by element, for documented limits.
 */
export function contractViolation(y, exact, beta, d, { bound = SULP_BOUND, slack } = {}) {
  if (y.length !== exact.length) return `length ${y.length}, the exact answer's ${exact.length}`;
  let worst = -1,
    worstError = 0;
  for (let i = 0; i < y.length; i++) {
    const a = y[i],
      e = exact[i];
    const where = `row ${Math.floor(i / d)}, column ${i % d}`;
    if (!Number.isFinite(e) || !Number.isFinite(a)) {
      if (!(a === e || (a !== a && e !== e))) return `${where}: ${a} where the exact answer is ${e}`;
      continue;
    }
    const b = beta ? beta[i % d] : 0;
    const error = Math.abs(a - e) / ulp32(Math.max(Math.abs(e - b), Math.abs(b)));
    if (error > bound + (slack ? slack(i) : 0) && error > worstError) {
      worst = i;
      worstError = error;
    }
  }
  if (worst < 0) return null;
  const b = beta ? beta[worst % d] : 0;
  return (
    `row ${Math.floor(worst / d)}, column ${worst % d}: ${y[worst]} where the exact answer is ${exact[worst]}` +
    ` (β ${b}): ${worstError.toPrecision(4)} scaled ULP > ${bound}`
  );
}
