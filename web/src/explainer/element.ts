/**
 * <layernorm-explainer>: one token of an author's hidden states through every stage of the norm,
 * computed by the package's WebAssembly module. Attributes for what an author writes in HTML (src,
 * row, theme, view, start, zoom, scale), properties for what a script hands over (weights,
 * activations, row; stages to read back), events for what the reader does (rowchange,
 * viewchange), and render / error for the host. Nothing is computed, fetched or loaded until the
 * element comes near the viewport.
 *
 * One class: the properties, the attributes and the update cycle share its state;
 * what it draws is in view.ts and the views beside it.
 */
import { RULES, oneOf } from '../checks/rules.js';
import { OBSERVED, readAttribute, SCALES, takeUpEarlyProperties, THEMES, VIEWS } from './attributes.js';
import { explainRow, formOf, strongestWindow, widthOf } from './compute.js';
import { defaultRuntime, loadWeights, markup } from './sources.js';
import { checkActivations, checkEngine, checkIndex, checkWeights } from './inputs.js';
import { stylesheet } from './styles.js';
import type {
  ExplainerActivations,
  ExplainerActivationsInput,
  ExplainerEngine,
  ExplainerRuntime,
  ExplainerScale,
  ExplainerStages,
  ExplainerTheme,
  ExplainerView,
  ExplainerWeights,
  ExplainerWeightsInput,
  Explanation,
  RowChangeDetail,
  ViewChangeDetail,
} from './types.js';
import { View, WINDOW, type ViewModel } from './view.js';
import { EMPTY_GUIDE } from './empty-guide.js';
import { errorText } from '../checks/error-text.js';

const DEFAULT_EPS = 1e-5;
const JSON_CHILD = ':scope > script[type="application/json"]';
/** How long an element stays empty before it says what to set. */
const GUIDE_DELAY_MS = 2000;

/** In Node (server rendering) there is no HTMLElement: the class exists, and is never constructed. */
const Base = (typeof HTMLElement === 'undefined' ? class {} : HTMLElement) as typeof HTMLElement;

interface Computed {
  /** What it was computed from: any change of these makes it stale. */
  source: object;
  weights: ExplainerWeights | null;
  eps: number;
  row: number;
  result: Explanation;
}

export class LayerNormExplainer extends Base {
  static readonly observedAttributes = OBSERVED;

  readonly #view: View;
  #weights: ExplainerWeights | null = null;
  #activations: ExplainerActivations | null = null;
  #engine: ExplainerEngine | null = null;
  #runtime: ExplainerRuntime | null = null;
  #row = 0;
  #viewMode: ExplainerView = 'window';
  #start: number | null = null;
  #zoom: { from: number; to: number } | null = null;
  #scale: ExplainerScale = 'symlog';
  /** Attributes whose values could not be used, and why. */
  readonly #attrProblems = new Map<string, string>();
  /** Properties whose last value was refused, and why. */
  readonly #refused = new Map<string, string>();
  /** The problem last reported by an `error` event, so that each is reported once. */
  #reported: string | null = null;
  #computed: Computed | null = null;
  #status: ViewModel['status'] = null;
  #srcLoad: AbortController | null = null;
  #visible = false;
  #generation = 0;
  #queued = false;
  /** A computation is running. */
  #busy = false;
  #reflecting = false;
  #idle: { promise: Promise<void>; resolve(): void } | null = null;
  #observer: IntersectionObserver | null = null;

