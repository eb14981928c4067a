/**
 * Rows × features heatmap on a canvas: a diverging colour scale with non-finite values in black,
 * a zoom on the features, a value readout by pointer or keyboard, and a row pick (click, tap or
 * Enter) that selects the token for the explainer. Its row labels, feature ticks and the frame
 * around the selected row are the output card's (panels/heat-axes.ts).
 */

export interface HeatmapData {
  values: Float32Array; // rows·d, already row-sampled if needed
  inputs: Float32Array; // same layout: the input x for the readout
  rows: number;
  d: number;
  rowLabels: Int32Array; // original row index of each drawn row
  describeRow: (row: number) => string;
}

export interface HeatmapView {
  /** 1 (all features), 4 or 16. */
  zoom: number;
  /** Feature the zoomed window is centred on. */
  center: number;
  /** Original index of the selected row, highlighted. */
  selectedRow: number;
}

/** Diverging blue–white–orange scale, readable for common colour-vision deficiencies. */
function colour(t: number): [number, number, number] {
  const a = Math.min(1, Math.abs(t));
  const neg: [number, number, number] = [33, 102, 172];
  const pos: [number, number, number] = [214, 96, 16];
  const w: [number, number, number] = [247, 247, 247];
  const c = t < 0 ? neg : pos;
  return [w[0] + (c[0] - w[0]) * a, w[1] + (c[1] - w[1]) * a, w[2] + (c[2] - w[2]) * a];
}

/** The scale in 511 steps from −1 to 1 as packed RGBA (little-endian), black for non-finite. */
const STEPS = 255;
const LUT = new Uint32Array(2 * STEPS + 1);
for (let k = 0; k <= 2 * STEPS; k++) {
  const [R, G, B] = colour(k / STEPS - 1);
  LUT[k] = (255 << 24) | (Math.round(B) << 16) | (Math.round(G) << 8) | Math.round(R);
}
const BLACK = 255 << 24;

/** The value at which the scale saturates: the 99th percentile of |v| over finite values (≥ 1e-6). */
export function clampFor(values: Float32Array): number {
  const n = values.length;
  const step = Math.max(1, Math.floor(n / 20000));
  const s = new Float64Array(Math.ceil(n / step));
  let k = 0;
  for (let i = 0; i < n; i += step) {
    const v = Math.abs(values[i]!);
    if (Number.isFinite(v)) s[k++] = v;
  }
  if (!k) return 1;
  const sorted = s.subarray(0, k).sort();
  return Math.max(1e-6, sorted[Math.min(k - 1, Math.floor(k * 0.99))]!);
}

export interface HeatmapOutputs {
  legend: HTMLCanvasElement;
  legendLabels: { min: HTMLElement; mid: HTMLElement; max: HTMLElement; nan: HTMLElement };
  readout: HTMLElement;
  fmt: (v: number) => string;
  onSelectRow: (row: number) => void;
  onView: (view: Partial<HeatmapView>) => void;
}

