import 'katex/dist/katex.min.css';
import './style.css';
import katex from 'katex';
import {
  init,
  layerNormReference,
  compareOutputs,
  loadLayerNormWeights,
  readNpy,
  writeNpy,
  parseActivationsJson,
  parseActivationsText,
  FetchError,
  GPT2_SAFETENSORS_URL,
  type LayerNormRuntime,
} from './pkg';
import { $, el, fmtBytes, fmtInt, fmtNum, fmtShape, fmtTime, parseFinite } from './format';
import { gpt2LikeActivations, syntheticWeights } from './sample';
import { Heatmap } from './heatmap';
import { attachDragZoom, drawBars, drawHistogram } from './charts';
import { compareToExpected, countBitDifferences, ulpHistogram, layerNormJS, median, ULP_BIN_LABELS } from './checks';
import type { WorkerMessage, WorkerRequest } from './protocol';

/* ------------------------------------------------------------------ state */

const MAX_FILE_BYTES = 1_000_000_000; // 1 GB: refuse anything larger
const WORKER_THRESHOLD = 16 << 20; // .npy files above 16 MB stream through the worker
const MAX_HEATMAP_ROWS = 256;
const MAX_TABLE_ROWS = 256;
const D_GPT2 = 768;

interface Weights {
  gamma: Float32Array;
  beta: Float32Array | null;
  d: number;
  source: string;
  synthetic: boolean;
}
interface Activations {
  data: Float32Array;
  shape: number[];
  label: string;
}

const state = {
  rt: null as LayerNormRuntime | null,
  rtScalar: null as LayerNormRuntime | null,
  scalarRequested: false,
  weights: null as Weights | null,
  act: null as Activations | null,
  out: null as Float32Array | null,
  expected: null as { data: Float32Array; shape: number[]; name: string } | null,
  zoom: { from: 0, to: D_GPT2 - 1 },
  loadToken: 0,
};

const fmt = (v: number) => fmtNum(v, 6);

/* ------------------------------------------------------------------ helpers */

function setMsg(node: HTMLElement, text: string, kind: 'error' | 'ok' | 'info' = 'info'): void {
  node.textContent = text;
  node.dataset.kind = kind;
}

function errText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function download(data: BlobPart | Blob, name: string, type: string): void {
  const blob = data instanceof Blob ? data : new Blob([data], { type });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function radioValue(name: string): string {
  return (document.querySelector(`input[name="${name}"]:checked`) as HTMLInputElement).value;
}

function setRadio(name: string, value: string): void {
  const r = document.querySelector(`input[name="${name}"][value="${value}"]`) as HTMLInputElement;
  r.checked = true;
}

function epsValue(): number | null {
  const v = parseFinite(($('eps') as HTMLInputElement).value);
  return v !== null && v >= 0 ? v : null;
}

function biasFree(): boolean {
  return radioValue('preset') === 'biasfree';
}

function layerOptions() {
  const w = state.weights!;
  return { gamma: w.gamma, beta: biasFree() ? null : w.beta, eps: epsValue() ?? 1e-5 };
}

function rowsOf(a: Activations): number {
  return a.data.length / a.shape[a.shape.length - 1]!;
}

function describeRow(row: number): string {
  const a = state.act;
  if (!a) return `row ${row}`;
  if (a.shape.length === 3) {
    const T = a.shape[1]!;
    return `row ${row} (b ${Math.floor(row / T)}, t ${row % T})`;
  }
  return `row ${row}`;
}

const yieldToBrowser = () => new Promise<void>((r) => setTimeout(r, 0));

/* ------------------------------------------------------------------ runtime */

async function startRuntime(): Promise<void> {
  const status = $('runtime-status');
  try {
    state.rt = await init();
    status.textContent = `Running on the ${state.rt.backend === 'simd' ? 'SIMD128' : 'scalar'} build · kernel ${state.rt.kernel}`;
    status.dataset.kind = 'ok';
  } catch (e) {
    status.textContent = `The WebAssembly module could not start: ${errText(e)}`;
    status.dataset.kind = 'error';
    throw e;
  }
}

/* ------------------------------------------------------------------ weights */

function showWeightSources(): void {
  const v = radioValue('wsrc');
  $('wsrc-file-panel').hidden = v !== 'file';
  $('wsrc-url-panel').hidden = v !== 'url';
  $('wsrc-synthetic-panel').hidden = v !== 'synthetic';
}

function weightNotice(text: string | null, offerRetry = false): void {
  const n = $('weights-notice');
  n.hidden = !text;
  $('weights-notice-text').textContent = text ?? '';
  $('weights-retry').hidden = !offerRetry;
}

function summarize(a: Float32Array): string {
  let lo = Infinity;
  let hi = -Infinity;
  let s = 0;
  for (const v of a) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
    s += v;
  }
  return `mean ${fmtNum(s / a.length, 4)}, range [${fmtNum(lo, 4)}, ${fmtNum(hi, 4)}]`;
}

function renderWeightSummary(): void {
  const w = state.weights;
  const node = $('weights-summary');
  if (!w) {
    node.textContent = 'No weights loaded yet.';
    return;
  }
  node.replaceChildren();
  node.append(el('strong', w.source));
  const parts = [`d = ${w.d}`, `γ: ${summarize(w.gamma)}`];
  if (w.beta) parts.push(`β: ${summarize(w.beta)}`);
  else parts.push('no β in this checkpoint');
  if (w.beta && biasFree()) parts.push('β ignored (bias-free preset)');
  node.append(document.createTextNode(` — ${parts.join(' · ')}`));
}

