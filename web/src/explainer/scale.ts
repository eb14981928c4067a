/**
 * The value axis of the charts: linear, or symmetric log (asinh, linear within ±1 and logarithmic
 * beyond, so a massive activation of 3000 and ordinary values near 1 are both readable on one
 * axis), with the ticks each shows.
 */

export type ScaleMode = 'symlog' | 'linear';

export interface ValueScale {
  /** Pixel y of a value. */
  y(v: number): number;
  ticks: number[];
}

const forward = (mode: ScaleMode) => (mode === 'symlog' ? Math.asinh : (v: number) => v);

/** The range to draw [lo, hi], containing 0, with a little room beyond the extremes. */
export function paddedRange(lo: number, hi: number, mode: ScaleMode): [number, number] {
  if (!(Number.isFinite(lo) && Number.isFinite(hi))) return [-1, 1];
  lo = Math.min(0, lo);
  hi = Math.max(0, hi);
  if (lo === hi) return [-1, 1];
  if (mode === 'symlog') return [lo * 1.1, hi * 1.1];
  const m = (hi - lo) * 0.05;
  return [lo < 0 ? lo - m : lo, hi > 0 ? hi + m : hi];
}

/** Maps [lo, hi] onto pixels [bottom, top] (top < bottom). */
export function valueScale(
  mode: ScaleMode,
  [lo, hi]: readonly [number, number],
  top: number,
  bottom: number,
  minTickGap = 18,
): ValueScale {
  const f = forward(mode);
  const f0 = f(lo);
  const f1 = f(hi);
  const span = f1 - f0 || 1;
  const y = (v: number) => bottom - ((f(Math.min(hi, Math.max(lo, v))) - f0) / span) * (bottom - top);
  const candidates =
    mode === 'symlog' ? decades(lo, hi) : niceTicks(lo, hi, Math.max(2, Math.floor((bottom - top) / 32)));
  // Keep 0, then every tick at least minTickGap pixels from the ones kept.
  const kept: number[] = [];
  for (const t of [...candidates].sort((a, b) => Math.abs(a) - Math.abs(b))) {
    if (kept.every((k) => Math.abs(y(k) - y(t)) >= minTickGap)) kept.push(t);
  }
  return { y, ticks: kept.sort((a, b) => a - b) };
}

/** 0 and ±10^k inside [lo, hi]. */
function decades(lo: number, hi: number): number[] {
  const out = [0];
  const top = Math.max(Math.abs(lo), Math.abs(hi));
  for (let p = 1; p <= top && p < 1e30; p *= 10) {
    if (p <= hi) out.push(p);
    if (-p >= lo) out.push(-p);
  }
  return out;
}

/** About `count` round numbers (1, 2 or 5 × 10^k apart) covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count: number): number[] {
  const raw = (hi - lo) / Math.max(1, count);
  if (!(raw > 0) || !Number.isFinite(raw)) return [0];
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
  const out: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
    out.push(Math.abs(t) < step * 1e-9 ? 0 : Number(t.toPrecision(12)));
  }
  return out;
}
