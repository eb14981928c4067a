/**
 * The stages of one token, x → x − μ → x̂ → γ ⊙ x̂ → y (RMSNorm: x → x̂ → y), as bar charts on one
 * value axis (or each its own) with a cursor synced across them, and the table of every value for
 * up to TABLE_MAX features.
 */
import { BarChart } from './bars.js';
import { h } from './dom.js';
import { describeRow, fmtNum } from './format.js';
import type { Sizer } from './sizer.js';
import type { ExplainerScale, ExplainerStages, ExplainerWeights } from './types.js';
import { NORM_FORMS, normOfForm, type NormForm } from '../norms.js';
import { unitMoment } from './insight.js';

/** The table lists every value when at most this many features are shown. */
export const TABLE_MAX = 64;

type StageKey = 'input' | 'centered' | 'normalized' | 'scaled' | 'output';

interface StageName {
  title: string;
  sub: string;
}

/** Each stage's title for a form; null: the form has no such stage. */
function stageNames(form: NormForm): Record<StageKey, StageName | null> {
  const { centred, moment } = normOfForm(form);
  const unit = unitMoment(normOfForm(form));
  if (!centred) {
    return {
      input: { title: 'x', sub: 'input' },
      centered: null,
      normalized: { title: 'x̂ = x · rstd', sub: `normalized: ${unit}` },
      scaled: null,
      output: { title: 'y = γ ⊙ x̂', sub: 'output (no centring, no bias)' },
    };
  }
  return {
    input: { title: 'x', sub: 'input' },
    centered: { title: 'x − μ', sub: 'centred' },
    normalized: { title: `x̂ = (x − μ)/√(${moment} + ε)`, sub: `normalized: mean 0, ${unit}` },
    scaled: { title: 'γ ⊙ x̂', sub: 'scaled by the gain' },
    output: NORM_FORMS[form].bias
      ? { title: '+ β  →  y', sub: 'output' }
      : { title: 'y = γ ⊙ x̂', sub: 'output (no bias)' },
  };
}

const KEYS: StageKey[] = ['input', 'centered', 'normalized', 'scaled', 'output'];

function values(st: ExplainerStages, key: StageKey): Float32Array | null {
  if ('centered' in st) return st[key];
  return key === 'centered' || key === 'scaled' ? null : st[key];
}

export interface StagesModel {
  form: NormForm;
  stages: ExplainerStages;
  weights: ExplainerWeights | null;
  from: number;
  to: number;
  scale: ExplainerScale;
  /** Print values beside the bars (a window of a few features). */
  labels: boolean;
  /** Drag across a chart to zoom. */
  zoomable: boolean;
  shape: readonly number[] | null;
  tokens: readonly string[] | null;
}

export class StagesView {
  readonly element: HTMLElement;
  readonly table: HTMLElement;
  readonly #figures = new Map<
    StageKey,
    {
      fig: HTMLElement;
      title: HTMLElement;
      sub: HTMLElement;
      hover: HTMLElement;
      chart: BarChart;
      pending: HTMLElement;
    }
  >();
  #model: StagesModel | null = null;

  constructor(sizer: Sizer, onZoom: (from: number, to: number) => void) {
    this.element = h('div', { class: 'stages', id: 'stages', part: 'stages' });
    this.table = h('div', { id: 'stage-table', part: 'table' });
    for (const key of KEYS) {
      const chart = new BarChart({
        onHover: (j) => this.#hover(j),
        onZoom: (a, b) => this.#model?.zoomable && onZoom(a, b),
      });
      chart.element.classList.add('chart');
      chart.element.dataset.stage = key;
      const title = h('strong', { 'data-stage': key });
      const sub = h('span', { class: 'sub' });
      const hover = h('span', { class: 'hover-val', 'aria-hidden': 'true' });
      const pending = h('p', { class: 'pending' }, 'This stage appears when the weights are set.');
      const box = h('div', { class: 'chart-box' }, chart.element, pending);
      sizer.follow(box, (width) => chart.resize(width));
      const fig = h('figure', { class: 'stage' }, h('figcaption', undefined, title, sub, hover), box);
      this.element.append(fig);
      this.#figures.set(key, { fig, title, sub, hover, chart, pending });
    }
  }