async function setWeights(w: Weights): Promise<void> {
  state.weights = w;
  state.zoom = { from: 0, to: w.d - 1 };
  ($('ex-zoom-to') as HTMLInputElement).value = String(w.d - 1);
  renderWeightSummary();
  if (!state.act || state.act.label.startsWith('generated')) {
    // keep the sample in step with the weights' width
    if (!state.act || state.act.shape[state.act.shape.length - 1] !== w.d) generate();
  }
  recompute();
}

function useSynthetic(): Promise<void> {
  const seed = Number(($('weights-seed') as HTMLInputElement).value) || 0;
  const d = state.weights?.d && state.weights.synthetic ? state.weights.d : D_GPT2;
  const { gamma, beta } = syntheticWeights(d, seed);
  setRadio('wsrc', 'synthetic');
  showWeightSources();
  return setWeights({
    gamma,
    beta,
    d,
    source: `Synthetic demo weights (seed ${seed}) — random, not GPT-2's`,
    synthetic: true,
  });
}

const GPT2_CHECKPOINT_BYTES = 548_105_171; // size of GPT-2 small's model.safetensors, for the fallback label

async function loadWeightsFrom(source: string | File, label: string, isHF = false): Promise<void> {
  const token = ++state.loadToken;
  const summary = $('weights-summary');
  summary.textContent = `Loading ${label}…`;
  weightNotice(null);
  // The total size of a remote file arrives in the Content-Range header of the first range read.
  let total: number | undefined = typeof source === 'string' ? undefined : source.size;
  const trackingFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const m = /\/(\d+)\s*$/.exec(res.headers.get('content-range') ?? '');
    if (m) total = Number(m[1]);
    return res;
  };
  try {
    const res = await loadLayerNormWeights(source, {
      fetch: trackingFetch,
      onProgress: (read) => {
        if (token === state.loadToken) summary.textContent = `Loading ${label}… ${fmtBytes(read)} read`;
      },
    });
    if (token !== state.loadToken) return;
    if (total === undefined && isHF) total = GPT2_CHECKPOINT_BYTES;
    const of = total !== undefined ? ` of ${fmtBytes(total)}` : '';
    const how = typeof source === 'string' ? 'fetched with range reads' : 'read';
    const dtype = res.dtype && res.dtype !== 'F32' && res.dtype !== 'float32' ? `, stored as ${res.dtype}` : '';
    await setWeights({
      gamma: res.gamma,
      beta: res.beta ?? null,
      d: res.d,
      source: `${label} — ${fmtBytes(res.bytesRead)}${of} ${how}${dtype}`,
      synthetic: false,
    });
  } catch (e) {
    if (token !== state.loadToken) return;
    if (isHF || e instanceof FetchError) {
      const what = isHF ? 'Hugging Face (huggingface.co)' : label;
      await useSynthetic();
      weightNotice(
        `Could not load weights from ${what} — the network may be unavailable, or you may be offline. ` +
          "The page now uses synthetic demo weights (random, not GPT-2's) so everything below keeps working. " +
          `Details: ${errText(e)}`,
        isHF,
      );
    } else {
      weightNotice(`Could not read ${label}: ${errText(e)}`);
      renderWeightSummary();
    }
  }
}

function loadHF(): Promise<void> {
  return loadWeightsFrom(GPT2_SAFETENSORS_URL, 'GPT-2 small ln_f from huggingface.co', true);
}

function loadWeightsFile(file: File): Promise<void> {
  setRadio('wsrc', 'file');
  showWeightSources();
  return loadWeightsFrom(file, `${file.name} (local file)`);
}

function loadWeightsUrl(): void {
  const text = ($('weights-url') as HTMLInputElement).value.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    weightNotice(`“${text}” is not a URL. Enter a full http:// or https:// address.`);
    return;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    weightNotice(`Only http and https URLs are supported, not ${url.protocol.replace(':', '')}.`);
    return;
  }
  void loadWeightsFrom(url.href, url.href);
}

function wireWeights(): void {
  for (const r of document.querySelectorAll<HTMLInputElement>('input[name="wsrc"]')) {
    r.addEventListener('change', () => {
      showWeightSources();
      if (r.value === 'hf' && r.checked) void loadHF();
      if (r.value === 'synthetic' && r.checked) {
        weightNotice(null);
        void useSynthetic();
      }
    });
  }
  $('weights-seed').addEventListener('change', () => void useSynthetic());
  $('weights-file').addEventListener('change', (e) => {
    const f = (e.target as HTMLInputElement).files?.[0];
    if (f) void loadWeightsFile(f);
  });
  $('weights-url-load').addEventListener('click', loadWeightsUrl);
  $('weights-retry').addEventListener('click', () => {
    setRadio('wsrc', 'hf');
    showWeightSources();
    void loadHF();
  });
  $('weights-url').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') loadWeightsUrl();
  });
  const card = $('w-h').closest('section')!;
  card.addEventListener('dragover', (e) => {
    e.preventDefault();
    card.classList.add('dragging');
  });
  card.addEventListener('dragleave', () => card.classList.remove('dragging'));
  card.addEventListener('drop', (e) => {
    e.preventDefault();
    card.classList.remove('dragging');
    const f = e.dataTransfer?.files?.[0];
    if (f) void loadWeightsFile(f);
  });
  for (const r of document.querySelectorAll<HTMLInputElement>('input[name="preset"]')) {
    r.addEventListener('change', () => {
      renderWeightSummary();
      recompute();
    });
  }
  $('eps').addEventListener('input', () => {
    const msg = $('eps-msg');
    if (epsValue() === null) {
      setMsg(msg, 'ε must be a finite number ≥ 0, e.g. 1e-5.', 'error');
      $('eps').setAttribute('aria-invalid', 'true');
      return;
    }
    $('eps').removeAttribute('aria-invalid');
    setMsg(msg, '');
    recompute();
  });
}

