/**
 * Charts drawn with uPlot: the explainer's stage bars (shared linear or symmetric-log scale, synced
 * cursors, drag to zoom), whole-row feature charts with callouts, and the error histogram. Kept
 * together: they share the page's uPlot setup (themes, scales, sizing, the symmetric-log axis).
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export const COLORS = {
  ink: '#1f2430',
  muted: '#5b6472',
  grid: '#e6e9ef',
  pos: '#c2570c',
  neg: '#2166ac',
  gamma: '#b4530f',
  beta: '#2166ac',
  ln: '#c2570c',
  biasfree: '#2166ac',
  rms: '#3b7d3b',
  ok: '#3b7d3b',
};

export type ScaleMode = 'symlog' | 'linear';

/** Non-finite values become gaps (uPlot draws null as nothing). */
function toSeries(values: ArrayLike<number>): (number | null)[] {
  return Array.from(values, (v) => (Number.isFinite(v) ? v : null));
}

function axisFont(): string {
  return '11px system-ui, sans-serif';
}

/** Keeps a chart as wide as its container. */
function fitWidth(u: uPlot, container: HTMLElement, height: number): ResizeObserver {
  const ro = new ResizeObserver(() => {
    const w = Math.max(160, Math.floor(container.clientWidth));
    if (w !== u.width) u.setSize({ width: w, height });
  });
  ro.observe(container);
  return ro;
}

export interface StageChartData {
  /** Feature index of values[0]. */
  offset: number;
  values: Float32Array;
  /** Shared y range, or null for the chart's own. */
  range: [number, number] | null;
  mode: ScaleMode;
  /** Print each value by its bar (small windows). */
  labels: boolean;
  fmt: (v: number) => string;
}

/** One stage of the explainer as bars from zero: sign by position as well as colour. */
export class StageChart {
  #u: uPlot | null = null;
  #mode: ScaleMode | null = null;
  #data: StageChartData | null = null;
  #ro: ResizeObserver | null = null;
  readonly #height: number;

  constructor(
    private readonly container: HTMLElement,
    private readonly hooks: { onZoom?: (from: number, to: number) => void; onHover?: (feature: number | null) => void },
    height = 150,
  ) {
    this.#height = height;
  }

