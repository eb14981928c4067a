/** Minimal canvas bar charts: the stage charts of the explainer and the error histogram. */

const INK = '#1f2430';
const MUTED = '#6b7280';
const POS = '#d66010';
const NEG = '#2166ac';

function setup(canvas: HTMLCanvasElement, cssHeight: number): { ctx: CanvasRenderingContext2D; w: number; h: number } {
  const dpr = Math.min(2, window.devicePixelRatio || 1);
  const w = Math.max(120, canvas.clientWidth || canvas.parentElement?.clientWidth || 300);
  canvas.width = Math.round(w * dpr);
  canvas.height = Math.round(cssHeight * dpr);
  canvas.style.height = `${cssHeight}px`;
  const ctx = canvas.getContext('2d')!;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, cssHeight);
  ctx.font = '11px system-ui, sans-serif';
  return { ctx, w, h: cssHeight };
}

export interface BarOptions {
  /** Index of values[0] (feature number shown on the axis). */
  offset: number;
  /** Print each value above/below its bar (for small windows). */
  showValues: boolean;
  fmt: (v: number) => string;
  height?: number;
}

/** Bars from a zero line; positive up, negative down, so sign is shown by position, not colour alone. */
export function drawBars(canvas: HTMLCanvasElement, values: ArrayLike<number>, opts: BarOptions): void {
  const { ctx, w, h } = setup(canvas, opts.height ?? 150);
  const n = values.length;
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (Number.isFinite(v)) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  if (hi === lo) hi = lo + 1;
  const padL = 6;
  const padR = 6;
  const padT = opts.showValues ? 16 : 6;
  const padB = 18 + (opts.showValues ? 14 : 0);
  const plotH = h - padT - padB;
  const y = (v: number) => padT + ((hi - v) / (hi - lo)) * plotH;
  const zero = y(0);
  const bw = (w - padL - padR) / n;
  ctx.strokeStyle = MUTED;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(padL, Math.round(zero) + 0.5);
  ctx.lineTo(w - padR, Math.round(zero) + 0.5);
  ctx.stroke();
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) continue;
    const x0 = padL + i * bw;
    const top = Math.min(y(v), zero);
    const hgt = Math.max(1, Math.abs(y(v) - zero));
    ctx.fillStyle = v >= 0 ? POS : NEG;
    ctx.fillRect(x0 + (bw > 4 ? bw * 0.15 : 0), top, bw > 4 ? bw * 0.7 : Math.max(bw, 0.6), hgt);
    if (opts.showValues) {
      ctx.fillStyle = INK;
      ctx.textAlign = 'center';
      const label = opts.fmt(v);
      const ty = v >= 0 ? top - 3 : top + hgt + 11;
      ctx.fillText(label, x0 + bw / 2, Math.max(10, Math.min(h - padB + 11, ty)));
    }
  }
  // axis labels
  ctx.fillStyle = MUTED;
  ctx.textAlign = 'center';
  if (n <= 16) {
    for (let i = 0; i < n; i++) ctx.fillText(String(opts.offset + i), padL + (i + 0.5) * bw, h - 4);
  } else {
    const ticks = 6;
    for (let k = 0; k <= ticks; k++) {
      const i = Math.round((k / ticks) * (n - 1));
      ctx.textAlign = k === 0 ? 'left' : k === ticks ? 'right' : 'center';
      const x = k === 0 ? padL : k === ticks ? w - padR : padL + (i + 0.5) * bw;
      ctx.fillText(String(opts.offset + i), x, h - 4);
    }
  }
  ctx.textAlign = 'left';
  ctx.fillText(`max ${opts.fmt(hi)}`, padL, 10);
  ctx.textAlign = 'right';
  ctx.fillText(`min ${opts.fmt(lo)}`, w - padR, 10);
}

/** Lets the visitor drag across a chart to pick a feature range. */
export function attachDragZoom(
  canvas: HTMLCanvasElement,
  range: () => { from: number; to: number },
  onZoom: (from: number, to: number) => void,
): void {
  let start: number | null = null;
  const toIndex = (clientX: number) => {
    const rect = canvas.getBoundingClientRect();
    const { from, to } = range();
    const t = Math.min(1, Math.max(0, (clientX - rect.left - 6) / (rect.width - 12)));
    return Math.round(from + t * (to - from));
  };
  canvas.addEventListener('pointerdown', (e) => {
    start = toIndex(e.clientX);
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener('pointerup', (e) => {
    if (start === null) return;
    const end = toIndex(e.clientX);
    const a = Math.min(start, end);
    const b = Math.max(start, end);
    start = null;
    if (b - a >= 3) onZoom(a, b);
  });
}

/** Vertical histogram with the count printed above each bin. */
export function drawHistogram(canvas: HTMLCanvasElement, counts: number[], labels: string[], xTitle: string): void {
  const { ctx, w, h } = setup(canvas, 150);
  const max = Math.max(1, ...counts);
  const padB = 30;
  const padT = 16;
  const bw = (w - 8) / counts.length;
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i]!;
    const bh = c ? Math.max(2, (c / max) * (h - padB - padT)) : 0;
    const x = 4 + i * bw;
    ctx.fillStyle = i <= 2 ? '#3b7d3b' : POS;
    ctx.fillRect(x + bw * 0.12, h - padB - bh, bw * 0.76, bh);
    ctx.fillStyle = INK;
    ctx.textAlign = 'center';
    ctx.fillText(c.toLocaleString('en-US'), x + bw / 2, h - padB - bh - 4);
    ctx.fillStyle = MUTED;
    ctx.fillText(labels[i]!, x + bw / 2, h - padB + 12);
  }
  ctx.fillText(xTitle, w / 2, h - 3);
}