  constructor() {
    super();
    const shadow = this.attachShadow({ mode: 'open' });
    shadow.adoptedStyleSheets = [stylesheet()];
    this.#view = new View({
      pickRow: (row) => {
        this.row = row;
        this.#emit<RowChangeDetail>('rowchange', { row, token: this.#tokens()?.[row] ?? null });
      },
      changeView: (patch) => {
        if (patch.view !== undefined) this.#viewMode = patch.view;
        if (patch.start !== undefined) this.#start = patch.start;
        if (patch.zoom !== undefined) this.#zoom = patch.zoom;
        if (patch.scale !== undefined) this.#scale = patch.scale;
        this.#reflectView();
        this.#emit<ViewChangeDetail>('viewchange', {
          view: this.#viewMode,
          start: this.start,
          zoom: this.#zoom,
          scale: this.#scale,
        });
        this.#invalidate();
      },
    });
    shadow.append(this.#view.root);
  }

  connectedCallback(): void {
    takeUpEarlyProperties(this);
    if (!this.#activations && !this.#engine && !this.#markupLoad) this.#loadMarkup();
    if (this.#observer || this.#visible) return;
    const io = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        io.disconnect();
        this.#observer = null;
        this.#visible = true;
        this.#invalidate();
      },
      { rootMargin: '300px' },
    );
    io.observe(this);
    this.#observer = io;
    this.#invalidate();
  }

  disconnectedCallback(): void {
    this.#observer?.disconnect();
    this.#observer = null;
  }

  attributeChangedCallback(name: string, _old: string | null, value: string | null): void {
    if (this.#reflecting) return;
    this.#attrProblems.delete(name);
    if (name === 'src') this.#loadSrc(value);
    else if (name === 'activations-src' || name === 'tokens-src') this.#loadMarkup();
    else if (name === 'label' || name === 'aria-label' || name === 'sections')
      this.#view.hostOptions(
        this.getAttribute('label') ?? this.getAttribute('aria-label'),
        this.hasAttribute('sections'),
      );
    const read = readAttribute(name, value);
    const v = read.value as never;
    if (name === 'row') this.#row = v;
    else if (name === 'view') this.#viewMode = v;
    else if (name === 'scale') this.#scale = v;
    else if (name === 'start') this.#start = v;
    else if (name === 'zoom') this.#zoom = v;
    if (read.note) this.#attrProblems.set(name, read.note);
    this.#invalidate();
  }

  // ---- properties

  /** γ, β, ε and the norm (what loadNormWeights returns works as is); null: none yet. */
  get weights(): ExplainerWeights | null {
    return this.#weights;
  }
  set weights(value: ExplainerWeightsInput | null) {
    this.#accept('weights', () => (this.#weights = checkWeights(value)));
    // A src still loading would overwrite these when it arrives: the newer choice wins.
    this.#srcLoad?.abort();
    this.#srcLoad = null;
    this.#pendingSrc = null;
    if (this.#status?.kind === 'info') this.#status = null;
  }

  /** The hidden states: { data, shape, tokens? }, d values per row in the last axis. */
  get activations(): ExplainerActivations | null {
    return this.#activations;
  }
  set activations(value: ExplainerActivationsInput | null) {
    this.#accept('activations', () => (this.#activations = checkActivations(value)));
  }

  /** The row (token) explained; reflected as the `row` attribute. */
  get row(): number {
    return this.#row;
  }
  set row(value: number) {
    this.#accept('row', () => {
      this.#row = checkIndex('row', value);
      this.#attrProblems.delete('row');
      this.#reflect('row', String(this.#row));
    });
  }

  /** The selected row's stages, exactly as layerNormStages / rmsNormStages return them; null until computed. */
  get stages(): ExplainerStages | null {
    const c = this.#computed;
    return c && this.#isCurrent(c) && !this.#problem() ? c.result.stages : null;
  }

  /** A checkpoint URL read by range requests (safetensors, GGUF); its ε and norm come with it. */
  get src(): string {
    return this.getAttribute('src') ?? '';
  }
  set src(value: string) {
    this.setAttribute('src', String(value));
  }

  get theme(): ExplainerTheme {
    const t = this.getAttribute('theme') as ExplainerTheme | null;
    return t && THEMES.includes(t) ? t : 'light';
  }
  set theme(value: ExplainerTheme) {
    this.setAttribute('theme', String(value));
  }

  get view(): ExplainerView {
    return this.#viewMode;
  }
  set view(value: ExplainerView) {
    this.#accept('view', () => {
      if (!VIEWS.includes(value))
        throw new TypeError(RULES.mustBe('<layernorm-explainer>', 'view', oneOf(VIEWS), value));
      this.#viewMode = value;
      this.#reflectView();
    });
  }

  /** First feature of the window (view 'window'); by default the window shows the row's strongest feature. */
  get start(): number {
    const d = this.#width();
    if (this.#start !== null || d === null) return this.#start ?? 0;
    const st = this.stages;
    return st ? strongestWindow(st, d, WINDOW) : 0;
  }
  set start(value: number) {
    this.#accept('start', () => {
      this.#start = checkIndex('start', value);
      this.#reflectView();
    });
  }

  /** The features view 'all' shows; null: every one. */
  get zoom(): { from: number; to: number } | null {
    return this.#zoom;
  }
  set zoom(value: { from: number; to: number } | null) {
    this.#accept('zoom', () => {
      if (value !== null && value !== undefined) {
        const from = checkIndex('zoom.from', value?.from);
        const to = checkIndex('zoom.to', value?.to);
        if (to - from < 3)
          throw new RangeError(
            RULES.mustBe('<layernorm-explainer>', 'zoom.to', `at least zoom.from + 3 = ${from + 3} (4 features)`, to),
          );
        value = { from, to };
      }
      this.#zoom = value ?? null;
      this.#reflectView();
    });
  }

  get scale(): ExplainerScale {
    return this.#scale;
  }
  set scale(value: ExplainerScale) {
    this.#accept('scale', () => {
      if (!SCALES.includes(value))
        throw new TypeError(RULES.mustBe('<layernorm-explainer>', 'scale', oneOf(SCALES), value));
      this.#scale = value;
      this.#reflectView();
    });
  }

  /** The runtime to compute with (e.g. the inline entry's init()); default: init() on first use. */
  get runtime(): ExplainerRuntime | null {
    return this.#runtime;
  }
  set runtime(value: ExplainerRuntime | null) {
    this.#runtime = value ?? null;
    this.#invalidate();
  }

  /** A host's own engine (e.g. a worker holding the activations); it takes the place of `activations`. */
  get engine(): ExplainerEngine | null {
    return this.#engine;
  }
  set engine(value: ExplainerEngine | null) {
    this.#accept('engine', () => {
      this.#engine = checkEngine(value);
      this.#computed = null;
    });
  }

  /**
   * Settles once what the inputs ask for is computed and drawn (or has failed). Work starts when
   * the element comes near the viewport: for an element far below, it settles after that.
   */
  get ready(): Promise<void> {
    const loading = this.#srcLoad || this.#pendingSrc || this.#markupLoad;
    // Inputs not yet computed (the element is not yet near the viewport) are still to come.
    const computed = this.#computed && this.#isCurrent(this.#computed);
    const waiting = !!this.#source() && !computed && !this.#problem();
    if (!this.#queued && !this.#busy && !loading && !waiting && !this.#idle) return Promise.resolve();
    return (this.#idle ??= deferred()).promise;
  }

  // ---- internals

  #shape(): readonly number[] | null {
    return this.#engine?.shape ?? this.#activations?.shape ?? null;
  }

  #tokens(): readonly string[] | null {
    return (this.#engine ? this.#engine.tokens : this.#activations?.tokens) ?? null;
  }

  #width(): number | null {
    const shape = this.#shape();
    return shape ? widthOf(shape) : null;
  }

  #eps(): number {
    return this.#weights?.eps ?? DEFAULT_EPS;
  }

  #source(): object | null {
    return this.#engine ?? this.#activations;
  }

  #isCurrent(c: Computed): boolean {
    return c.source === this.#source() && c.weights === this.#weights && c.eps === this.#eps() && c.row === this.#row;
  }

  #reflect(name: string, value: string | null): void {
    this.#reflecting = true;
    try {
      if (value === null) this.removeAttribute(name);
      else if (this.getAttribute(name) !== value) this.setAttribute(name, value);
    } finally {
      this.#reflecting = false;
    }
  }

  #reflectView(): void {
    this.#reflect('view', this.#viewMode === 'window' ? null : this.#viewMode);
    this.#reflect('start', this.#start === null ? null : String(this.#start));
    this.#reflect('zoom', this.#zoom ? `${this.#zoom.from}-${this.#zoom.to}` : null);
    this.#reflect('scale', this.#scale === 'symlog' ? null : this.#scale);
  }

  /**
   * Sets a property through `apply`, which checks the value: a property never throws (in React, a
   * throwing setter unmounts the whole app). A refused value keeps the last good one, is shown in
   * the element in place of what it would have drawn, and fires `error` with the same message.
   */
  #accept(name: string, apply: () => void): void {
    try {
      apply();
      this.#refused.delete(name);
    } catch (e) {
      const message = errorText(e);
      this.#refused.set(name, message);
      this.#error(message, e);
    }
    this.#invalidate();
  }

  /** An ErrorEvent carrying `{ message, error }` as its detail too (types.ts: ExplainerErrorEvent). */
  #error(message: string, error: unknown): void {
    const e = new ErrorEvent('error', { message, error, bubbles: true, composed: true });
    this.dispatchEvent(Object.assign(e, { detail: { message, error } }));
  }

  #emit<T>(type: string, detail: T): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  #loadSrc(src: string | null): void {
    this.#srcLoad?.abort();
    this.#srcLoad = null;
    this.#pendingSrc = null;
    if (this.#status?.kind === 'info') this.#status = null;
    if (!src) return;
    const controller = new AbortController();
    this.#srcLoad = controller;
    this.#status = { kind: 'info', text: `Loading the weights from ${src}…` };
    const start = () => {
      loadWeights(src, controller.signal).then(
        (w) => {
          if (this.#srcLoad !== controller) return;
          this.#srcLoad = null;
          this.#status = null;
          this.#weights = w;
          this.#invalidate();
        },
        async (e: unknown) => {
          const why = await (await markup()).loadFailure(src, e);
          if (this.#srcLoad !== controller) return;
          this.#srcLoad = null;
          this.#fail(`Could not load the weights from ${src}: ${why}`, e);
        },
      );
    };
    // Nothing is fetched before the element comes near the viewport, and then the token comes
    // first: the loader and the checkpoint's bytes are asked for once its stages are drawn, so
    // they do not compete with the runtime and the .wasm for the first drawing (see #update).
    this.#pendingSrc = start;
    this.#invalidate();
  }

  #pendingSrc: (() => void) | null = null;
  /** activations-src, tokens-src or an inline JSON script being read (markup-inputs.ts). */
  #markupLoad: AbortController | null = null;
  #pendingMarkup: (() => void) | null = null;
  /** The empty element's guide is shown. */
  #guiding = false;

  #loadMarkup(): void {
    this.#markupLoad?.abort();
    this.#markupLoad = null;
    this.#pendingMarkup = null;
    if (!this.hasAttribute('activations-src') && !this.querySelector(JSON_CHILD)) return;
    const controller = new AbortController();
    this.#markupLoad = controller;
    // markup-inputs.ts reads them and sets `weights` and `activations` (unless given up by then).
    this.#pendingMarkup = () =>
      markup()
        .then((m) => m.loadInto(this, controller.signal))
        .then((failure) => {
          if (this.#markupLoad !== controller) return;
          this.#markupLoad = null;
          if (failure) this.#fail(failure.message, failure.cause);
          else this.#invalidate();
        });
    this.#invalidate();
  }

  /** With nothing to show and nothing coming, the element says what to set. */
  #guide(): void {
    const empty = () => !this.#source() && !this.#markupLoad && !this.#srcLoad && !this.#pendingSrc;
    if (this.#guiding && !empty()) {
      this.#guiding = false;
      if (this.#status?.kind === 'info') this.#status = null;
    } else if (!this.#guiding && !this.#status && !this.#refused.size && empty()) {
      this.#guiding = true;
      // A host that hands its data over a moment later (after its worker starts, say) never
      // shows the guide, nor loads it.
      setTimeout(() => {
        if (!this.#guiding || !empty()) return;
        if (this.#status) return;
        this.#status = { kind: 'info', text: EMPTY_GUIDE };
        this.#invalidate();
      }, GUIDE_DELAY_MS);
    }
  }
  /** A first result (or failure) has been drawn since the element became visible. */
  #drawn = false;

  #fail(text: string, error: unknown): void {
    this.#status = { kind: 'error', text };
    this.#error(text, error);
    this.#invalidate();
  }

  #invalidate(): void {
    if (this.#queued) return;
    this.#queued = true;
    queueMicrotask(() => {
      this.#queued = false;
      this.#update();
    });
  }

  /** What the inputs ask for, and why nothing can be shown when that is so. */
  #problem(): string | null {
    const shape = this.#shape();
    if (this.#refused.size) return [...this.#refused.values()].join(' ');
    if (!shape) return null;
    const d = widthOf(shape);
    if (this.#weights && this.#weights.gamma.length !== d) {
      return `The weights have d = ${this.#weights.gamma.length} but the activations' last axis is ${d} ([${shape.join(', ')}]): they must be equal.`;
    }
    const rows = shape.slice(0, -1).reduce((a, b) => a * b, 1);
    if (this.#row >= rows)
      return `Row ${this.#row} does not exist: these activations have ${rows} rows (0 to ${rows - 1}).`;
    return null;
  }

  #update(): void {
    const problem = this.#problem();
    // A width mismatch or a missing row is an error too (a refused property has fired its own).
    if (problem !== this.#reported) {
      this.#reported = problem;
      if (problem && !this.#refused.size) this.#error(problem, null);
    }
    const source = this.#source();
    if (this.#visible && this.#pendingMarkup) {
      const start = this.#pendingMarkup;
      this.#pendingMarkup = null;
      start();
    }
    if (this.#visible) this.#guide();
    if (this.#visible && this.#pendingSrc && (this.#drawn || !source || problem)) {
      const start = this.#pendingSrc;
      this.#pendingSrc = null;
      start();
    }
    const computed = this.#computed && this.#isCurrent(this.#computed) ? this.#computed : null;
    this.#render();
    if (computed || problem || !source || !this.#visible) {
      // Still to come: the weights of a src, or the work that starts once the element is seen.
      const waiting = !problem && (this.#srcLoad || this.#markupLoad || (source && !computed && !this.#visible));
      if (!waiting) this.#settle();
      return;
    }
    const generation = ++this.#generation;
    this.#busy = true;
    const request = { row: this.#row, weights: this.#weights, eps: this.#eps() };
    const engine = this.#engine;
    const activations = this.#activations;
    const work: Promise<Explanation> = engine
      ? engine.explain(request)
      : Promise.resolve(this.#runtime ?? defaultRuntime()).then((rt) =>
          explainRow(rt, activations!.data, widthOf(activations!.shape), request.row, request.weights, request.eps),
        );
    work.then(
      (result) => {
        if (generation !== this.#generation) return;
        this.#busy = false;
        this.#computed = { source, ...request, result };
        if (this.#status?.kind === 'error') this.#status = null;
        this.#render();
        this.#emit('render', { row: request.row });
        this.#firstDrawn();
        if (!this.#srcLoad) this.#settle();
      },
      (e: unknown) => {
        if (generation !== this.#generation) return;
        this.#busy = false;
        this.#firstDrawn();
        this.#settle();
        this.#fail(`Could not compute row ${request.row}: ${errorText(e)}`, e);
      },
    );
  }

  #firstDrawn(): void {
    if (this.#drawn) return;
    this.#drawn = true;
    if (this.#pendingSrc) this.#invalidate();
  }

  #settle(): void {
    const idle = this.#idle;
    this.#idle = null;
    idle?.resolve();
  }

  #render(): void {
    const problem = this.#problem();
    const status: ViewModel['status'] = problem ? { kind: 'error', text: problem } : this.#status;
    const shape = this.#shape();
    // While a new row or new weights are computed, the last result for the same activations stays
    // on screen (with the weights it was made with), so the element keeps its height. While the
    // inputs have a problem, its message stands in place of the drawing.
    const c = !problem && this.#computed && this.#computed.source === this.#source() ? this.#computed : null;
    const weights = c ? c.weights : this.#weights;
    this.#view.root.setAttribute('aria-busy', String(!!c && !this.#isCurrent(c)));
    this.#view.render({
      form: formOf(weights),
      weights,
      eps: c ? c.eps : this.#eps(),
      shape,
      tokens: this.#tokens(),
      rows: shape ? shape.slice(0, -1).reduce((a, b) => a * b, 1) : 0,
      d: this.#width(),
      row: this.#row,
      explanation: c?.result ?? null,
      status,
      problem: !!problem,
      notes: this.#attrProblems.size ? [...this.#attrProblems.values()].join(' ') : null,
      view: this.#viewMode,
      start: this.start,
      zoom: this.#zoom,
      scale: this.#scale,
    });
  }
}

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
