/**
 * What the text card draws from a run: the progress of a download (bytes and an estimate), the
 * depth chart (σ and max|x| of one token's input to each norm, in graph order, on a log axis) and
 * the lab's per-token table. Pure drawing: the numbers come from the engine worker.
 */
import type { Progress, TextCheck, TextLabResult, TextNorm } from '../engine/protocol';

// The card's code imports nothing of the page's at run time, only types: a module shared with
// the page's first load would be split into a chunk of its own, and that load would grow.

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`missing #${id}`);
  return e as T;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A message in one of the page's message lines (styled by its kind). */
export function say(node: HTMLElement, text: string, kind: 'error' | 'warn' | 'info' = 'info'): void {
  node.textContent = text;
  node.dataset.kind = kind;
}

/** Bytes in decimal units, as the page writes sizes: "1.2 MB". */
export function fmtBytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  const i = Math.min(units.length - 1, n >= 1 ? Math.floor(Math.log10(n) / 3) : 0);
  const v = n / 1000 ** i;
  return `${i === 0 ? v : v.toFixed(v >= 100 ? 0 : 1)} ${units[i]}`;
}

/** "12.3 MB of 126 MB, about 40 s left", from the bytes so far and when the download began. */
export function progressText(p: Progress, startedAt: number, now: number): string {
  const what = p.phase === 'tokenizer' ? 'the tokenizer' : 'the model';
  if (p.phase === 'session') return 'Opening the model in onnxruntime-web…';
  if (p.phase === 'run') return `Running the model on ${p.done || p.total} tokens…`;
  if (p.done === 0) return p.total ? `Downloading ${what}: ${fmtBytes(p.total)}…` : `Downloading ${what}…`;
  const of = p.total ? ` of ${fmtBytes(p.total)}` : '';
  const seconds = (now - startedAt) / 1000;
  const left = p.total && seconds > 0.5 ? ((p.total - p.done) * seconds) / p.done : null;
  const estimate =
    left === null ? '' : `, about ${left < 60 ? `${Math.ceil(left)} s` : `${Math.ceil(left / 60)} min`} left`;
  return `Downloading ${what}: ${fmtBytes(p.done)}${of}${estimate}`;
}

const SVG = 'http://www.w3.org/2000/svg';
function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/** The depth chart of token `row`: σ and max|x| of its input to every norm, `picked` marked. */
export function depthChart(norms: readonly TextNorm[], row: number, picked: number): SVGSVGElement {
  const [w, h, left, right, top, bottom] = [640, 200, 48, 12, 12, 28];
  const values = norms.flatMap((n) => [n.sigma[row]!, n.maxAbs[row]!]).filter((v) => v > 0 && Number.isFinite(v));
  const lo = Math.floor(Math.log10(Math.min(...values, 1)));
  const hi = Math.ceil(Math.log10(Math.max(...values, 10)));
  const x = (i: number) => left + (norms.length > 1 ? (i / (norms.length - 1)) * (w - left - right) : 0);
  const y = (v: number) => top + (1 - (Math.log10(Math.max(v, 10 ** lo)) - lo) / (hi - lo || 1)) * (h - top - bottom);
  const chart = svg('svg', { viewBox: `0 0 ${w} ${h}`, role: 'img', class: 'depth-chart' });
  chart.append(svg('title', {}));
  chart.querySelector('title')!.textContent = 'σ and max|x| of this token at each norm, in graph order, log scale';
  for (let p = lo; p <= hi; p++) {
    chart.append(svg('line', { x1: left, x2: w - right, y1: y(10 ** p), y2: y(10 ** p), class: 'grid' }));
    const label = svg('text', { x: left - 6, y: y(10 ** p) + 4, 'text-anchor': 'end' });
    label.textContent = `1e${p}`;
    chart.append(label);
  }
  chart.append(svg('line', { x1: x(picked), x2: x(picked), y1: top, y2: h - bottom, class: 'picked' }));
  for (const [key, cls] of [
    ['sigma', 'sigma'],
    ['maxAbs', 'peak'],
  ] as const) {
    const points = norms.map((n, i) => `${x(i).toFixed(1)},${y(n[key][row]!).toFixed(1)}`).join(' ');
    chart.append(svg('polyline', { points, class: cls, fill: 'none' }));
  }
  for (const [i, n] of [
    [0, norms[0]!],
    [norms.length - 1, norms[norms.length - 1]!],
  ] as const) {
    const label = svg('text', { x: x(i), y: h - 8, 'text-anchor': i === 0 ? 'start' : 'end' });
    label.textContent = n.name;
    chart.append(label);
  }
  return chart;
}

/** The chart's numbers as a table: σ and max|x| of token `row` at every norm. */
export function depthTable(table: HTMLTableElement, norms: readonly TextNorm[], row: number): void {
  const head = el('tr');
  head.append(el('th', 'norm'), el('th', 'σ'), el('th', 'max|x|'));
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  for (const n of norms) {
    const tr = el('tr');
    const th = el('th', n.name);
    th.scope = 'row';
    tr.append(th, el('td', n.sigma[row]!.toPrecision(4)), el('td', n.maxAbs[row]!.toPrecision(4)));
    tbody.append(tr);
  }
  table.replaceChildren(thead, tbody);
}

const sulp = (c: TextCheck | null) => (c ? `${c.maxSulp.toPrecision(3)} sULP` : '—');
const worst = (c: TextCheck | null, tokens: readonly string[]) =>
  c?.worst
    ? `“${tokens[c.worst.row]}” (row ${c.worst.row}), feature ${c.worst.feature}: ${c.worst.value} against ${c.worst.exact}`
    : '—';

/** The lab's table: max sULP per token of each output, then the worst element and non-finite mismatches. */
export function labTable(table: HTMLTableElement, lab: TextLabResult, tokens: readonly string[]): void {
  const torch = lab.total.torch !== null;
  const cols = ['this package', 'onnxruntime-web', ...(torch ? [`PyTorch (${lab.torchName})`] : [])];
  const head = el('tr');
  head.append(el('th', 'token'), ...cols.map((c) => el('th', c)));
  const body = lab.rows.map((r, i) => {
    const tr = el('tr');
    const th = el('th', `${i}: “${tokens[i]}”`);
    th.scope = 'row';
    tr.append(th, el('td', sulp(r.ours)), el('td', sulp(r.ort)), ...(torch ? [el('td', sulp(r.torch))] : []));
    return tr;
  });
  const outs = [lab.total.ours, lab.total.ort, ...(torch ? [lab.total.torch] : [])];
  const summary = (name: string, cell: (c: TextCheck | null) => string) => {
    const tr = el('tr');
    const th = el('th', name);
    th.scope = 'row';
    tr.append(th, ...outs.map((c) => el('td', cell(c))));
    return tr;
  };
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  tbody.append(...body);
  const tfoot = el('tfoot');
  tfoot.append(
    summary('max over all tokens', sulp),
    summary('worst element (output against exact)', (c) => worst(c, tokens)),
    summary('non-finite mismatches', (c) => (c ? String(c.nonFiniteMismatches) : '—')),
  );
  table.replaceChildren(el('caption', 'Largest error from the exact answer, in sULP'), thead, tbody, tfoot);
}