/* ------------------------------------------------------------------ activations */

function actError(text: string): void {
  setMsg($('act-msg'), text, 'error');
}

function setActivations(a: Activations): void {
  setMsg($('act-msg'), '');
  state.act = a;
  $('large-card').hidden = true;
  const rows = rowsOf(a);
  const exRow = $('ex-row') as HTMLInputElement;
  exRow.max = String(rows - 1);
  if (Number(exRow.value) > rows - 1) exRow.value = '0';
  recompute();
}

function generate(): void {
  const B = Math.floor(Number(($('gen-b') as HTMLInputElement).value));
  const T = Math.floor(Number(($('gen-t') as HTMLInputElement).value));
  const seed = Math.floor(Number(($('gen-seed') as HTMLInputElement).value)) || 0;
  if (!(B >= 1 && T >= 1 && B * T <= 8192)) {
    actError(`B and T must be whole numbers ≥ 1 with B·T ≤ 8,192 (got B = ${B}, T = ${T}).`);
    return;
  }
  const d = state.weights?.d ?? D_GPT2;
  setActivations({
    data: gpt2LikeActivations(B, T, d, seed),
    shape: [B, T, d],
    label: `generated GPT-2-like sample (seed ${seed})`,
  });
}

function usePasted(): void {
  const text = ($('paste') as HTMLTextAreaElement).value;
  if (!text.trim()) {
    actError('Paste some numbers first: one row per line, or JSON nested arrays.');
    return;
  }
  try {
    const t = text.trimStart();
    const res =
      t.startsWith('[') || t.startsWith('{')
        ? parseActivationsJson(text, 'pasted JSON')
        : parseActivationsText(text, 'pasted text');
    setActivations({ data: res.data, shape: res.shape, label: 'pasted numbers' });
  } catch (e) {
    actError(errText(e));
  }
}

async function useNpy(file: File): Promise<void> {
  if (file.size > MAX_FILE_BYTES) {
    actError(`${file.name} is ${fmtBytes(file.size)}; the limit is 1 GB. Split it into smaller files.`);
    return;
  }
  if (file.size > WORKER_THRESHOLD) {
    runLarge(file);
    return;
  }
  try {
    const res = readNpy(new Uint8Array(await file.arrayBuffer()), file.name);
    const data = res.data instanceof Float32Array ? res.data : Float32Array.from(res.data as ArrayLike<number>);
    setActivations({ data, shape: [...res.shape], label: file.name });
  } catch (e) {
    actError(errText(e));
  }
}

function wireActivations(): void {
  $('gen-btn').addEventListener('click', generate);
  $('paste-btn').addEventListener('click', usePasted);
  $('npy-file').addEventListener('change', (e) => {
    const input = e.target as HTMLInputElement;
    const f = input.files?.[0];
    if (f) void useNpy(f).finally(() => (input.value = ''));
  });
}

/* ------------------------------------------------------------------ compute + render */

const heatmap = new Heatmap(
  $('heatmap') as HTMLCanvasElement,
  $('heat-legend') as HTMLCanvasElement,
  { min: $('legend-min'), mid: $('legend-mid'), max: $('legend-max') },
  $('heat-readout'),
  fmt,
);

function clearOutput(reason: string): void {
  state.out = null;
  $('out-summary').textContent = reason;
  heatmap.clear();
  ($('dl-npy') as HTMLButtonElement).disabled = true;
  ($('dl-json') as HTMLButtonElement).disabled = true;
  $('stats-table').querySelector('tbody')!.replaceChildren();
  $('stages').replaceChildren();
  $('ex-stats').replaceChildren();
  $('ref-result').textContent = '—';
  $('scalar-result').textContent = '';
  $('expected-result').textContent = '';
}

function recompute(): void {
  const { rt, weights: w, act: a } = state;
  renderFacts();
  if (!rt || !w || !a) return;
  const d = a.shape[a.shape.length - 1]!;
  $('act-summary').textContent =
    `${a.label}: shape ${fmtShape(a.shape)} (${fmtInt(rowsOf(a))} ${rowsOf(a) === 1 ? 'row' : 'rows'} of d = ${d})`;
  if (d !== w.d || a.data.length % d !== 0) {
    const msg =
      `Shape mismatch: the activations ${fmtShape(a.shape)} have d = ${d} in the last axis, ` +
      `but the weights have d = ${w.d}. The last axis must equal d.`;
    actError(msg);
    clearOutput(msg);
    return;
  }
  if (epsValue() === null) return;
  let out: Float32Array;
  try {
    out = rt.layerNorm(a.data, d, layerOptions());
  } catch (e) {
    clearOutput(`LayerNorm failed: ${errText(e)}`);
    return;
  }
  state.out = out;
  const rows = rowsOf(a);
  $('out-summary').textContent =
    `Output ${fmtShape(a.shape)}: ${fmtInt(out.length)} values` +
    (rows > MAX_HEATMAP_ROWS ? ` — heatmap shows ${MAX_HEATMAP_ROWS} evenly spaced rows of ${fmtInt(rows)}` : '');
  ($('dl-npy') as HTMLButtonElement).disabled = false;
  ($('dl-json') as HTMLButtonElement).disabled = out.length > 8_000_000;
  renderHeatmap(out, a.data, rows, d);
  renderStatsTable(rows, d);
  renderExplainer();
  renderReference();
  renderScalar();
  renderExpected();
  scheduleTiming();
}

