/**
 * The element's shadow DOM: built once, then redrawn from a ViewModel (what the element knows now).
 * The title, the equation, the token picker, the statistics, the insight and the controls are
 * here; the stages, γ and β, and the three forms are their own views.
 */
import { DEFAULT_FORM, momentKey, NORM_FORMS, NORMS, normOfForm, type NormForm } from '../norms.js';
import { h } from './dom.js';
import { describeRow, fmtEps, fmtInt, fmtNum, parseWhole } from './format.js';
import { equation } from './math.js';
import { StagesView, TABLE_MAX } from './stages-view.js';
import { insight } from './insight.js';
import { Sizer } from './sizer.js';
import { stylesheet } from './styles.js';
import { TokenPicker } from './tokens.js';
import type { ExplainerScale, ExplainerView, ExplainerWeights, Explanation, ViewChangeDetail } from './types.js';

/** Features in the window view. */
export const WINDOW = 8;

export interface ViewModel {
  form: NormForm;
  weights: ExplainerWeights | null;
  eps: number;
  shape: readonly number[] | null;
  tokens: readonly string[] | null;
  rows: number;
  d: number | null;
  row: number;
  /** For `row` under the current inputs; null while there is none. */
  explanation: Explanation | null;
  /** Loading, or what went wrong. */
  status: { kind: 'info' | 'error'; text: string } | null;
  /** The inputs cannot be shown (the status says why): nothing is drawn from defaults instead. */
  problem: boolean;
  /** Attributes that could not be used, and what is shown instead. */
  notes: string | null;
  view: ExplainerView;
  /** First feature of the window, as chosen (null: the element picks one). */
  start: number;
  zoom: { from: number; to: number } | null;
  scale: ExplainerScale;
}

interface Extras {
  weights: import('./extras-view.js').WeightsView;
  variants: import('./extras-view.js').VariantsView;
}

export interface ViewHooks {
  pickRow(row: number): void;
  changeView(patch: Partial<ViewChangeDetail>): void;
}

/** The default form's (LayerNorm's) introduction; the other forms' load with them (intros.ts). */
const LAYERNORM_INTRO =
  "LayerNorm looks at one token at a time. It subtracts the mean μ of that token's d features, divides by their standard deviation √(σ² + ε) so that the result x̂ has mean 0 and variance 1, then gives every feature its own learned gain γᵢ and bias βᵢ. Nothing is shared across tokens, so the output has the input's shape.";

/** 'LayerNorm', 'Bias-free LayerNorm', 'RMSNorm'. */
const formName = (form: NormForm) => {
  const name = NORM_FORMS[form].label.replace(/ \(.*\)$/, '');
  return name[0]!.toUpperCase() + name.slice(1);
};

/** The features shown: a window of WINDOW from `start`, or all d (or the zoomed part of them). */
export function shownRange(m: Pick<ViewModel, 'view' | 'start' | 'zoom'>, d: number): { from: number; to: number } {
  if (m.view === 'window') {
    const from = Math.max(0, Math.min(d - WINDOW, m.start));
    return { from, to: Math.min(d - 1, from + WINDOW - 1) };
  }
  if (!m.zoom) return { from: 0, to: d - 1 };
  const from = Math.max(0, Math.min(d - 1, m.zoom.from));
  return { from, to: Math.max(from, Math.min(d - 1, m.zoom.to)) };
}

