/**
 * Series over every feature as SVG lines (γ and β of the weights), with callouts: a dot on each
 * notable feature and its label, moved clear of the labels placed before it, or left off the
 * chart (it is listed below it) when there is no room.
 */
import { svg } from './dom.js';
import { fmtTick } from './format.js';
import { niceTicks, paddedRange, valueScale } from './scale.js';

export interface LineSeries {
  key: string;
  values: Float32Array;
}

export interface Callout {
  feature: number;
  /** Index of the series the dot sits on. */
  series: number;
  text: string;
}

const M = { left: 46, right: 8, top: 8, bottom: 20 };
const FONT_PX = 11;
const textWidth = (s: string) => s.length * FONT_PX * 0.6;

export class LineChart {
  readonly element: SVGSVGElement;
  #series: LineSeries[] = [];
  #callouts: Callout[] = [];
  #width = 320;

  constructor(private readonly height = 180) {
    this.element = svg('svg', { role: 'img', class: 'lines', height });
  }

  set(series: LineSeries[], callouts: Callout[], label: string): void {
    this.#series = series;
    this.#callouts = callouts;
    this.element.setAttribute('aria-label', label);
    this.#draw();
  }

  resize(width: number): void {
    const w = Math.max(160, Math.floor(width));
    if (w === this.#width) return;
    this.#width = w;
    this.#draw();
  }

  #draw(): void {
    const W = this.#width;
    const H = this.height;
    const root = this.element;
    root.setAttribute('width', String(W));
    root.setAttribute('viewBox', `0 0 ${W} ${H}`);
    const n = this.#series[0]?.values.length ?? 0;
    if (!n) {
      root.replaceChildren();
      return;
    }
    let lo = Infinity;
    let hi = -Infinity;
    for (const s of this.#series) {
      for (const v of s.values) {
        if (Number.isFinite(v)) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
    }
    const plotW = W - M.left - M.right;
    const x = (j: number) => M.left + (n === 1 ? plotW / 2 : (j / (n - 1)) * plotW);
    const scale = valueScale('linear', paddedRange(lo, hi, 'linear'), M.top, H - M.bottom, 22);
    const parts: SVGElement[] = [];
    for (const t of scale.ticks) {
      const y = Math.round(scale.y(t)) + 0.5;
      parts.push(svg('line', { class: t === 0 ? 'zero' : 'grid', x1: M.left, x2: W - M.right, y1: y, y2: y }));
      parts.push(svg('text', { class: 'tick', x: M.left - 5, y: y + 3.5, 'text-anchor': 'end' }, fmtTick(t)));
    }
    for (const t of niceTicks(0, n - 1, Math.max(2, Math.floor(plotW / 70))).filter((t) => t >= 0 && t < n)) {
      parts.push(svg('text', { class: 'tick', x: x(t), y: H - 6, 'text-anchor': 'middle' }, String(t)));
    }
    for (const s of this.#series) {
      let d = '';
      let pen = false;
      s.values.forEach((v, j) => {
        if (!Number.isFinite(v)) {
          pen = false;
          return;
        }
        d += `${pen ? 'L' : 'M'}${x(j).toFixed(1)} ${scale.y(v).toFixed(1)}`;
        pen = true;
      });
      parts.push(svg('path', { class: `line ${s.key}`, d: d || 'M0 0' }));
    }
    const placed: { x0: number; x1: number; y: number }[] = [];
    for (const c of this.#callouts) {
      const v = this.#series[c.series]?.values[c.feature];
      if (v === undefined || !Number.isFinite(v)) continue;
      const cx = x(c.feature);
      const cy = scale.y(v);
      parts.push(svg('circle', { class: 'callout-dot', cx: cx.toFixed(1), cy: cy.toFixed(1), r: 3.5 }));
      const w = textWidth(c.text);
      const right = cx + 6 + w <= W - M.right;
      const x0 = right ? cx + 6 : cx - 6 - w;
      // Above the dot, else below; then up or down, clear of the labels already placed.
      let ty = cy - 6 >= M.top + FONT_PX ? cy - 6 : cy + FONT_PX + 6;
      const clash = (t: number) => placed.some((p) => p.x0 < x0 + w && x0 < p.x1 && Math.abs(p.y - t) < FONT_PX + 2);
      for (let k = 0; k < 8 && clash(ty); k++) ty += ty > cy ? FONT_PX + 2 : -(FONT_PX + 2);
      if (clash(ty) || ty < M.top + FONT_PX || ty > H - M.bottom) continue;
      placed.push({ x0, x1: x0 + w, y: ty });
      parts.push(svg('text', { class: 'callout', x: x0.toFixed(1), y: ty.toFixed(1) }, c.text));
    }
    root.replaceChildren(...parts);
  }
}
