/** How the command line prints numbers, ranges and sizes. */

/**
 * The smallest and largest of per-row statistics, and how many rows have none: a row whose input
 * holds NaN or ±Inf has NaN statistics, which a range would otherwise leave out without a word.
 */
export function range(values: Float64Array): string {
  let lo = Infinity;
  let hi = -Infinity;
  let nan = 0;
  for (const v of values) {
    if (Number.isNaN(v)) nan++;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const rows = (n: number) => `${n} row${n === 1 ? '' : 's'}`;
  if (nan === 0) return values.length ? `[${fmt(lo)}, ${fmt(hi)}]` : '[]';
  const why = `NaN (${nan === 1 ? 'its input holds' : 'their input holds'} NaN or ±Inf)`;
  if (nan === values.length) return `none: all ${rows(nan)} ${nan === 1 ? 'is' : 'are'} ${why}`;
  return `[${fmt(lo)}, ${fmt(hi)}] over ${values.length - nan} of ${rows(values.length)}; ${rows(nan)} ${nan === 1 ? 'is' : 'are'} ${why}`;
}

/** A shape without its axes of size 1: [1, 6, 1, 32] → [6, 32]. */
export function squeezed(shape: readonly number[]): number[] {
  return shape.filter((n) => n !== 1);
}

export const shapeText = (shape: readonly number[]) => `[${shape.join(', ')}]`;

export function fmt(v: number): string {
  return Number.isInteger(v) && Math.abs(v) < 1e6 ? String(v) : v.toPrecision(6);
}

export function kb(bytes: number): string {
  return bytes < 1024
    ? `${bytes} B`
    : bytes < 1 << 20
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 2 ** 20).toFixed(1)} MB`;
}