  set(data: StageChartData): void {
    this.#data = data;
    if (!this.#u || this.#mode !== data.mode) this.#build(data.mode);
    const xs = Array.from({ length: data.values.length }, (_, i) => data.offset + i);
    this.#u!.setData([xs, toSeries(data.values)], true);
  }

  destroy(): void {
    this.#ro?.disconnect();
    this.#u?.destroy();
    this.#u = null;
  }

  #build(mode: ScaleMode): void {
    this.destroy();
    this.#mode = mode;
    const width = Math.max(160, this.container.clientWidth || 300);
    const yRange: uPlot.Scale.Range = (_u, dataMin, dataMax) => {
      const d = this.#data;
      if (d?.range) return pad(d.range[0], d.range[1], mode);
      return pad(Math.min(0, dataMin ?? 0), Math.max(0, dataMax ?? 0), mode);
    };
    const opts: uPlot.Options = {
      width,
      height: this.#height,
      legend: { show: false },
      scales: {
        x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] },
        y: mode === 'symlog' ? { distr: 4, asinh: 1, range: yRange } : { range: yRange },
      },
      axes: [
        { stroke: COLORS.muted, font: axisFont(), grid: { show: false }, ticks: { size: 3 }, size: 24 },
        {
          stroke: COLORS.muted,
          font: axisFont(),
          grid: { stroke: COLORS.grid, width: 1 },
          ticks: { size: 3 },
          size: 52,
          space: 22,
          values: (_u, vals) => vals.map((v) => (v === null || v === undefined ? '' : compactTick(v))),
          // Symmetric log: ticks at 0 and the powers of ten only (uPlot's default adds every step between).
          ...(mode === 'symlog'
            ? { splits: (_u: uPlot, _i: number, min: number, max: number) => decades(min, max) }
            : {}),
        },
      ],
      series: [
        {},
        {
          // No stroke (width 0): with a stroke, uPlot fills bars too dense for it with the stroke's colour.
          stroke: (u) => barGradient(u),
          width: 0,
          fill: (u) => barGradient(u),
          paths: uPlot.paths.bars!({ size: [0.7, 40, 1], align: 0 }),
          points: { show: false },
        },
      ],
      cursor: {
        sync: { key: 'stages' },
        drag: { x: !!this.hooks.onZoom, y: false, setScale: false },
        points: { show: false },
      },
      hooks: {
        draw: [(u) => this.#drawExtras(u)],
        setSelect: [
          (u) => {
            if (!this.hooks.onZoom || u.select.width < 4) return;
            const a = Math.round(u.posToVal(u.select.left, 'x'));
            const b = Math.round(u.posToVal(u.select.left + u.select.width, 'x'));
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            if (b - a >= 3) this.hooks.onZoom(a, b);
          },
        ],
        setCursor: [
          (u) => {
            const i = u.cursor.idx;
            this.hooks.onHover?.(i === null || i === undefined ? null : (this.#data?.offset ?? 0) + i);
          },
        ],
      },
    };
    this.#u = new uPlot(opts, [[], []], this.container);
    this.#ro = fitWidth(this.#u, this.container, this.#height);
  }

  #drawExtras(u: uPlot): void {
    const d = this.#data;
    if (!d) return;
    const ctx = u.ctx;
    const dpr = devicePixelRatio || 1;
    ctx.save();
    ctx.font = `${11 * dpr}px system-ui, sans-serif`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'alphabetic';
    // Zero line.
    const y0 = u.valToPos(0, 'y', true);
    ctx.strokeStyle = COLORS.muted;
    ctx.lineWidth = dpr;
    ctx.beginPath();
    ctx.moveTo(u.bbox.left, Math.round(y0) + 0.5);
    ctx.lineTo(u.bbox.left + u.bbox.width, Math.round(y0) + 0.5);
    ctx.stroke();
    let finite = 0;
    // Value labels only where they fit; the stage table below has every value in full.
    const perBar = u.bbox.width / dpr / Math.max(1, d.values.length);
    const labels = d.labels && perBar >= 30;
    const fmt = perBar >= 56 ? d.fmt : (v: number) => compactTick(Number(v.toPrecision(2)));
    for (let i = 0; i < d.values.length; i++) {
      const v = d.values[i]!;
      const x = u.valToPos(d.offset + i, 'x', true);
      if (!Number.isFinite(v)) {
        // A non-finite value has no bar: say what it is where the bar would be.
        ctx.fillStyle = '#a3261b';
        if (d.labels || d.values.length <= 64) ctx.fillText(String(v), x, y0 - 4 * dpr);
        continue;
      }
      finite++;
      if (!labels) continue;
      const y = u.valToPos(v, 'y', true);
      ctx.fillStyle = COLORS.ink;
      const above = v >= 0;
      const ty = above
        ? Math.max(u.bbox.top + 10 * dpr, y - 3 * dpr)
        : Math.min(u.bbox.top + u.bbox.height - 2 * dpr, y + 11 * dpr);
      ctx.fillText(fmt(v), x, ty);
    }
    if (finite === 0) {
      ctx.fillStyle = '#a3261b';
      ctx.font = `${13 * dpr}px system-ui, sans-serif`;
      ctx.fillText('no finite values: nothing to draw', u.bbox.left + u.bbox.width / 2, u.bbox.top + u.bbox.height / 2);
    }
    ctx.restore();
  }
}

/** Orange above zero, blue below: the fill is a hard split at the zero line. */
function barGradient(u: uPlot): CanvasGradient | string {
  const y0 = u.valToPos(0, 'y', true);
  const top = u.bbox.top;
  const h = u.bbox.height;
  if (!(h > 0)) return COLORS.pos;
  const t = Math.min(1, Math.max(0, (y0 - top) / h));
  const g = u.ctx.createLinearGradient(0, top, 0, top + h);
  g.addColorStop(0, COLORS.pos);
  g.addColorStop(t, COLORS.pos);
  g.addColorStop(t, COLORS.neg);
  g.addColorStop(1, COLORS.neg);
  return g;
}