export class View {
  readonly root: HTMLElement;
  readonly #title = h('h2', { id: 'title', part: 'title' });
  readonly #intro = h('p', { class: 'intro', id: 'ex-intro', part: 'intro' });
  readonly #equation = h('div', { class: 'eqs', id: 'equation', part: 'equation' });
  readonly #picker: TokenPicker;
  readonly #tokensRow: HTMLElement;
  readonly #rowInput = h('input', { type: 'number', id: 'ex-row', min: 0, step: 1, 'aria-describedby': 'ex-row-msg' });
  readonly #rowMsg = h('p', { class: 'msg', id: 'ex-row-msg', role: 'alert' });
  readonly #status = h('p', { class: 'notice', id: 'ex-status', role: 'status', hidden: true });
  readonly #notes = h('p', { class: 'notice', id: 'ex-notes', part: 'notes', hidden: true });
  readonly #stats = h('div', { class: 'stats', id: 'ex-stats', 'aria-live': 'polite', part: 'statistics' });
  readonly #facts = h('dl', { class: 'facts about', id: 'facts' });
  readonly #insight = h('p', { class: 'insight', id: 'ex-insight', part: 'insight' });
  readonly #startInput = h('input', {
    type: 'number',
    id: 'ex-start',
    min: 0,
    step: 1,
    'aria-describedby': 'ex-start-msg',
  });
  /** View 'all''s fields, built when it is first chosen (zoom-controls.ts). */
  #zoomFrom: HTMLInputElement | null = null;
  #zoomTo: HTMLInputElement | null = null;
  #zoomAsked = false;
  readonly #startMsg = h('p', { class: 'msg', id: 'ex-start-msg', role: 'alert' });
  readonly #windowCtl: HTMLElement;
  readonly #zoomCtl: HTMLElement;
  readonly #stagesSection: HTMLElement;
  readonly stages: StagesView;
  readonly #sizer = new Sizer();
  /**
   * γ and β, and the three forms: far below the first screen, so their code loads when they come
   * within 600 px of the viewport (and there are weights to show).
   */
  readonly #weightsSlot = h('div', { id: 'weights-slot', part: 'weights' });
  readonly #variantsSlot = h('div', { part: 'variants' });
  readonly #near: Promise<void>;
  /** Asked for once: their code loads when they come near, then draws the latest model. */
  #extrasAsked = false;
  #extras: Extras | null = null;
  #model: ViewModel | null = null;
  #label: string | null = null;
  /** Names the landmarks again (after a drawing adds some); set once host-options.ts is loaded. */
  #labeler: (() => void) | null = null;
  #drawnEquation: NormForm | null = null;

  constructor(private readonly hooks: ViewHooks) {
    this.#picker = new TokenPicker('tok', (row) => hooks.pickRow(row));
    this.#tokensRow = h(
      'div',
      { class: 'tokens-row' },
      this.#picker.element,
      h('span', { class: 'field' }, h('label', { for: 'ex-row' }, 'Row'), this.#rowInput),
    );
    this.#near = new Promise((resolve) => {
      const io = new IntersectionObserver(
        (entries) => {
          if (!entries.some((e) => e.isIntersecting)) return;
          io.disconnect();
          resolve();
        },
        { rootMargin: '600px 0px' },
      );
      io.observe(this.#weightsSlot);
    });
    this.stages = new StagesView(this.#sizer, (from, to) => hooks.changeView({ zoom: { from, to } }));
    this.#rowInput.addEventListener('input', () => this.#typed('row'));
    this.#startInput.addEventListener('input', () => this.#typed('start'));
    const radio = (name: string, value: string, text: string) => {
      const input = h('input', { type: 'radio', name, value });
      input.addEventListener('change', () => {
        if (!input.checked) return;
        if (name === 'exview') hooks.changeView({ view: value as ExplainerView });
        else hooks.changeView({ scale: value as ExplainerScale });
      });
      return h('label', undefined, input, text);
    };
    this.#windowCtl = h(
      'span',
      { class: 'field', id: 'ex-window-ctl' },
      h('label', { for: 'ex-start' }, 'First feature'),
      this.#startInput,
    );
    this.#zoomCtl = h('span', { class: 'field', id: 'ex-zoom-ctl' });
    const controls = h(
      'div',
      { class: 'controls', part: 'controls' },
      h(
        'fieldset',
        undefined,
        h('legend', undefined, 'Features'),
        radio('exview', 'window', `window of ${WINDOW}`),
        radio('exview', 'all', 'all d'),
      ),
      this.#windowCtl,
      this.#zoomCtl,
      h(
        'fieldset',
        undefined,
        h('legend', undefined, 'Scale'),
        radio('exscale', 'symlog', 'shared, symmetric log'),
        radio('exscale', 'linear', 'shared, linear'),
        radio('exscale', 'own', 'each its own'),
      ),
    );
    this.#stagesSection = h(
      'section',
      { 'aria-labelledby': 'stages-h' },
      h('h3', { id: 'stages-h' }, 'Every stage of this token'),
      controls,
      this.#startMsg,
      this.stages.element,
      this.stages.table,
    );
    this.root = h(
      'section',
      { class: 'root', part: 'root', 'aria-labelledby': 'title' },
      this.#title,
      this.#intro,
      this.#equation,
      this.#tokensRow,
      this.#rowMsg,
      this.#status,
      this.#notes,
      this.#stats,
      this.#insight,
      this.#facts,
      this.#stagesSection,
      this.#weightsSlot,
      this.#variantsSlot,
    );
  }

  render(m: ViewModel): void {
    this.#model = m;
    this.#title.textContent = `${formName(m.form)}, one token at a time`;
    this.#intro.textContent = m.form === DEFAULT_FORM ? LAYERNORM_INTRO : '';
    if (m.form !== DEFAULT_FORM)
      void import('./intros.js').then(({ INTRO }) => {
        if (this.#model?.form === m.form) this.#intro.textContent = INTRO[m.form as keyof typeof INTRO];
      });
    if (this.#drawnEquation !== m.form) {
      this.#drawnEquation = m.form;
      const norm = NORMS[NORM_FORMS[m.form].norm];
      this.#equation.replaceChildren(equation(NORM_FORMS[m.form].equation), equation(norm.statistics.join(', ')));
    }
    this.#status.hidden = !m.status;
    this.#status.textContent = m.status?.text ?? '';
    this.#status.classList.toggle('error', m.status?.kind === 'error');
    this.#notes.hidden = !m.notes;
    this.#notes.textContent = m.notes ?? '';
    this.#picker.render(m.rows, m.row, m.tokens, m.shape);
    if (this.#focused() !== this.#rowInput) this.#rowInput.value = String(m.row);
    this.#rowInput.max = String(Math.max(0, m.rows - 1));
    if (parseWhole(this.#rowInput.value) === m.row) {
      this.#rowMsg.textContent = '';
      this.#rowInput.removeAttribute('aria-invalid');
    }
    // Nothing is drawn from defaults as if it were the author's: not while the inputs have a
    // problem, nor (empty token list, "waiting for weights") while there is nothing at all.
    this.#tokensRow.hidden = !m.shape;
    if (m.problem || (!m.shape && !m.weights)) this.#facts.replaceChildren();
    else this.#renderFacts(m);
    this.#renderControls(m);
    const ex = m.explanation;
    if (this.#labeler) queueMicrotask(this.#labeler);
    this.#stagesSection.hidden = !ex;
    this.#weightsSlot.hidden = !ex || !m.weights;
    this.#variantsSlot.hidden = !ex || !m.weights;
    if (!ex || m.d === null) {
      this.#stats.replaceChildren();
      this.#insight.textContent = '';
      return;
    }
    this.#renderStats(m, ex);
    const said = m.weights || normOfForm(m.form).centred ? insight(ex.stages, m.form) : '';
    this.#insight.textContent = said ?? '';
    if (said === null)
      void import('./insight-nonfinite.js').then(({ nonFiniteInsight }) => {
        if (this.#model?.explanation === ex) this.#insight.textContent = nonFiniteInsight(ex.stages, m.form);
      });
    const { from, to, labels } = this.#shown(m, m.d);
    this.stages.render({
      form: m.form,
      stages: ex.stages,
      weights: m.weights,
      from,
      to,
      scale: m.scale,
      labels,
      zoomable: m.view === 'all',
      shape: m.shape,
      tokens: m.tokens,
    });
    if (m.weights) this.#renderExtras();
  }

  /**
   * What the host's `label` / `aria-label` and `sections` ask for (host-options.ts, loaded when
   * one is set): the landmarks named after the label, the parts not kept hidden.
   */
  hostOptions(label: string | null, sections: boolean): void {
    this.#label = label;
    if (!label && !sections && !this.#labeler) return;
    void import('./host-options.js').then(({ nameLandmarks, SECTIONS_CSS }) => {
      const tree = this.root.getRootNode();
      const sheet = stylesheet(SECTIONS_CSS);
      if (sections && tree instanceof ShadowRoot && !tree.adoptedStyleSheets.includes(sheet))
        tree.adoptedStyleSheets = [...tree.adoptedStyleSheets, sheet];
      this.#labeler = () => nameLandmarks(this.root, this.#label);
      this.#labeler();
    });
  }

  #shown(m: ViewModel, d: number): { from: number; to: number; labels: boolean } {
    const { from, to } = shownRange(m, d);
    return { from, to, labels: to - from + 1 <= TABLE_MAX && m.view === 'window' };
  }

  /**
   * γ/β and the three forms, from the latest model only: however many renders come before they
   * are near, one call waits for them (a wait per render would hold every render's data).
   */
  #renderExtras(): void {
    const m = this.#model;
    const ex = m?.explanation;
    if (this.#extras && m?.weights && ex && m.d !== null) {
      const { from, to, labels } = this.#shown(m, m.d);
      this.#extras.weights.render(m.weights);
      const token = describeRow(m.row, m.shape, m.tokens);
      this.#extras.variants.render(ex.variants, m.form, token, from, to, m.scale, labels);
      this.#labeler?.();
      return;
    }
    if (this.#extrasAsked) return;
    this.#extrasAsked = true;
    void this.#near
      .then(() => import('./extras-view.js'))
      .then(({ VariantsView, WeightsView, EXTRAS_STYLES }) => {
        const tree = this.root.getRootNode();
        if (tree instanceof ShadowRoot) tree.adoptedStyleSheets = [...tree.adoptedStyleSheets, EXTRAS_STYLES];
        this.#extras = { weights: new WeightsView(this.#sizer), variants: new VariantsView(this.#sizer) };
        this.#weightsSlot.append(this.#extras.weights.element);
        this.#variantsSlot.append(this.#extras.variants.element);
        this.#renderExtras();
      });
  }

  #renderStats(m: ViewModel, ex: Explanation): void {
    const st = ex.stages;
    const fact = (k: string, v: string, id: string) => h('div', undefined, h('dt', undefined, k), h('dd', { id }, v));
    const items = [fact('token', describeRow(st.row, m.shape, m.tokens), 'ex-token')];
    // The statistics the form's facts give it: μ if it centres, and its moment by its own name.
    const spec = normOfForm(m.form);
    const moment = (st as unknown as Record<string, number>)[momentKey(spec)]!;
    if ('mean' in st) items.push(fact('μ', fmtNum(st.mean, 7), 'ex-mean'));
    items.push(
      fact(spec.moment, fmtNum(moment, 7), spec.centred ? 'ex-var' : 'ex-ms'),
      fact(`${spec.centred ? '' : 'rstd = '}1/√(${spec.moment}+ε)`, fmtNum(st.rstd, 7), 'ex-rstd'),
    );
    this.#stats.replaceChildren(h('dl', { class: 'facts' }, ...items));
  }

  #renderFacts(m: ViewModel): void {
    const fact = (k: string, v: string, id?: string) =>
      h('div', undefined, h('dt', undefined, k), h('dd', id ? { id } : undefined, v));
    const items: HTMLElement[] = [];
    const w = m.weights;
    items.push(fact('Norm', w ? NORM_FORMS[m.form].label : 'waiting for weights', 'fact-norm'));
    if (w) {
      const d = w.gamma.length;
      items.push(
        fact(
          'Parameters',
          NORM_FORMS[m.form].bias
            ? `γ ${fmtInt(d)} + β ${fmtInt(d)} = ${fmtInt(2 * d)}`
            : `γ ${fmtInt(d)} = ${fmtInt(d)} (no β)`,
          'param-count',
        ),
      );
    }
    items.push(fact('ε', fmtEps(m.eps), 'fact-eps'));
    if (m.shape)
      items.push(fact('Shape', `[${m.shape.join(', ')}] → the same; each row of d = ${m.d} on its own`, 'fact-shape'));
    this.#facts.replaceChildren(...items);
  }

  #renderControls(m: ViewModel): void {
    for (const input of this.root.querySelectorAll<HTMLInputElement>('input[type="radio"]')) {
      input.checked = input.name === 'exview' ? input.value === m.view : input.value === m.scale;
    }
    this.#windowCtl.hidden = m.view !== 'window';
    this.#zoomCtl.hidden = m.view !== 'all';
    const d = m.d ?? 0;
    const { from, to } = shownRange(m, d);
    const focused = this.#focused();
    const sync = (input: HTMLInputElement, v: number) => {
      if (focused !== input && parseWhole(input.value) !== v) input.value = String(v);
    };
    sync(this.#startInput, from);
    this.#startInput.max = String(Math.max(0, d - WINDOW));
    if (m.view !== 'all') return;
    if (this.#zoomFrom && this.#zoomTo) {
      sync(this.#zoomFrom, from);
      sync(this.#zoomTo, to);
    } else if (!this.#zoomAsked) {
      this.#zoomAsked = true;
      void import('./zoom-controls.js').then(({ zoomControls }) => {
        const built = zoomControls(
          h,
          () => this.#typed('zoom'),
          () => this.hooks.changeView({ zoom: null }),
        );
        this.#zoomCtl.append(...built.nodes);
        this.#zoomFrom = built.from;
        this.#zoomTo = built.to;
        if (this.#model) this.#renderControls(this.#model);
      });
    }
  }

  /** The element with focus in this view's tree (a shadow root's, or the document's). */
  #focused(): Element | null {
    const tree = this.root.getRootNode() as ShadowRoot | Document;
    return 'activeElement' in tree ? tree.activeElement : null;
  }

  /** A typed value, checked by typed-inputs.ts (loaded on the first keystroke). */
  #typed(field: 'row' | 'start' | 'zoom'): void {
    // What was typed, read now: a drawing before the module arrives may set the fields again.
    const text =
      field === 'row'
        ? [this.#rowInput.value]
        : field === 'start'
          ? [this.#startInput.value]
          : [this.#zoomFrom!.value, this.#zoomTo!.value];
    void import('./typed-inputs.js').then(({ typed }) => {
      const m = this.#model;
      if (!m) return;
      const fields = {
        row: this.#rowInput,
        start: this.#startInput,
        zoomFrom: this.#zoomFrom!,
        zoomTo: this.#zoomTo!,
        rowMsg: this.#rowMsg,
        startMsg: this.#startMsg,
      };
      const { pickRow, changeView } = this.hooks;
      typed(field, text, fields, { ...m, window: WINDOW, pickRow, changeView, parseWhole, fmtInt });
    });
  }
}
