/** The bound web/docs/numerics.md proves for every float32 output, in scaled ULP. */
export const SULP_BOUND: number;

/** null when y is within `bound` (default SULP_BOUND) scaled ULP of the exact answer, with its NaN/±Infinity pattern; else why not. */
export function contractViolation(
  y: ArrayLike<number>,
  exact: ArrayLike<number>,
  beta: ArrayLike<number> | null,
  d: number,
  options?: { bound?: number; slack?: (i: number) => number },
): string | null;
