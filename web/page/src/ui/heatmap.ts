/** Rows × features heatmap on a canvas, with a pointer and keyboard value readout. */

export interface HeatmapData {
  values: Float32Array; // rows·d, already row-sampled if needed
  inputs?: Float32Array | null; // same layout: the input x for the readout
  rows: number;
  d: number;
  rowLabels: number[]; // original row index of each drawn row
  describeRow?: (row: number) => string;
}

/** Diverging blue–white–orange scale, readable for common colour-vision deficiencies. */
function colour(t: number): [number, number, number] {
  // t in [-1, 1]
  const a = Math.min(1, Math.abs(t));
  const neg: [number, number, number] = [33, 102, 172];
  const pos: [number, number, number] = [214, 96, 16];
  const w: [number, number, number] = [247, 247, 247];
  const c = t < 0 ? neg : pos;
  return [w[0] + (c[0] - w[0]) * a, w[1] + (c[1] - w[1]) * a, w[2] + (c[2] - w[2]) * a];
}

/** The value at which the scale saturates: the 99th percentile of |v| (at least 1e-6). */
export function clampFor(values: Float32Array): number {
  const n = values.length;
  const step = Math.max(1, Math.floor(n / 20000));
  const s: number[] = [];
  for (let i = 0; i < n; i += step) {
    const v = Math.abs(values[i]!);
    if (Number.isFinite(v)) s.push(v);
  }
  if (!s.length) return 1;
  s.sort((a, b) => a - b);
  return Math.max(1e-6, s[Math.min(s.length - 1, Math.floor(s.length * 0.99))]!);
}

export class Heatmap {
  private data: HeatmapData | null = null;
  private clamp = 1;
  private cursor = { r: 0, j: 0 };
  private rowH = 1;
  private readonly ctx: CanvasRenderingContext2D;
  private image: ImageData | null = null;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly legend: HTMLCanvasElement,
    private readonly legendLabels: { min: HTMLElement; mid: HTMLElement; max: HTMLElement },
    private readonly readout: HTMLElement,
    private readonly fmt: (v: number) => string,
  ) {
    this.ctx = canvas.getContext('2d')!;
    canvas.addEventListener('mousemove', (e) => this.onPointer(e));
    canvas.addEventListener('mouseleave', () => this.draw());
    canvas.addEventListener('keydown', (e) => this.onKey(e));
    canvas.addEventListener('focus', () => this.show(true));
    canvas.addEventListener('blur', () => this.draw());
  }

  set(data: HeatmapData): void {
    this.data = data;
    this.clamp = clampFor(data.values);
    const { rows, d, values } = data;
    this.rowH = Math.max(1, Math.min(16, Math.floor(256 / Math.max(1, rows))));
    this.canvas.width = d;
    this.canvas.height = rows * this.rowH;
    const img = this.ctx.createImageData(d, rows * this.rowH);
    for (let r = 0; r < rows; r++) {
      for (let j = 0; j < d; j++) {
        const v = values[r * d + j]!;
        const [R, G, B] = Number.isFinite(v) ? colour(v / this.clamp) : [0, 0, 0];
        for (let k = 0; k < this.rowH; k++) {
          const p = ((r * this.rowH + k) * d + j) * 4;
          img.data[p] = R;
          img.data[p + 1] = G;
          img.data[p + 2] = B;
          img.data[p + 3] = 255;
        }
      }
    }
    this.image = img;
    this.cursor = { r: Math.min(this.cursor.r, rows - 1), j: Math.min(this.cursor.j, d - 1) };
    this.draw();
    this.drawLegend();
  }

  clear(): void {
    this.data = null;
    this.image = null;
    this.ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    this.readout.textContent = 'No output yet.';
  }

  private drawLegend(): void {
    const c = this.legend.getContext('2d')!;
    const w = this.legend.width;
    for (let x = 0; x < w; x++) {
      const [R, G, B] = colour((x / (w - 1)) * 2 - 1);
      c.fillStyle = `rgb(${R | 0},${G | 0},${B | 0})`;
      c.fillRect(x, 0, 1, this.legend.height);
    }
    this.legendLabels.min.textContent = `≤ −${this.fmt(this.clamp)}`;
    this.legendLabels.mid.textContent = '0';
    this.legendLabels.max.textContent = `≥ +${this.fmt(this.clamp)}`;
  }

  private draw(withCursor = false): void {
    if (!this.image) return;
    this.ctx.putImageData(this.image, 0, 0);
    if (withCursor && this.data) {
      const { r, j } = this.cursor;
      this.ctx.fillStyle = 'rgba(0,0,0,0.85)';
      // a thin frame around the selected cell, visible at any zoom
      const y = r * this.rowH;
      this.ctx.fillRect(j, Math.max(0, y - 2), 1, 2);
      this.ctx.fillRect(j, y + this.rowH, 1, 2);
      this.ctx.fillRect(Math.max(0, j - 3), y, 2, this.rowH);
      this.ctx.fillRect(j + 2, y, 2, this.rowH);
    }
  }

  private onPointer(e: MouseEvent): void {
    if (!this.data) return;
    const rect = this.canvas.getBoundingClientRect();
    const j = Math.floor(((e.clientX - rect.left) / rect.width) * this.data.d);
    const r = Math.floor(((e.clientY - rect.top) / rect.height) * this.data.rows);
    if (j < 0 || r < 0 || j >= this.data.d || r >= this.data.rows) return;
    this.cursor = { r, j };
    this.show(true);
  }

  private onKey(e: KeyboardEvent): void {
    if (!this.data) return;
    const step = e.shiftKey ? 16 : 1;
    const { rows, d } = this.data;
    let { r, j } = this.cursor;
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
      default:
        return;
    }
    e.preventDefault();
    this.cursor = { r: Math.max(0, Math.min(rows - 1, r)), j: Math.max(0, Math.min(d - 1, j)) };
    this.show(true);
  }

  private show(withCursor: boolean): void {
    if (!this.data) return;
    const { r, j } = this.cursor;
    const { d, values, inputs, rowLabels, describeRow } = this.data;
    const row = rowLabels[r]!;
    const y = values[r * d + j]!;
    const x = inputs ? inputs[r * d + j] : undefined;
    const where = describeRow ? describeRow(row) : `row ${row}`;
    this.readout.textContent =
      `${where}, feature ${j}: y = ${this.fmt(y)}` + (x !== undefined ? `  (input x = ${this.fmt(x)})` : '');
    this.draw(withCursor);
  }
}
