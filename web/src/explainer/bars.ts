/**
 * A stage as bars from zero, drawn as SVG: sign by position as well as colour, a value axis shared
 * with the other stages (or its own), each value printed beside its bar when there is room for it,
 * a cursor synced across charts, and drag to zoom on the features.
 *
 * Labels never cover a bar or another label: each sits outside its own bar's end, in a band the
 * scale keeps free above and below the bars, and only when every label fits its bar's column.
 */
import { svg } from './dom.js';
import { fmtTick } from './format.js';
import { niceTicks, paddedRange, valueScale, type ScaleMode } from './scale.js';

export interface BarData {
  /** Feature index of values[0]. */
  offset: number;
  values: Float32Array;
  /** The data range shared with other charts, or null for this chart's own. */
  range: readonly [number, number] | null;
  mode: ScaleMode;
  /** Print each value by its bar (when every one fits). */
  labels: boolean;
  /** What the chart shows, for assistive technology. */
  label: string;
}

export interface BarHooks {
  onHover?(feature: number | null): void;
  onZoom?(from: number, to: number): void;
}

const M = { left: 46, right: 6, top: 4, bottom: 18 };
/** Room kept free above and below the bars for their labels. */
const LABEL_BAND = 15;
const FONT_PX = 11;
/** Bars drawn one rect each up to this many (beyond it: one path per sign). */
const RECTS_UP_TO = 96;

