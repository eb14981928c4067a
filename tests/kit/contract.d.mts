/** null when y is within `bound` (default 4) scaled ULP of the exact answer, with its NaN/±Infinity pattern; else why not. */
export function contractViolation(
  y: ArrayLike<number>,
  exact: ArrayLike<number>,
  beta: ArrayLike<number> | null,
  d: number,
  options?: { bound?: number; slack?: (i: number) => number },
): string | null;
