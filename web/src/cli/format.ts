/** How the command line prints numbers, ranges and sizes. */

export function range(values: Float64Array): string {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return values.length ? `[${fmt(lo)}, ${fmt(hi)}]` : '[]';
}

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