function ownRange(values: Float32Array): [number, number] {
  let lo = 0;
  let hi = 0;
  for (const v of values) {
    if (Number.isFinite(v)) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  return [lo, hi];
}

/** Text width in pixels, near enough for the system UI font at FONT_PX. */
const textWidth = (s: string) => s.length * FONT_PX * 0.6;

export class BarChart {
  readonly element: SVGSVGElement;
  #data: BarData | null = null;
  #width = 320;
  #cursor: number | null = null;
  #drag: { start: number; now: number } | null = null;
  /** From the last drawing: where the features are. */
  #geometry = { left: M.left, slot: 1, offset: 0, n: 0, top: 0, bottom: 0 };

  constructor(
    private readonly hooks: BarHooks = {},
    private readonly height = 140,
  ) {
    this.element = svg('svg', { role: 'img', class: 'bars', height });
    this.element.addEventListener('pointermove', (e) => this.#pointer(e));
    this.element.addEventListener('pointerleave', () => {
      this.hooks.onHover?.(null);
    });
    this.element.addEventListener('pointerdown', (e) => {
      if (!this.hooks.onZoom || e.pointerType !== 'mouse' || e.button !== 0) return;
      const j = this.#featureAt(e);
      if (j === null) return;
      this.#drag = { start: j, now: j };
      this.element.setPointerCapture(e.pointerId);
    });
    this.element.addEventListener('pointerup', () => {
      const d = this.#drag;
      this.#drag = null;
      if (!d) return;
      const from = Math.min(d.start, d.now);
      const to = Math.max(d.start, d.now);
      if (to - from >= 3) this.hooks.onZoom?.(from, to);
      this.#draw();
    });
  }

  set(data: BarData): void {
    this.#data = data;
    this.element.setAttribute('aria-label', data.label);
    this.#draw();
  }

  resize(width: number): void {
    const w = Math.max(160, Math.floor(width));
    if (w === this.#width) return;
    this.#width = w;
    this.#draw();
  }

  /** The synced cursor: a feature to mark, or null. */
  cursor(feature: number | null): void {
    this.#cursor = feature;
    this.#draw();
  }

  #featureAt(e: PointerEvent): number | null {
    const g = this.#geometry;
    if (!g.n) return null;
    const x = e.clientX - this.element.getBoundingClientRect().left;
    const i = Math.floor((x - g.left) / g.slot);
    return i >= 0 && i < g.n ? g.offset + i : null;
  }

  #pointer(e: PointerEvent): void {
    const j = this.#featureAt(e);
    if (this.#drag && j !== null) {
      this.#drag.now = j;
      this.#draw();
    }
    if (e.pointerType === 'mouse') this.hooks.onHover?.(j);
  }

  #draw(): void {
    const root = this.element;
    const data = this.#data;
    const W = this.#width;
    const H = this.height;
    root.setAttribute('width', String(W));
    root.setAttribute('viewBox', `0 0 ${W} ${H}`);
    if (!data) {
      root.replaceChildren();
      return;
    }
    const { values, offset, mode } = data;
    const n = values.length;
    const plotW = W - M.left - M.right;
    const slot = plotW / Math.max(1, n);
    const top = M.top;
    const bottom = H - M.bottom;
    this.#geometry = { left: M.left, slot, offset, n, top, bottom };

    const barW = n <= RECTS_UP_TO ? Math.max(1, Math.min(40, slot * 0.72)) : slot;
    const digits = [4, 3, 2].find((d) => values.every((v) => textWidth(fmtTick(v, d)) <= slot - 4));
    const labels = data.labels && n <= RECTS_UP_TO && digits !== undefined;
    const pad = labels ? LABEL_BAND : 4;
    const range = paddedRange(...(data.range ?? ownRange(values)), mode);
    const scale = valueScale(mode, range, top + pad, bottom - pad);
    const y0 = scale.y(0);
    const xOf = (i: number) => M.left + i * slot + slot / 2;

    const parts: SVGElement[] = [];
    for (const t of scale.ticks) {
      const y = Math.round(scale.y(t)) + 0.5;
      parts.push(svg('line', { class: 'grid', x1: M.left, x2: W - M.right, y1: y, y2: y }));
      parts.push(svg('text', { class: 'tick', x: M.left - 5, y: y + 3.5, 'text-anchor': 'end' }, fmtTick(t)));
    }
    // Bars.
    let finite = 0;
    if (n <= RECTS_UP_TO) {
      for (let i = 0; i < n; i++) {
        const v = values[i]!;
        if (!Number.isFinite(v)) continue;
        finite++;
        const y = scale.y(v);
        parts.push(
          svg('rect', {
            class: v >= 0 ? 'bar pos' : 'bar neg',
            x: (xOf(i) - barW / 2).toFixed(2),
            y: Math.min(y, y0).toFixed(2),
            width: barW.toFixed(2),
            height: Math.max(0.5, Math.abs(y - y0)).toFixed(2),
          }),
        );
      }
    } else {
      let pos = '';
      let neg = '';
      for (let i = 0; i < n; i++) {
        const v = values[i]!;
        if (!Number.isFinite(v)) continue;
        finite++;
        const y = scale.y(v);
        const seg = `M${(M.left + i * slot).toFixed(2)} ${y0.toFixed(2)}V${y.toFixed(2)}h${barW.toFixed(2)}V${y0.toFixed(2)}z`;
        if (v >= 0) pos += seg;
        else neg += seg;
      }
      parts.push(
        svg('path', { class: 'bar pos', d: pos || 'M0 0' }),
        svg('path', { class: 'bar neg', d: neg || 'M0 0' }),
      );
    }
    parts.push(
      svg('line', { class: 'zero', x1: M.left, x2: W - M.right, y1: Math.round(y0) + 0.5, y2: Math.round(y0) + 0.5 }),
    );
    // Values beside their bars, and what a non-finite value is where its bar would be.
    for (let i = 0; i < n; i++) {
      const v = values[i]!;
      if (!Number.isFinite(v)) {
        if (n <= RECTS_UP_TO)
          parts.push(svg('text', { class: 'value bad', x: xOf(i), y: y0 - 4, 'text-anchor': 'middle' }, String(v)));
        continue;
      }
      if (!labels) continue;
      const y = scale.y(v);
      const ty = v >= 0 ? Math.min(y, y0) - 3 : Math.max(y, y0) + FONT_PX;
      parts.push(
        svg('text', { class: 'value', x: xOf(i), y: ty.toFixed(2), 'text-anchor': 'middle' }, fmtTick(v, digits)),
      );
    }
    if (finite === 0 && n > 0) {
      parts.push(
        svg(
          'text',
          { class: 'value bad', x: M.left + plotW / 2, y: (top + bottom) / 2, 'text-anchor': 'middle' },
          'no finite values: nothing to draw',
        ),
      );
    }
    // Feature axis: every index under its bar when they fit, else round numbers.
    const ticks =
      slot >= 24
        ? Array.from({ length: n }, (_, i) => offset + i)
        : niceTicks(offset, offset + n - 1, Math.max(2, Math.floor(plotW / 64))).filter(
            (t) => Number.isInteger(t) && t >= offset && t < offset + n,
          );
    for (const t of ticks) {
      parts.push(svg('text', { class: 'tick', x: xOf(t - offset), y: H - 5, 'text-anchor': 'middle' }, String(t)));
    }
    if (this.#cursor !== null && this.#cursor >= offset && this.#cursor < offset + n) {
      const x = Math.round(xOf(this.#cursor - offset)) + 0.5;
      parts.push(svg('line', { class: 'cursor', x1: x, x2: x, y1: top, y2: bottom }));
    }
    if (this.#drag) {
      const a = Math.min(this.#drag.start, this.#drag.now) - offset;
      const b = Math.max(this.#drag.start, this.#drag.now) - offset + 1;
      parts.push(
        svg('rect', { class: 'select', x: M.left + a * slot, y: top, width: (b - a) * slot, height: bottom - top }),
      );
    }
    root.replaceChildren(...parts);
  }
}