function pad(lo: number, hi: number, mode: ScaleMode): [number, number] {
  if (!(Number.isFinite(lo) && Number.isFinite(hi))) return [-1, 1];
  if (lo === hi) return [lo - 1, hi + 1];
  if (mode === 'symlog') return [lo < 0 ? lo * 1.25 : lo, hi > 0 ? hi * 1.25 : hi];
  const m = (hi - lo) * 0.08;
  return [lo < 0 ? lo - m : lo, hi > 0 ? hi + m : hi];
}

/** 0 and ±10^k inside [min, max]. */
function decades(min: number, max: number): number[] {
  const out = [0];
  for (let p = 1; p <= Math.max(Math.abs(min), Math.abs(max)) * 1.0001 && p < 1e30; p *= 10) {
    if (p <= max) out.push(p);
    if (-p >= min) out.unshift(-p);
  }
  return out;
}

function compactTick(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e4 || a < 1e-3) return v.toExponential(0).replace('e+', 'e');
  return String(Number(v.toPrecision(3)));
}

export interface Callout {
  feature: number;
  series: number;
  text: string;
}

export interface FeatureSeries {
  label: string;
  values: Float32Array;
  color: string;
  dash?: number[];
  width?: number;
}

/** Several series over the features (γ and β, or one token under three norms), with callouts. */
export class FeatureChart {
  #u: uPlot | null = null;
  #ro: ResizeObserver | null = null;
  #key = '';
  #callouts: Callout[] = [];

  constructor(
    private readonly container: HTMLElement,
    private readonly height = 180,
    private readonly onHover?: (feature: number | null, values: (number | null)[]) => void,
  ) {}

  set(offset: number, series: FeatureSeries[], callouts: Callout[] = []): void {
    const key = series.map((s) => s.label + s.color + (s.dash ?? '')).join('|');
    if (!this.#u || key !== this.#key) this.#build(series, key);
    this.#callouts = callouts;
    const n = series[0]?.values.length ?? 0;
    const xs = Array.from({ length: n }, (_, i) => offset + i);
    this.#u!.setData([xs, ...series.map((s) => toSeries(s.values))], true);
  }

  #build(series: FeatureSeries[], key: string): void {
    this.#ro?.disconnect();
    this.#u?.destroy();
    this.#key = key;
    const opts: uPlot.Options = {
      width: Math.max(160, this.container.clientWidth || 300),
      height: this.height,
      legend: { show: false },
      scales: { x: { time: false } },
      axes: [
        {
          stroke: COLORS.muted,
          font: axisFont(),
          grid: { stroke: COLORS.grid, width: 1 },
          size: 26,
          incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
        },
        {
          stroke: COLORS.muted,
          font: axisFont(),
          grid: { stroke: COLORS.grid, width: 1 },
          size: 46,
          values: (_u, vals) => vals.map((v) => (v === null || v === undefined ? '' : compactTick(v))),
        },
      ],
      series: [
        {},
        ...series.map((s): uPlot.Series => ({
          label: s.label,
          stroke: s.color,
          width: s.width ?? 1.25,
          dash: s.dash,
          points: { show: (u: uPlot) => u.data[0].length <= 32, size: 5, fill: s.color },
        })),
      ],
      cursor: { drag: { x: false, y: false }, points: { size: 6 } },
      hooks: {
        draw: [(u) => this.#drawCallouts(u)],
        setCursor: [
          (u) => {
            const i = u.cursor.idx;
            if (!this.onHover) return;
            if (i === null || i === undefined) return this.onHover(null, []);
            this.onHover(
              u.data[0][i]!,
              u.data.slice(1).map((s) => (s[i] ?? null) as number | null),
            );
          },
        ],
      },
    };
    this.#u = new uPlot(opts, [[], ...series.map(() => [])], this.container);
    this.#ro = fitWidth(this.#u, this.container, this.height);
  }

  #drawCallouts(u: uPlot): void {
    const dpr = devicePixelRatio || 1;
    const ctx = u.ctx;
    ctx.save();
    ctx.font = `${11 * dpr}px system-ui, sans-serif`;
    ctx.textBaseline = 'alphabetic';
    const placed: { x0: number; x1: number; y: number }[] = [];
    for (const c of this.#callouts) {
      const xs = u.data[0];
      const i = xs.indexOf(c.feature);
      const v = i >= 0 ? u.data[c.series + 1]![i] : null;
      if (v === null || v === undefined) continue;
      const x = u.valToPos(c.feature, 'x', true);
      const y = u.valToPos(v, 'y', true);
      ctx.fillStyle = COLORS.ink;
      ctx.beginPath();
      ctx.arc(x, y, 3.5 * dpr, 0, 2 * Math.PI);
      ctx.fill();
      const right = x < u.bbox.left + u.bbox.width * 0.75;
      const w = ctx.measureText(c.text).width;
      const x0 = right ? x + 6 * dpr : x - 6 * dpr - w;
      let ty = y > u.bbox.top + 16 * dpr ? y - 5 * dpr : y + 14 * dpr;
      // Move a label up past any label it would overlap.
      for (let k = 0; k < 6 && placed.some((p) => p.x0 < x0 + w && x0 < p.x1 && Math.abs(p.y - ty) < 13 * dpr); k++) {
        ty -= 13 * dpr;
      }
      placed.push({ x0, x1: x0 + w, y: ty });
      ctx.textAlign = 'left';
      ctx.fillText(c.text, x0, Math.max(u.bbox.top + 10 * dpr, ty));
    }
    ctx.restore();
  }
}