function renderHeatmap(out: Float32Array, x: Float32Array, rows: number, d: number): void {
  const n = Math.min(rows, MAX_HEATMAP_ROWS);
  const labels = Array.from({ length: n }, (_, i) => Math.floor((i * rows) / n));
  let values = out;
  let inputs = x;
  if (n < rows) {
    values = new Float32Array(n * d);
    inputs = new Float32Array(n * d);
    labels.forEach((r, i) => {
      values.set(out.subarray(r * d, r * d + d), i * d);
      inputs.set(x.subarray(r * d, r * d + d), i * d);
    });
  }
  heatmap.set({ values, inputs, rows: n, d, rowLabels: labels, describeRow });
}

function renderStatsTable(rows: number, d: number): void {
  const s = state.rt!.layerNormStats(state.act!.data, d, { eps: epsValue() ?? 1e-5 });
  const body = $('stats-table').querySelector('tbody')!;
  const frag = document.createDocumentFragment();
  const n = Math.min(rows, MAX_TABLE_ROWS);
  for (let r = 0; r < n; r++) {
    const tr = el('tr');
    const th = el('th', describeRow(r));
    th.scope = 'row';
    tr.append(
      th,
      el('td', fmtNum(s.mean[r]!, 7)),
      el('td', fmtNum(s.variance[r]!, 7)),
      el('td', fmtNum(s.rstd[r]!, 7)),
    );
    frag.append(tr);
  }
  body.replaceChildren(frag);
  $('stats-note').textContent =
    rows > n
      ? `Showing the first ${n} of ${fmtInt(rows)} rows.`
      : 'Computed by the module in float64, as its kernel works (not rounded to float32).';
}

/* ------------------------------------------------------------------ explainer */

const STAGES = [
  { key: 'input', title: 'x', sub: 'input' },
  { key: 'centered', title: 'x − μ', sub: 'centred' },
  { key: 'normalized', title: 'x̂ = (x − μ)/√(σ² + ε)', sub: 'normalized' },
  { key: 'scaled', title: 'γ ⊙ x̂', sub: 'scaled by the gain' },
  { key: 'output', title: '+ β  →  y', sub: 'output' },
] as const;

function renderEquation(): void {
  const bias = !biasFree();
  const tex =
    String.raw`y_i = \gamma_i\,\frac{x_i - \mu}{\sqrt{\sigma^2 + \varepsilon}}` +
    (bias ? String.raw` + \beta_i` : '') +
    String.raw`,\qquad \mu = \frac{1}{d}\sum_{j=1}^{d} x_j,\qquad \sigma^2 = \frac{1}{d}\sum_{j=1}^{d} (x_j - \mu)^2`;
  katex.render(tex, $('equation'), { throwOnError: false, displayMode: true });
  $('equation').setAttribute(
    'aria-label',
    bias
      ? 'y sub i equals gamma sub i times x sub i minus mu, over the square root of sigma squared plus epsilon, plus beta sub i'
      : 'y sub i equals gamma sub i times x sub i minus mu, over the square root of sigma squared plus epsilon',
  );
}

function renderFacts(): void {
  renderEquation();
  const facts = $('facts');
  facts.replaceChildren();
  const w = state.weights;
  const a = state.act;
  const add = (k: string, v: string, id?: string) => {
    const dd = el('dd', v);
    if (id) dd.id = id;
    facts.append(el('dt', k), dd);
  };
  if (!w) {
    add('Parameters', 'load weights to count them');
    return;
  }
  const d = w.d;
  const hasBeta = !biasFree();
  if (a) {
    add('Input shape', fmtShape(a.shape));
    add(
      'Output shape',
      `${fmtShape(a.shape)} (same; each row of d = ${a.shape[a.shape.length - 1]} normalized on its own)`,
    );
  }
  add('Per token', `[${d}] → [${d}]`);
  add(
    'Parameters',
    hasBeta ? `γ ${fmtInt(d)} + β ${fmtInt(d)} = ${fmtInt(2 * d)}` : `γ ${fmtInt(d)} = ${fmtInt(d)} (no β)`,
    'param-count',
  );
  add('ε', String(epsValue() ?? '—'));
}

function explainerRow(): number {
  const a = state.act!;
  const rows = rowsOf(a);
  const r = Math.floor(Number(($('ex-row') as HTMLInputElement).value));
  return Number.isFinite(r) ? Math.max(0, Math.min(rows - 1, r)) : 0;
}

