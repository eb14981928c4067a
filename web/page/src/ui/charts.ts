/**
 * The lab's error histogram, drawn with uPlot (loaded with the lab). The explainer draws its own
 * charts (the package's <layernorm-explainer>).
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const COLORS = { ink: '#1f2430', muted: '#5b6472', pos: '#c2570c', ok: '#3b7d3b' };

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