export class Heatmap {
  #data: HeatmapData | null = null;
  #view: HeatmapView = { zoom: 1, center: 447, selectedRow: 0 };
  #clamp = 1;
  #cursor = { r: 0, j: 0 };
  #rowH = 1;
  #from = 0;
  #to = 0;
  #img: ImageData | null = null;
  #cssHeight = 64;
  readonly #ctx: CanvasRenderingContext2D;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly out: HeatmapOutputs,
  ) {
    this.#ctx = canvas.getContext('2d')!;
    canvas.addEventListener('pointermove', (e) => {
      if (e.pointerType === 'mouse') this.#point(e);
    });
    canvas.addEventListener('pointerleave', () => this.#draw());
    canvas.addEventListener('click', (e) => {
      if (this.#point(e)) this.out.onSelectRow(this.#data!.rowLabels[this.#cursor.r]!);
    });
    canvas.addEventListener('keydown', (e) => this.#key(e));
    canvas.addEventListener('focus', () => this.#show(true));
    canvas.addEventListener('blur', () => this.#draw());
  }

  set(data: HeatmapData, view: HeatmapView): void {
    this.#data = data;
    this.#clamp = clampFor(data.values);
    this.#cursor = { r: Math.min(this.#cursor.r, data.rows - 1), j: Math.min(this.#cursor.j, data.d - 1) };
    this.setView(view);
    this.#drawLegend();
  }

  setView(view: HeatmapView): void {
    this.#view = view;
    if (!this.#data) return;
    const { rows, d } = this.#data;
    const span = Math.max(8, Math.round(d / Math.max(1, view.zoom)));
    const from = Math.max(0, Math.min(d - span, Math.round(view.center - span / 2)));
    this.#from = from;
    this.#to = Math.min(d, from + span);
    this.#rowH = Math.max(1, Math.min(16, Math.floor(256 / Math.max(1, rows))));
    const w = this.#to - this.#from;
    this.canvas.width = w;
    this.canvas.height = rows * this.#rowH;
    // Rows tall enough to point at (or tap) one: up to 22 CSS pixels each, at most 360 in all.
    this.#cssHeight = Math.max(64, Math.min(360, rows * 22));
    this.canvas.style.height = `${this.#cssHeight}px`;
    this.#cursor.j = Math.max(this.#from, Math.min(this.#to - 1, this.#cursor.j));
    this.#img = this.#image();
    this.#draw();
  }

  clear(message: string): void {
    this.#data = null;
    this.#img = null;
    this.#ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    this.out.readout.textContent = message;
    this.out.legendLabels.nan.hidden = true;
  }

  get range(): { from: number; to: number } {
    return { from: this.#from, to: Math.max(this.#from, this.#to - 1) };
  }

  /** Where the drawn rows are: their original indices and the height of each, in CSS pixels. */
  get rows(): { labels: Int32Array; height: number } | null {
    const data = this.#data;
    return data ? { labels: data.rowLabels, height: this.#cssHeight / data.rows } : null;
  }

  #image(): ImageData | null {
    const data = this.#data;
    if (!data) return null;
    const { rows, d, values } = data;
    const w = this.#to - this.#from;
    const img = this.#ctx.createImageData(w, rows * this.#rowH);
    const px = new Uint32Array(img.data.buffer);
    const scale = STEPS / this.#clamp;
    for (let r = 0; r < rows; r++) {
      const line = r * this.#rowH * w;
      for (let j = this.#from; j < this.#to; j++) {
        const v = values[r * d + j]!;
        px[line + j - this.#from] = Number.isFinite(v)
          ? LUT[Math.max(0, Math.min(2 * STEPS, Math.round(v * scale) + STEPS))]!
          : BLACK;
      }
      for (let k = 1; k < this.#rowH; k++) px.copyWithin(line + k * w, line, line + w);
    }
    return img;
  }

  #drawLegend(): void {
    const c = this.out.legend.getContext('2d')!;
    const w = this.out.legend.width;
    for (let x = 0; x < w; x++) {
      const [R, G, B] = colour((x / (w - 1)) * 2 - 1);
      c.fillStyle = `rgb(${R | 0},${G | 0},${B | 0})`;
      c.fillRect(x, 0, 1, this.out.legend.height);
    }
    const { min, mid, max, nan } = this.out.legendLabels;
    min.textContent = `≤ −${this.out.fmt(this.#clamp)}`;
    mid.textContent = '0';
    max.textContent = `≥ +${this.out.fmt(this.#clamp)}`;
    nan.hidden = !this.#data || this.#data.values.every((v) => Number.isFinite(v));
  }

  #draw(withCursor = false): void {
    const img = this.#img;
    if (!img || !this.#data) return;
    const ctx = this.#ctx;
    ctx.putImageData(img, 0, 0);
    const w = this.#to - this.#from;
    if (withCursor) {
      const { r, j } = this.#cursor;
      const x = j - this.#from;
      const y = r * this.#rowH;
      ctx.fillStyle = 'rgba(0,0,0,0.85)';
      const t = Math.max(1, Math.round(w / 384));
      ctx.fillRect(x, Math.max(0, y - 2), t, 2);
      ctx.fillRect(x, y + this.#rowH, t, 2);
      ctx.fillRect(Math.max(0, x - 2 * t - 1), y, t + 1, this.#rowH);
      ctx.fillRect(x + 2 * t, y, t + 1, this.#rowH);
    }
  }

  #point(e: MouseEvent): boolean {
    if (!this.#data) return false;
    const rect = this.canvas.getBoundingClientRect();
    const w = this.#to - this.#from;
    const j = this.#from + Math.floor(((e.clientX - rect.left) / rect.width) * w);
    const r = Math.floor(((e.clientY - rect.top) / rect.height) * this.#data.rows);
    if (j < this.#from || r < 0 || j >= this.#to || r >= this.#data.rows) return false;
    this.#cursor = { r, j };
    this.#show(true);
    return true;
  }

  #key(e: KeyboardEvent): void {
    if (!this.#data) return;
    const step = e.shiftKey ? 16 : 1;
    const { rows, d } = this.#data;
    let { r, j } = this.#cursor;
    switch (e.key) {
      case 'ArrowLeft':
        j -= step;
        break;
      case 'ArrowRight':
        j += step;
        break;
      case 'ArrowUp':
        r -= step;
        break;
      case 'ArrowDown':
        r += step;
        break;
      case 'Home':
        j = 0;
        break;
      case 'End':
        j = d - 1;
        break;
      case 'Enter':
      case ' ':
        e.preventDefault();
        this.out.onSelectRow(this.#data.rowLabels[r]!);
        return;
      default:
        return;
    }
    e.preventDefault();
    this.#cursor = { r: Math.max(0, Math.min(rows - 1, r)), j: Math.max(0, Math.min(d - 1, j)) };
    // Moving the cursor out of a zoomed window pans the window.
    if (this.#cursor.j < this.#from || this.#cursor.j >= this.#to) this.out.onView({ center: this.#cursor.j });
    this.#show(true);
  }

  #show(withCursor: boolean): void {
    if (!this.#data) return;
    const { r, j } = this.#cursor;
    const { d, values, inputs, rowLabels, describeRow } = this.#data;
    const row = rowLabels[r]!;
    this.out.readout.textContent =
      `${describeRow(row)}, feature ${j}: y = ${this.out.fmt(values[r * d + j]!)}` +
      `  (input x = ${this.out.fmt(inputs[r * d + j]!)})`;
    this.#draw(withCursor);
  }
}