function renderExplainer(): void {
  const { rt, act: a, weights: w } = state;
  if (!rt || !a || !w || !state.out) return;
  const d = w.d;
  const row = explainerRow();
  const st = rt.layerNormStages(a.data, d, row, layerOptions());
  const stats = $('ex-stats');
  stats.replaceChildren();
  const dl = el('dl', undefined, 'facts inline');
  const add = (k: string, v: string, id: string) => {
    const dd = el('dd', v);
    dd.id = id;
    dl.append(el('dt', k), dd);
  };
  add('token', describeRow(row), 'ex-token');
  add('μ', fmtNum(st.mean, 7), 'ex-mean');
  add('σ²', fmtNum(st.variance, 7), 'ex-var');
  add('1/√(σ²+ε)', fmtNum(st.rstd, 7), 'ex-rstd');
  stats.append(dl);
  renderInsight(st.centered, st.rstd, d);

  const windowMode = radioValue('exview') === 'window';
  $('ex-window-ctl').hidden = !windowMode;
  $('ex-zoom-ctl').hidden = windowMode;
  let from: number;
  let to: number;
  if (windowMode) {
    const startInput = $('ex-start') as HTMLInputElement;
    startInput.max = String(d - 8);
    from = Math.max(0, Math.min(d - 8, Math.floor(Number(startInput.value)) || 0));
    to = Math.min(d - 1, from + 7);
  } else {
    from = Math.max(0, Math.min(d - 1, state.zoom.from));
    to = Math.max(from, Math.min(d - 1, state.zoom.to));
    ($('ex-zoom-from') as HTMLInputElement).value = String(from);
    ($('ex-zoom-to') as HTMLInputElement).value = String(to);
  }
  const container = $('stages');
  container.replaceChildren();
  container.classList.toggle('all', !windowMode);
  const bias = !biasFree();
  for (const s of STAGES) {
    const fig = el('figure', undefined, 'stage');
    const title = s.key === 'output' && !bias ? 'y = γ ⊙ x̂' : s.title;
    const cap = el('figcaption');
    cap.append(
      el('strong', title),
      document.createTextNode(` ${s.key === 'output' && !bias ? 'output (no bias)' : s.sub}`),
    );
    const canvas = el('canvas');
    canvas.setAttribute('role', 'img');
    const vals = st[s.key].subarray(from, to + 1);
    canvas.setAttribute('aria-label', `${title}, features ${from} to ${to}`);
    fig.append(cap, canvas);
    container.append(fig);
    drawBars(canvas, vals, {
      offset: from,
      showValues: windowMode,
      fmt: (v) => fmtNum(v, 4),
      height: windowMode ? 120 : 100,
    });
    if (!windowMode) {
      attachDragZoom(
        canvas,
        () => ({ from, to }),
        (a2, b2) => {
          state.zoom = { from: a2, to: b2 };
          renderExplainer();
        },
      );
    }
  }
  if (windowMode) {
    const table = el('table', undefined, 'stage-table');
    table.append(el('caption', `Row ${row}, features ${from}–${to}: every stage as the module computed it`));
    const thead = el('thead');
    const hr = el('tr');
    hr.append(el('th', 'stage'));
    for (let j = from; j <= to; j++) {
      const th = el('th', String(j));
      th.scope = 'col';
      hr.append(th);
    }
    thead.append(hr);
    const tbody = el('tbody');
    const rowsDef: [string, Float32Array][] = [
      ['x', st.input],
      ['x − μ', st.centered],
      ['x̂', st.normalized],
      ['γ', w.gamma],
      ['γ ⊙ x̂', st.scaled],
      ...(bias && w.beta ? ([['β', w.beta]] as [string, Float32Array][]) : []),
      ['y', st.output],
    ];
    for (const [name, arr] of rowsDef) {
      const tr = el('tr');
      const th = el('th', name);
      th.scope = 'row';
      tr.append(th);
      for (let j = from; j <= to; j++) tr.append(el('td', fmtNum(arr[j]!, 5)));
      tbody.append(tr);
    }
    table.append(thead, tbody);
    const wrap = el('div', undefined, 'table-wrap');
    wrap.append(table);
    container.append(wrap);
  }
}

/** One sentence about what dominates this token's variance (shares of Σ(x − μ)², from the module's stage). */
function renderInsight(centered: Float32Array, rstd: number, d: number): void {
  let total = 0;
  let jMax = 0;
  for (let j = 0; j < d; j++) {
    const c2 = centered[j]! * centered[j]!;
    total += c2;
    if (c2 > centered[jMax]! * centered[jMax]!) jMax = j;
  }
  const node = $('ex-insight');
  if (!(total > 0)) {
    node.textContent = 'Every feature of this token equals the mean, so x − μ is all zeros and the output is just β.';
    return;
  }
  const share = (centered[jMax]! ** 2 / total) * 100;
  if (share >= 25) {
    const others: number[] = [];
    for (let j = 0; j < d; j++) if (j !== jMax) others.push(Math.abs(centered[j]! * rstd));
    node.textContent =
      `Feature ${jMax} sits ${fmtNum(centered[jMax]!, 4)} from the mean and alone makes up ${share.toFixed(1)}% of σ². ` +
      `x̂ always has variance 1 in total, so that one massive activation takes ${share.toFixed(0)}% of it and a typical ` +
      `(median) feature is left with |x̂| ≈ ${fmtNum(median(others), 2)}.`;
  } else {
    node.textContent =
      `No single feature dominates this token: the largest share of σ² is ${share.toFixed(1)}% (feature ${jMax}), ` +
      'so x̂ spreads evenly around 0 with unit variance.';
  }
}

