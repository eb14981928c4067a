/**
 * Two sections below the stages, loaded after the first drawing (they need weights, and are not
 * what a reader sees first): γ and β of the weights (a chart over every feature with callouts, and
 * the callouts listed), and the same token under LayerNorm, its bias-free form and RMSNorm, side by
 * side on one value axis.
 */
import { DEFAULT_NORM, NORM_FORMS, NORM_FORM_NAMES, NORMS, type NormForm } from '../norms.js';
import { BarChart } from './bars.js';
import { h } from './dom.js';
import { LineChart } from './lines.js';
import { equation } from './math.js';
import { notableFeatures, variantsText } from './notes.js';
import type { Sizer } from './sizer.js';
import { stylesheet } from './styles.js';
import { describeValues } from './stages-view.js';
import type { ExplainerScale, ExplainerVariants, ExplainerWeights } from './types.js';

/** The styles of these two sections, adopted with them. */
export const EXTRAS_STYLES = stylesheet(`
svg .line {fill:none;stroke-width:1.4}
svg .line.gamma {stroke:var(--_gamma)}
svg .line.beta {stroke:var(--_beta)}
svg .callout-dot {fill:var(--_fg)}
.legend {display:flex;flex-wrap:wrap;gap:4px 14px;font-size:.86rem;color:var(--_muted);margin:4px 0 0;padding:0;list-style:none}
.key {display:inline-block;width:18px;height:3px;vertical-align:middle;margin-right:5px}
.key.gamma {background:var(--_gamma)}
.key.beta {background:var(--_beta)}
.callouts {margin:4px 0 0;padding-left:1.2em;font-size:.92rem}
.variants {display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:12px}
.variant {border:1px solid var(--_line);border-radius:8px;padding:6px 10px;min-width:0}
.variant math {font-size:.95em}
.variant.running {border:2px solid var(--_accent)}
@container (max-width:720px) { .variants {grid-template-columns:minmax(0,1fr)} }
`);

export class WeightsView {
  readonly element: HTMLElement;
  readonly #chart = new LineChart(190);
  readonly #intro = h('p', { id: 'gb-intro' });
  readonly #legend = h('ul', { class: 'legend' });
  readonly #callouts = h('ul', { class: 'callouts', id: 'gb-callouts' });
  constructor(sizer: Sizer) {
    this.#chart.element.id = 'gb-chart';
    const box = h('div', { class: 'chart-box' }, this.#chart.element);
    sizer.follow(box, (width) => this.#chart.resize(width));
    this.element = h(
      'section',
      { 'aria-labelledby': 'gb-h' },
      h('h3', { id: 'gb-h' }),
      this.#intro,
      h('figure', undefined, box, h('figcaption', undefined, this.#legend)),
      this.#callouts,
    );
  }

  render(w: ExplainerWeights): void {
    const beta = w.beta ?? null;
    const norm = NORMS[w.norm ?? DEFAULT_NORM];
    this.element.querySelector('h3')!.textContent = beta ? 'γ and β of these weights' : 'γ of these weights';
    this.#intro.textContent =
      'The gain is learned per feature and is the same for every token: where γ is small, the norm damps a feature' +
      (beta ? '; β shifts it.' : !norm.bias ? `. An ${norm.name} has no β.` : '. These weights have no β.');
    const callouts = notableFeatures(w.gamma, beta, norm, w.architecture === 'gpt2');
    this.#chart.set(
      [{ key: 'gamma', values: w.gamma }, ...(beta ? [{ key: 'beta', values: beta }] : [])],
      callouts.filter((c) => c.chart),
      `γ${beta ? ' and β' : ''} for all ${w.gamma.length} features. ${callouts.map((c) => c.sentence).join(' ')}`,
    );
    const key = (cls: string, text: string) =>
      h('li', undefined, h('span', { class: `key ${cls}`, 'aria-hidden': 'true' }), text);
    this.#legend.replaceChildren(key('gamma', 'γ (gain)'), ...(beta ? [key('beta', 'β (bias)')] : []));
    this.#callouts.replaceChildren(...callouts.map((c) => h('li', undefined, c.sentence)));
  }
}

const VARIANT_NOTES: Partial<Record<NormForm, string>> = {
  layernorm: 'Centres by μ, scales by 1/σ, then applies γ and β.',
  biasfree: 'The same without β: every output is exactly γ ⊙ x̂.',
  rmsnorm: 'No centring and no β: it divides by the root mean square of x, which equals σ only when μ = 0.',
};

export class VariantsView {
  readonly element: HTMLElement;
  readonly #text = h('p', { id: 'variants-text', 'aria-live': 'polite' });
  readonly #figures = new Map<NormForm, { fig: HTMLElement; chart: BarChart }>();

  constructor(sizer: Sizer) {
    const grid = h('div', { class: 'variants', id: 'variants-chart' });
    for (const form of NORM_FORM_NAMES) {
      const chart = new BarChart({}, 120);
      chart.element.classList.add('chart');
      chart.element.dataset.form = form;
      const box = h('div', { class: 'chart-box' }, chart.element);
      sizer.follow(box, (width) => chart.resize(width));
      const fig = h(
        'figure',
        { class: 'variant', 'data-form': form },
        h(
          'figcaption',
          undefined,
          h('strong', undefined, NORM_FORMS[form].short),
          equation(NORM_FORMS[form].equation),
          h('span', { class: 'hint' }, VARIANT_NOTES[form] ?? ''),
        ),
        box,
      );
      grid.append(fig);
      this.#figures.set(form, { fig, chart });
    }
    this.element = h(
      'section',
      { 'aria-labelledby': 'variants-h' },
      h('h3', { id: 'variants-h' }, 'LayerNorm, bias-free LayerNorm and RMSNorm on this token'),
      this.#text,
      grid,
    );
  }

  render(
    v: ExplainerVariants,
    form: NormForm,
    token: string,
    from: number,
    to: number,
    scale: ExplainerScale,
    labels: boolean,
  ): void {
    this.#text.textContent = variantsText(v, form, token);
    const series: Record<NormForm, Float32Array | null> = v;
    let lo = 0;
    let hi = 0;
    for (const s of Object.values(series)) {
      if (!s) continue;
      for (let j = from; j <= to; j++) {
        const x = s[j]!;
        if (Number.isFinite(x)) {
          lo = Math.min(lo, x);
          hi = Math.max(hi, x);
        }
      }
    }
    for (const [f, { fig, chart }] of this.#figures) {
      const values = series[f];
      fig.hidden = values === null;
      fig.classList.toggle('running', f === form);
      if (f === form) fig.setAttribute('aria-current', 'true');
      else fig.removeAttribute('aria-current');
      if (!values) continue;
      const shown = values.subarray(from, to + 1);
      chart.set({
        offset: from,
        values: shown,
        range: scale === 'own' ? null : [lo, hi],
        mode: scale === 'symlog' ? 'symlog' : 'linear',
        labels,
        label: `${NORM_FORMS[f].short} on this token, features ${from} to ${to}: ${describeValues(shown)}`,
      });
    }
  }
}