  render(m: StagesModel): void {
    this.#model = m;
    const st = m.stages;
    const names = stageNames(m.form);
    const waiting = (key: StageKey) => !m.weights && (key === 'scaled' || key === 'output');
    // One value axis for every stage drawn (or each its own): the span of the features shown.
    let lo = Infinity;
    let hi = -Infinity;
    for (const key of KEYS) {
      const v = values(st, key);
      if (!v || !names[key] || waiting(key)) continue;
      for (let j = m.from; j <= m.to; j++) {
        const x = v[j]!;
        if (Number.isFinite(x)) {
          lo = Math.min(lo, x);
          hi = Math.max(hi, x);
        }
      }
    }
    const shared = m.scale === 'own' || !(lo <= hi) ? null : ([Math.min(0, lo), Math.max(0, hi)] as const);
    const mode = m.scale === 'symlog' ? 'symlog' : 'linear';
    for (const key of KEYS) {
      const f = this.#figures.get(key)!;
      const name = names[key];
      const all = values(st, key);
      f.fig.hidden = !name || !all;
      if (!name || !all) continue;
      f.title.textContent = name.title;
      f.sub.textContent = name.sub;
      const wait = waiting(key);
      f.pending.hidden = !wait;
      f.chart.element.toggleAttribute('hidden', wait);
      if (wait) continue;
      const shown = all.subarray(m.from, m.to + 1);
      const own = ownRange(shown);
      f.chart.element.dataset.scale = mode;
      // What the value axis spans (shared or this stage's own), for readers of the DOM and tests.
      f.chart.element.dataset.range = (shared ?? own).map((v) => fmtNum(v, 6)).join(' … ');
      f.chart.element.classList.toggle('zoomable', m.zoomable);
      f.chart.set({
        offset: m.from,
        values: shown,
        range: shared,
        mode,
        labels: m.labels,
        label: `${name.title}, features ${m.from} to ${m.to}: ${describeValues(shown)}`,
      });
    }
    this.#renderTable(m);
  }

  #hover(j: number | null): void {
    const st = this.#model?.stages;
    for (const [key, f] of this.#figures) {
      f.chart.cursor(j);
      const v = st && j !== null ? values(st, key)?.[j] : undefined;
      f.hover.textContent = v === undefined ? '' : `feature ${j}: ${fmtNum(v, 5)}`;
    }
  }

  #renderTable(m: StagesModel): void {
    const st = m.stages;
    const n = m.to - m.from + 1;
    if (n > TABLE_MAX) {
      this.table.replaceChildren(
        h(
          'p',
          { class: 'hint' },
          `The table lists up to ${TABLE_MAX} features: zoom in (drag across a chart, or type a range) to read every value.`,
        ),
      );
      return;
    }
    const w = m.weights;
    const rows: [string, Float32Array][] = [['x', st.input]];
    if ('centered' in st) rows.push(['x − μ', st.centered]);
    rows.push(['x̂', st.normalized]);
    if (w) {
      rows.push(['γ', w.gamma]);
      if ('scaled' in st) rows.push(['γ ⊙ x̂', st.scaled]);
      if (NORM_FORMS[m.form].bias && w.beta) rows.push(['β', w.beta]);
      rows.push(['y', st.output]);
    }
    const row = describeRow(st.row, m.shape, m.tokens);
    const caption = h(
      'caption',
      { id: 'stage-table-caption' },
      `${row}, features ${m.from}–${m.to}: every stage as the module computed it`,
    );
    const head = h('tr', undefined, h('th', { scope: 'col' }, 'stage'));
    for (let j = m.from; j <= m.to; j++) head.append(h('th', { scope: 'col' }, String(j)));
    const body = h('tbody');
    for (const [name, arr] of rows) {
      const tr = h('tr', undefined, h('th', { scope: 'row' }, name));
      for (let j = m.from; j <= m.to; j++) tr.append(h('td', undefined, fmtNum(arr[j]!, 5)));
      body.append(tr);
    }
    const table = h('table', { class: 'stage-table' }, caption, h('thead', undefined, head), body);
    this.table.replaceChildren(
      h('div', { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-labelledby': 'stage-table-caption' }, table),
    );
  }
}

function ownRange(v: Float32Array): [number, number] {
  let lo = 0;
  let hi = 0;
  for (const x of v) {
    if (Number.isFinite(x)) {
      lo = Math.min(lo, x);
      hi = Math.max(hi, x);
    }
  }
  return [lo, hi];
}

export function describeValues(v: Float32Array): string {
  let lo = Infinity;
  let hi = -Infinity;
  let bad = 0;
  for (const x of v) {
    if (!Number.isFinite(x)) bad++;
    else {
      lo = Math.min(lo, x);
      hi = Math.max(hi, x);
    }
  }
  if (bad === v.length) return 'every value is NaN or infinite';
  return `from ${fmtNum(lo, 4)} to ${fmtNum(hi, 4)}${bad ? `, ${bad} non-finite` : ''}`;
}