function wireExplainer(): void {
  for (const id of ['ex-row', 'ex-start']) $(id).addEventListener('input', renderExplainer);
  for (const r of document.querySelectorAll<HTMLInputElement>('input[name="exview"]'))
    r.addEventListener('change', renderExplainer);
  const setZoom = () => {
    const d = state.weights?.d ?? D_GPT2;
    const f = Math.floor(Number(($('ex-zoom-from') as HTMLInputElement).value));
    const t = Math.floor(Number(($('ex-zoom-to') as HTMLInputElement).value));
    if (Number.isFinite(f) && Number.isFinite(t) && f >= 0 && t < d && t > f) {
      state.zoom = { from: f, to: t };
      renderExplainer();
    }
  };
  $('ex-zoom-from').addEventListener('change', setZoom);
  $('ex-zoom-to').addEventListener('change', setZoom);
  $('ex-zoom-reset').addEventListener('click', () => {
    state.zoom = { from: 0, to: (state.weights?.d ?? D_GPT2) - 1 };
    renderExplainer();
  });
  let t: ReturnType<typeof setTimeout> | undefined;
  window.addEventListener('resize', () => {
    clearTimeout(t);
    t = setTimeout(() => {
      renderExplainer();
      renderReference();
    }, 150);
  });
}

/* ------------------------------------------------------------------ correctness */

function locate(i: number, d: number): string {
  return `${describeRow(Math.floor(i / d))}, feature ${i % d}`;
}

function renderReference(): void {
  const { act: a, weights: w, out } = state;
  if (!a || !w || !out) return;
  const opts = layerOptions();
  const ref = layerNormReference(a.data, w.d, opts);
  const rep = compareOutputs(out, ref, w.d, opts.beta);
  const hist = ulpHistogram(out, ref, w.d, opts.beta);
  const p = $('ref-result');
  p.replaceChildren();
  const ok = rep.maxScaledUlp <= 4 && rep.nonFiniteMismatches === 0;
  p.append(el('strong', ok ? '✓ Agrees' : '✗ Larger error than expected', ok ? 'pass' : 'fail'));
  p.append(
    document.createTextNode(
      ` — max abs error ${fmtNum(rep.maxAbs, 3)}, max ${fmtNum(rep.maxScaledUlp, 3)} sULP over ${fmtInt(rep.compared)} values` +
        (rep.worstIndex >= 0 ? `; largest error at ${locate(rep.worstIndex, w.d)}` : '') +
        `; ${fmtInt(out.length - rep.differingBits)} values bit-identical to the reference.`,
    ),
  );
  if (rep.nonFiniteMismatches) p.append(document.createTextNode(` ${rep.nonFiniteMismatches} non-finite mismatches.`));
  p.dataset.maxAbs = String(rep.maxAbs);
  drawHistogram($('ulp-hist') as HTMLCanvasElement, hist, ULP_BIN_LABELS, 'error in float32 spacing units (sULP)');
  $('ulp-hist').setAttribute(
    'aria-label',
    'Histogram of sULP errors: ' + ULP_BIN_LABELS.map((l, i) => `${l}: ${hist[i]}`).join(', '),
  );
}

function renderScalar(): void {
  const { act: a, weights: w, out, rtScalar } = state;
  const p = $('scalar-result');
  if (!a || !w || !out || !rtScalar) return;
  const y = rtScalar.layerNorm(a.data, w.d, layerOptions());
  const { count, first } = countBitDifferences(out, y);
  p.replaceChildren();
  if (state.rt!.backend === 'scalar') {
    p.append(document.createTextNode('This engine already runs the scalar build; nothing else to compare. '));
  }
  p.append(
    el(
      'strong',
      count === 0 ? '✓ Bit-identical' : `≠ ${fmtInt(count)} of ${fmtInt(out.length)} elements differ`,
      count === 0 ? 'pass' : 'fail',
    ),
  );
  p.append(
    document.createTextNode(
      count === 0
        ? ` — ${rtScalar.kernel} and ${state.rt!.kernel} produce the same bits for all ${fmtInt(out.length)} values.`
        : ` — first at ${locate(first, w.d)}: ${fmt(out[first]!)} vs ${fmt(y[first]!)}.`,
    ),
  );
}

async function compareScalar(): Promise<void> {
  const btn = $('scalar-btn') as HTMLButtonElement;
  btn.disabled = true;
  try {
    state.rtScalar ??= await init({ backend: 'scalar' });
    renderScalar();
  } catch (e) {
    $('scalar-result').textContent = `Could not load the scalar build: ${errText(e)}`;
  } finally {
    btn.disabled = false;
  }
}

function renderExpected(): void {
  const p = $('expected-result');
  const exp = state.expected;
  const { out, act: a, weights: w } = state;
  if (!exp || !out || !a || !w) return;
  const tol = parseFinite(($('tol') as HTMLInputElement).value);
  p.replaceChildren();
  if (tol === null || tol < 0) {
    p.append(el('strong', 'Tolerance must be a number ≥ 0.', 'fail'));
    return;
  }
  if (exp.data.length !== out.length) {
    p.append(
      el(
        'strong',
        `Shape mismatch: ${exp.name} is ${fmtShape(exp.shape)}, the output is ${fmtShape(a.shape)}.`,
        'fail',
      ),
    );
    return;
  }
  const rep = compareToExpected(out, exp.data, tol);
  const i = rep.worstIndex;
  p.append(el('strong', rep.pass ? 'PASS' : 'FAIL', rep.pass ? 'pass' : 'fail'));
  p.append(
    document.createTextNode(
      rep.pass
        ? ` — all ${fmtInt(out.length)} values within ${fmtNum(tol, 3)} of ${exp.name}; max abs error ${fmtNum(rep.maxAbs, 3)}` +
            ` at ${locate(i, w.d)}.`
        : ` — ${fmtInt(rep.mismatches)} of ${fmtInt(out.length)} values differ by more than ${fmtNum(tol, 3)}. ` +
            `Worst: ${locate(i, w.d)}: got ${fmt(out[i]!)}, expected ${fmt(exp.data[i]!)} (|diff| ${fmtNum(rep.maxAbs, 3)}).`,
    ),
  );
}