/** Vertical bars with the count printed above each, over labelled bins. */
export class Histogram {
  #u: uPlot | null = null;
  #ro: ResizeObserver | null = null;
  #labels: string[] = [];
  #counts: number[] = [];

  constructor(
    private readonly container: HTMLElement,
    private readonly height = 170,
  ) {}

  set(counts: number[], labels: string[], goodBins: number): void {
    this.#labels = labels;
    this.#counts = counts;
    if (!this.#u) this.#build(goodBins);
    this.#u!.setData([counts.map((_, i) => i), counts.map((c) => (c > 0 ? c : null))], true);
  }

  #build(goodBins: number): void {
    const opts: uPlot.Options = {
      width: Math.max(160, this.container.clientWidth || 300),
      height: this.height,
      legend: { show: false },
      scales: {
        x: { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] },
        y: { range: (_u, _min, max) => [0, Math.max(1, (max ?? 1) * 1.3)] },
      },
      axes: [
        {
          stroke: COLORS.muted,
          font: axisFont(),
          grid: { show: false },
          size: 34,
          splits: () => this.#labels.map((_, i) => i),
          values: () => this.#labels,
          label: 'error in float32 steps (sULP)',
          labelSize: 14,
          labelFont: axisFont(),
        },
        { show: false },
      ],
      series: [
        {},
        {
          width: 0,
          fill: (u) => {
            const g = u.ctx.createLinearGradient(u.bbox.left, 0, u.bbox.left + u.bbox.width, 0);
            const t = goodBins / this.#labels.length;
            g.addColorStop(0, COLORS.ok);
            g.addColorStop(t, COLORS.ok);
            g.addColorStop(t, COLORS.pos);
            g.addColorStop(1, COLORS.pos);
            return g;
          },
          paths: uPlot.paths.bars!({ size: [0.7, 60, 2], align: 0 }),
          points: { show: false },
        },
      ],
      cursor: { show: false },
      hooks: {
        draw: [
          (u) => {
            const dpr = devicePixelRatio || 1;
            const ctx = u.ctx;
            ctx.save();
            ctx.font = `${11 * dpr}px system-ui, sans-serif`;
            ctx.textAlign = 'center';
            ctx.textBaseline = 'alphabetic';
            ctx.fillStyle = COLORS.ink;
            this.#counts.forEach((c, i) => {
              const x = u.valToPos(i, 'x', true);
              const y = u.valToPos(c, 'y', true);
              ctx.fillText(c.toLocaleString('en-US'), x, y - 4 * dpr);
            });
            ctx.restore();
          },
        ],
      },
    };
    this.#u = new uPlot(opts, [[], []], this.container);
    this.#ro = fitWidth(this.#u, this.container, this.height);
  }
}