async function loadExpected(file: File): Promise<void> {
  const p = $('expected-result');
  if (file.size > MAX_FILE_BYTES) {
    p.textContent = `${file.name} is ${fmtBytes(file.size)}; the limit is 1 GB.`;
    return;
  }
  try {
    const res = readNpy(new Uint8Array(await file.arrayBuffer()), file.name);
    const data = res.data instanceof Float32Array ? res.data : Float32Array.from(res.data as ArrayLike<number>);
    state.expected = { data, shape: [...res.shape], name: file.name };
    renderExpected();
  } catch (e) {
    p.textContent = `Could not read ${file.name}: ${errText(e)}`;
  }
}

function wireChecks(): void {
  $('scalar-btn').addEventListener('click', () => void compareScalar());
  $('expected-file').addEventListener('change', (e) => {
    const f = (e.target as HTMLInputElement).files?.[0];
    if (f) void loadExpected(f);
  });
  $('tol').addEventListener('input', renderExpected);
}

/* ------------------------------------------------------------------ speed */

let timingTimer: ReturnType<typeof setTimeout> | undefined;

function scheduleTiming(): void {
  clearTimeout(timingTimer);
  timingTimer = setTimeout(measureCurrent, 200);
}

/** Median time of one call, measured over batches long enough for the timer's resolution. */
function timeCall(fn: () => void, budgetMs = 120): number {
  fn();
  let reps = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) fn();
    const dt = performance.now() - t0;
    if (dt >= 4 || reps >= 1 << 16) break;
    reps *= 4;
  }
  const samples: number[] = [];
  const start = performance.now();
  while (samples.length < 3 || (samples.length < 15 && performance.now() - start < budgetMs)) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) fn();
    samples.push((performance.now() - t0) / reps);
  }
  return median(samples);
}

function renderSpeedFacts(extra: [string, string][] = []): void {
  const facts = $('speed-facts');
  facts.replaceChildren();
  const rt = state.rt;
  const rows: [string, string][] = [['Backend', rt ? rt.backend : '—'], ['Kernel', rt ? rt.kernel : '—'], ...extra];
  for (const [k, v] of rows) facts.append(el('dt', k), el('dd', v));
}

function measureCurrent(): void {
  const { rt, act: a, weights: w, out } = state;
  if (!rt || !a || !w || !out) return renderSpeedFacts();
  if (a.data.length > 4_000_000) return renderSpeedFacts([['Time per call', 'skipped for inputs this large']]);
  const layer = rt.createLayerNorm(w.d, layerOptions());
  const y = new Float32Array(a.data.length);
  try {
    const ms = timeCall(() => layer.forward(a.data, y));
    const bytes = a.data.length * 4 * 2;
    renderSpeedFacts([
      ['Input', fmtShape(a.shape)],
      ['Time per call', fmtTime(ms)],
      ['Throughput', `${(bytes / (ms * 1e6)).toFixed(2)} GB/s (reads x, writes y: ${fmtBytes(bytes)})`],
    ]);
  } finally {
    layer.dispose();
  }
}

async function benchmark(): Promise<void> {
  const { rt } = state;
  if (!rt) return;
  const btn = $('bench-btn') as HTMLButtonElement;
  const res = $('bench-result');
  btn.disabled = true;
  res.textContent = 'Running…';
  await yieldToBrowser();
  try {
    const d = D_GPT2;
    const w = state.weights?.d === d ? state.weights : null;
    const syn = syntheticWeights(d, 1);
    const gamma = w?.gamma ?? syn.gamma;
    const beta = biasFree() ? null : w ? w.beta : syn.beta;
    const eps = epsValue() ?? 1e-5;
    const x = gpt2LikeActivations(1, 1024, d, 42);
    const y = new Float32Array(x.length);
    const layer = rt.createLayerNorm(d, { gamma, beta, eps });
    const runs = 9;
    const tw: number[] = [];
    const tj: number[] = [];
    try {
      layer.forward(x, y);
      layerNormJS(x, d, gamma, beta, eps, y);
      for (let i = 0; i < runs; i++) {
        let t0 = performance.now();
        layer.forward(x, y);
        tw.push(performance.now() - t0);
        t0 = performance.now();
        layerNormJS(x, d, gamma, beta, eps, y);
        tj.push(performance.now() - t0);
        res.textContent = `Running… ${i + 1}/${runs}`;
        await yieldToBrowser();
      }
    } finally {
      layer.dispose();
    }
    const mw = median(tw);
    const mj = median(tj);
    const gb = (n: number) => ((x.length * 8) / (n * 1e6)).toFixed(2);
    res.replaceChildren();
    res.append(
      el(
        'strong',
        mj >= mw
          ? `${(mj / mw).toFixed(1)}× faster than plain JavaScript`
          : `${(mw / mj).toFixed(1)}× slower than plain JavaScript`,
      ),
      document.createTextNode(
        ` — [1, 1024, 768], median of ${runs} runs: wasm ${fmtTime(mw)} (${gb(mw)} GB/s), ` +
          `plain JS ${fmtTime(mj)} (${gb(mj)} GB/s).`,
      ),
    );
    res.dataset.ratio = String(mj / mw);
  } catch (e) {
    res.textContent = `Benchmark failed: ${errText(e)}`;
  } finally {
    btn.disabled = false;
  }
}

/* ------------------------------------------------------------------ downloads */

function wireDownloads(): void {
  $('dl-npy').addEventListener('click', () => {
    if (!state.out || !state.act) return;
    download(writeNpy(state.out, state.act.shape) as BlobPart, 'layernorm-output.npy', 'application/octet-stream');
  });
  $('dl-json').addEventListener('click', () => {
    if (!state.out || !state.act) return;
    download(toNestedJson(state.out, state.act.shape), 'layernorm-output.json', 'application/json');
  });
}

function toNestedJson(data: Float32Array, shape: number[]): string {
  const parts: string[] = [];
  let i = 0;
  const walk = (axis: number) => {
    const n = shape[axis]!;
    parts.push('[');
    for (let k = 0; k < n; k++) {
      if (k) parts.push(',');
      if (axis === shape.length - 1) {
        const v = data[i++]!;
        parts.push(Number.isFinite(v) ? String(v) : 'null');
      } else walk(axis + 1);
    }
    parts.push(']');
  };
  walk(0);
  return parts.join('');
}

/* ------------------------------------------------------------------ large inputs */

let worker: Worker | null = null;
let largeBlob: { blob: Blob; name: string } | null = null;

function stopWorker(): void {
  worker?.terminate();
  worker = null;
}

function runLarge(file: File): void {
  const w = state.weights;
  if (!w) {
    actError('Load weights first.');
    return;
  }
  stopWorker();
  largeBlob = null;
  const card = $('large-card');
  card.hidden = false;
  const progress = $('large-progress') as HTMLProgressElement;
  const label = $('large-progress-label');
  const summary = $('large-summary');
  const cancel = $('large-cancel') as HTMLButtonElement;
  const dl = $('large-download') as HTMLButtonElement;
  $('large-name').textContent = `${file.name} — ${fmtBytes(file.size)}`;
  progress.value = 0;
  progress.removeAttribute('data-done');
  label.textContent = 'Starting…';
  summary.textContent = '';
  dl.hidden = true;
  cancel.disabled = false;
  setMsg($('act-msg'), '');
  worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'layernorm-large' });
  const opts = layerOptions();
  const req: WorkerRequest = { type: 'run', file, d: w.d, gamma: opts.gamma, beta: opts.beta, eps: opts.eps };
  worker.onmessage = (e: MessageEvent<WorkerMessage>) => {
    const m = e.data;
    if (m.type === 'start') {
      label.textContent = `0 of ${fmtInt(m.rows)} rows`;
      summary.textContent = `Shape ${fmtShape(m.shape)} on the ${m.backend} build (${m.kernel}).`;
    } else if (m.type === 'progress') {
      progress.value = m.done / m.total;
      label.textContent = `${Math.round((100 * m.done) / m.total)}% — ${fmtInt(m.done)} of ${fmtInt(m.total)} rows`;
    } else if (m.type === 'done') {
      stopWorker();
      cancel.disabled = true;
      progress.value = 1;
      progress.dataset.done = 'true';
      label.textContent = `Done — ${fmtInt(m.rows)} rows`;
      summary.textContent =
        `Normalized ${fmtShape(m.shape)} (${fmtBytes(m.bytesIn)}) in ${fmtTime(m.ms)} ` +
        `(${fmtTime(m.kernelMs)} in the kernel). Output range [${fmt(m.min)}, ${fmt(m.max)}], mean |y| ${fmtNum(m.meanAbs, 4)}` +
        (m.nonFinite ? `, ${fmtInt(m.nonFinite)} non-finite values` : '') +
        `. The sections below use ${fmtInt(m.sampleRows.length)} evenly spaced rows of it.`;
      largeBlob = { blob: m.blob, name: file.name.replace(/\.npy$/i, '') + '-layernorm.npy' };
      dl.hidden = false;
      // Hand the sampled rows to the rest of the page.
      state.act = {
        data: m.sampleIn,
        shape: [m.sampleRows.length, m.d],
        label: `sample of ${fmtInt(m.sampleRows.length)} rows from ${file.name}`,
      };
      ($('ex-row') as HTMLInputElement).value = '0';
      recompute();
      card.hidden = false;
    } else if (m.type === 'error') {
      stopWorker();
      cancel.disabled = true;
      label.textContent = 'Failed';
      summary.textContent = m.message;
      actError(m.message);
    }
  };
  worker.onerror = (e) => {
    e.preventDefault();
    stopWorker();
    label.textContent = 'Failed';
    summary.textContent = `The worker stopped: ${e.message}`;
  };
  worker.postMessage(req);
}

function wireLarge(): void {
  $('large-cancel').addEventListener('click', () => {
    stopWorker();
    ($('large-cancel') as HTMLButtonElement).disabled = true;
    $('large-progress-label').textContent = 'Cancelled';
    $('large-summary').textContent = 'Cancelled; nothing was kept.';
  });
  $('large-download').addEventListener('click', () => {
    if (largeBlob) download(largeBlob.blob, largeBlob.name, 'application/octet-stream');
  });
}

/* ------------------------------------------------------------------ start */

async function main(): Promise<void> {
  wireWeights();
  wireActivations();
  wireExplainer();
  wireChecks();
  wireDownloads();
  wireLarge();
  $('bench-btn').addEventListener('click', () => void benchmark());
  renderFacts();
  renderSpeedFacts();
  await startRuntime();
  generate();
  await loadHF();
  void compareScalar();
}

void main();
