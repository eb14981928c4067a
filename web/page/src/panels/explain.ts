/**
 * The explainer card: one token through every stage of the norm in use (LayerNorm, or RMSNorm for
 * an RMSNorm checkpoint), on a shared scale; γ and β with callouts; where ln_f sits in GPT-2; how
 * the bias-free variant and RMSNorm differ. It is also what `?embed=explain` shows on its own.
 * One file because each part (equation, stage charts and table, insights) redraws from the same
 * panel state; the drawing itself is in ui/.
 */
import type { StagesResult, Variant } from '../engine/protocol';
import { permalink } from '../permalink';
import { effectiveVariant, isCurrent, type PageState, type PageStore } from '../state';
import { COLORS, FeatureChart, StageChart, type Callout } from '../ui/charts';
import { $, copyText, el, markInvalid, radioValue, setMsg, setRadio, syncValue } from '../ui/dom';
import { fmtEps, fmtInt, fmtNum, fmtShape, parseWhole } from '../ui/format';
import { describeRow, showToken } from '../ui/rows';

const WINDOW = 8;
const STAGES = [
  { key: 'input', title: 'x', sub: 'input' },
  { key: 'centered', title: 'x − μ', sub: 'centred' },
  { key: 'normalized', title: 'x̂ = (x − μ)/√(σ² + ε)', sub: 'normalized: mean 0, variance 1' },
  { key: 'scaled', title: 'γ ⊙ x̂', sub: 'scaled by the gain' },
  { key: 'output', title: '+ β  →  y', sub: 'output' },
] as const;

type StageKey = (typeof STAGES)[number]['key'];

/** RMSNorm's stages: no centring, and γ ⊙ x̂ is already the output (x − μ and + β are not shown). */
const RMS_STAGES: Partial<Record<StageKey, { title: string; sub: string }>> = {
  input: { title: 'x', sub: 'input' },
  normalized: { title: 'x̂ = x · rstd', sub: 'normalized: mean square 1' },
  output: { title: 'y = γ ⊙ x̂', sub: 'output (no centring, no bias)' },
};

/** A stage's values for this row, or null when the norm in use has no such stage. */
function stageValues(st: StagesResult, key: StageKey): Float32Array | null {
  if (st.norm === 'layernorm') return st[key];
  return key === 'centered' || key === 'scaled' ? null : st[key];
}

const NORM_NAMES: Record<Variant, string> = {
  layernorm: 'LayerNorm (γ and β)',
  biasfree: 'bias-free LayerNorm (γ only)',
  rmsnorm: 'RMSNorm (γ only, no centring)',
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The features the stage charts show. */
function shownRange(s: Readonly<PageState>, d: number): { from: number; to: number } {
  if (s.view === 'window') {
    const from = Math.max(0, Math.min(d - WINDOW, s.windowStart));
    return { from, to: Math.min(d - 1, from + WINDOW - 1) };
  }
  if (!s.zoom) return { from: 0, to: d - 1 };
  const from = Math.max(0, Math.min(d - 1, s.zoom.from));
  return { from, to: Math.max(from, Math.min(d - 1, s.zoom.to)) };
}

export function mountExplain(store: PageStore, root: HTMLElement): void {
  const rowInput = $<HTMLInputElement>('ex-row');
  const startInput = $<HTMLInputElement>('ex-start');
  const zoomFrom = $<HTMLInputElement>('ex-zoom-from');
  const zoomTo = $<HTMLInputElement>('ex-zoom-to');
  const rows = () => store.state.result?.rows ?? store.state.activations?.rows ?? 1;
  const d = () => store.state.weights?.d ?? store.state.result?.d ?? 768;

  rowInput.addEventListener('input', () => {
    const v = parseWhole(rowInput.value);
    const n = rows();
    const ok = v !== null && v >= 0 && v < n;
    markInvalid(rowInput, !ok);
    setMsg(
      $('ex-row-msg'),
      ok ? '' : `Row must be a whole number from 0 to ${fmtInt(n - 1)}; still showing row ${store.state.row}.`,
      'error',
    );
    if (ok) store.set({ row: v });
  });
  startInput.addEventListener('input', () => {
    const v = parseWhole(startInput.value);
    const max = d() - WINDOW;
    const ok = v !== null && v >= 0 && v <= max;
    markInvalid(startInput, !ok);
    setMsg($('ex-start-msg'), ok ? '' : `The first feature must be a whole number from 0 to ${max}.`, 'error');
    if (ok) store.set({ windowStart: v });
  });
  const setZoom = () => {
    const f = parseWhole(zoomFrom.value);
    const t = parseWhole(zoomTo.value);
    const ok = f !== null && t !== null && f >= 0 && t <= d() - 1 && t - f >= 3;
    markInvalid(zoomFrom, !ok);
    markInvalid(zoomTo, !ok);
    setMsg($('ex-start-msg'), ok ? '' : `Zoom needs 0 ≤ from, from + 3 ≤ to ≤ ${d() - 1}.`, 'error');
    if (ok) store.set({ zoom: { from: f, to: t } });
  };
  zoomFrom.addEventListener('change', setZoom);
  zoomTo.addEventListener('change', setZoom);
  $('ex-zoom-reset').addEventListener('click', () => store.set({ zoom: null }));
  for (const r of root.querySelectorAll<HTMLInputElement>('input[name="exview"]')) {
    r.addEventListener('change', () => r.checked && store.set({ view: r.value === 'all' ? 'all' : 'window' }));
  }
  for (const r of root.querySelectorAll<HTMLInputElement>('input[name="exscale"]')) {
    r.addEventListener('change', () => r.checked && store.set({ scale: r.value as PageState['scale'] }));
  }

  // ---- share
  const embedBox = $('embed-box');
  const shareNote = (s: Readonly<PageState>) => {
    const notes: string[] = [];
    if (s.weightsSource.kind === 'file')
      notes.push('the weights come from a file on this computer, so the link loads GPT-2 from Hugging Face instead');
    if (s.activations && s.activations.origin !== 'generated') {
      notes.push(
        `your ${s.activations.origin === 'pasted' ? 'pasted numbers stay' : 'file stays'} on this computer: the link recreates the generated sample (B = ${s.gen.B}, T = ${s.gen.T}, seed ${s.gen.seed})`,
      );
    }
    return notes.length ? ` Note: ${notes.join('; ')}.` : '';
  };
  $('copy-link').addEventListener('click', async () => {
    const url = permalink(store.state, { embed: false });
    const ok = await copyText(url);
    embedBox.hidden = ok;
    if (!ok) $<HTMLTextAreaElement>('embed-code').value = url;
    setMsg($('share-msg'), (ok ? 'Link copied.' : 'Copy the link above.') + shareNote(store.state));
    if (ok) {
      embedBox.hidden = false;
      $<HTMLTextAreaElement>('embed-code').value = url;
    }
  });
  $('copy-embed').addEventListener('click', () => {
    const open = embedBox.hidden;
    embedBox.hidden = !open;
    $('copy-embed').setAttribute('aria-expanded', String(open));
    const src = permalink(store.state, { embed: true });
    $<HTMLTextAreaElement>('embed-code').value =
      `<iframe src="${src.replace(/&/g, '&amp;')}" title="LayerNorm explainer: one token through GPT-2's ln_f" ` +
      'width="100%" height="1400" style="border:0" loading="lazy"></iframe>';
    setMsg(
      $('share-msg'),
      'The embedded page sends its height to the article (see the README to resize the frame).' +
        shareNote(store.state),
    );
  });
  $<HTMLAnchorElement>('open-full').addEventListener('click', (e) => {
    (e.currentTarget as HTMLAnchorElement).href = permalink(store.state, { embed: false });
  });

  // ---- charts
  const stagesRoot = $('stages');
  const hoverLabels: HTMLElement[] = [];
  const charts: StageChart[] = STAGES.map((st) => {
    const fig = el('figure', undefined, 'stage');
    const cap = el('figcaption');
    const title = el('strong', st.title);
    title.dataset.stage = st.key;
    const hover = el('span', '', 'hover-val');
    hoverLabels.push(hover);
    cap.append(title, el('span', st.sub, 'sub'), hover);
    const box = el('div', undefined, 'chart');
    box.setAttribute('role', 'img');
    box.dataset.stage = st.key;
    fig.append(cap, box);
    stagesRoot.append(fig);
    return new StageChart(box, {
      onZoom: (from, to) => store.state.view === 'all' && store.set({ zoom: { from, to } }),
      onHover: (j) => showHover(j),
    });
  });
  const gbChart = new FeatureChart($('gb-chart'), 190);
  const variantsChart = new FeatureChart($('variants-chart'), 190);

  function showHover(j: number | null): void {
    const st = store.state.stages;
    STAGES.forEach((s, i) => {
      const v = st && j !== null ? stageValues(st, s.key)?.[j] : undefined;
      hoverLabels[i]!.textContent = v === undefined ? '' : `feature ${j}: ${fmtNum(v, 5)}`;
    });
  }

  store.watch(['weights', 'variant', 'activations', 'eps', 'epsText', 'result'], (s) => renderFacts(s));
  store.watch(['row', 'activations', 'result'], (s) => {
    syncValue(rowInput, String(s.row));
    rowInput.max = String(rows() - 1);
    if (parseWhole(rowInput.value) === s.row) {
      markInvalid(rowInput, false);
      setMsg($('ex-row-msg'), '');
    }
    const token = s.activations?.tokens?.[s.row];
    $('ex-token-name').textContent = token !== undefined ? `“${showToken(token)}”` : '';
  });
  store.watch(['view', 'windowStart', 'zoom', 'scale', 'weights'], (s) => {
    setRadio(root, 'exview', s.view);
    setRadio(root, 'exscale', s.scale);
    $('ex-window-ctl').hidden = s.view !== 'window';
    $('ex-zoom-ctl').hidden = s.view !== 'all';
    syncValue(startInput, String(s.windowStart));
    startInput.max = String(d() - WINDOW);
    const { from, to } = shownRange(s, d());
    if (s.view === 'all') {
      syncValue(zoomFrom, String(from));
      syncValue(zoomTo, String(to));
    }
  });
  store.watch(['touch'], (s) => {
    $('ex-zoom-hint').textContent = s.touch ? 'Type a range to zoom.' : 'Or drag across a chart to zoom.';
  });
  store.watch(['stages', 'view', 'windowStart', 'zoom', 'scale', 'eps', 'variant'], (s) => renderStages(s), {
    defer: true,
  });
  store.watch(['weights'], (s) => renderWeightsChart(s), { defer: true });

  function renderFacts(s: Readonly<PageState>): void {
    const variant = effectiveVariant(s);
    const rms = variant === 'rmsnorm';
    $('eq-layernorm').hidden = variant !== 'layernorm';
    $('eq-biasfree').hidden = variant !== 'biasfree';
    $('eq-stats').hidden = rms;
    $('eq-rmsnorm').hidden = !rms;
    $('eq-rmsstats').hidden = !rms;
    $('ex-intro-ln').hidden = rms;
    $('ex-intro-rms').hidden = !rms;
    $('rms-place').hidden = !rms;
    const facts = $('facts');
    facts.replaceChildren();
    const add = (k: string, v: string, id?: string) => {
      const dd = el('dd', v);
      if (id) dd.id = id;
      facts.append(el('dt', k), dd);
    };
    const w = s.weights;
    if (!w) {
      add('Parameters', 'load weights to count them');
      return;
    }
    add('Weights', w.label);
    add('Norm', NORM_NAMES[variant], 'fact-norm');
    const a = s.activations;
    if (a) {
      add('Input shape', fmtShape(a.shape));
      add('Output shape', `${fmtShape(a.shape)} (same; each row of d = ${a.d} normalized on its own)`);
    }
    add('Per token', `[${w.d}] → [${w.d}]`);
    add(
      'Parameters',
      variant === 'layernorm'
        ? `γ ${fmtInt(w.d)} + β ${fmtInt(w.d)} = ${fmtInt(2 * w.d)}`
        : `γ ${fmtInt(w.d)} = ${fmtInt(w.d)} (no β)`,
      'param-count',
    );
    add('ε', s.eps === null ? `“${s.epsText}” is not valid` : fmtEps(s.eps), 'fact-eps');
  }

  /**
   * Each chart is drawn in a task of its own (768 bars five times over is too much for one task on a
   * slow machine); a newer drawing drops what is left of an older one.
   */
  let generation = 0;
  let queue: (() => void)[] = [];
  function later(fn: () => void): void {
    queue.push(fn);
    if (queue.length === 1) step(generation);
  }
  function step(gen: number): void {
    setTimeout(() => {
      if (gen !== generation) return;
      queue.shift()?.();
      if (queue.length) step(gen);
    }, 0);
  }

  function renderStages(s: Readonly<PageState>): void {
    generation++;
    queue = [];
    const st = s.stages;
    const statsBox = $('ex-stats');
    const tableBox = $('stage-table');
    if (!st || !s.weights) {
      statsBox.replaceChildren();
      tableBox.replaceChildren();
      $('ex-insight').textContent = '';
      return;
    }
    const stale = !isCurrent(s, st);
    root.classList.toggle('is-stale', stale);
    const staleText =
      s.eps === null
        ? `ε “${s.epsText}” is not a number ≥ 0: these stages are still for ε = ${fmtEps(st.params.eps)}.`
        : 'Updating…';
    $('ex-stale').hidden = !stale;
    $('ex-stale').textContent = stale ? staleText : '';
    const dl = el('dl', undefined, 'facts inline');
    const add = (k: string, v: string, id: string) => {
      const dd = el('dd', v);
      dd.id = id;
      dl.append(el('dt', k), dd);
    };
    add('token', describeRow(s.activations, st.row), 'ex-token');
    if (st.norm === 'layernorm') {
      add('μ', fmtNum(st.mean, 7), 'ex-mean');
      add('σ²', fmtNum(st.variance, 7), 'ex-var');
      add('1/√(σ²+ε)', fmtNum(st.rstd, 7), 'ex-rstd');
    } else {
      add('mean(x²)', fmtNum(st.meanSquare, 7), 'ex-ms');
      add('rstd = 1/√(mean(x²)+ε)', fmtNum(st.rstd, 7), 'ex-rstd');
    }
    statsBox.replaceChildren(dl);
    $('ex-insight').textContent = insight(st, s.variant === 'layernorm' && !!s.weights.beta);

    const { from, to } = shownRange(s, st.d);
    const windowMode = s.view === 'window';
    const bias = effectiveVariant(s) === 'layernorm';
    let lo = Infinity;
    let hi = -Infinity;
    for (const { key } of STAGES) {
      const v = stageValues(st, key);
      if (!v) continue;
      for (let j = from; j <= to; j++) {
        const x = v[j]!;
        if (Number.isFinite(x)) {
          if (x < lo) lo = x;
          if (x > hi) hi = x;
        }
      }
    }
    const shared: [number, number] | null =
      s.scale === 'own' || !(lo <= hi) ? null : [Math.min(0, lo), Math.max(0, hi)];
    stagesRoot.classList.toggle('all', !windowMode);
    STAGES.forEach((stage, i) => {
      const fig = stagesRoot.children[i] as HTMLElement;
      const all = stageValues(st, stage.key);
      fig.hidden = all === null;
      if (!all) return;
      const names =
        st.norm === 'rmsnorm'
          ? RMS_STAGES[stage.key]!
          : stage.key === 'output' && !bias
            ? { title: 'y = γ ⊙ x̂', sub: 'output (no bias)' }
            : stage;
      const title = names.title;
      (fig.querySelector('strong') as HTMLElement).textContent = title;
      (fig.querySelector('.sub') as HTMLElement).textContent = names.sub;
      const values = all.subarray(from, to + 1);
      const box = fig.querySelector('.chart') as HTMLElement;
      box.setAttribute('aria-label', `${title}, features ${from} to ${to}: ${describeValues(values)}`);
      // What the y axis spans (shared or this stage's own), for readers of the DOM and for tests.
      box.dataset.scale = s.scale === 'symlog' ? 'symlog' : 'linear';
      box.dataset.range = (shared ?? ownRange(values)).map((v) => fmtNum(v, 6)).join(' … ');
      const chart = charts[i]!;
      later(() =>
        chart.set({
          offset: from,
          values,
          range: shared,
          mode: s.scale === 'symlog' ? 'symlog' : 'linear',
          labels: windowMode,
          fmt: (v) => fmtNum(v, 4),
        }),
      );
    });
    tableBox.replaceChildren();
    if (windowMode) tableBox.append(stageTable(st, s, from, to, bias));
    later(() => renderVariants(s, st, from, to));
  }

  function renderVariants(s: Readonly<PageState>, st: StagesResult, from: number, to: number): void {
    const v = st.variants;
    const maxDiff = (a: Float32Array, b: Float32Array) => {
      let m = 0;
      for (let j = 0; j < a.length; j++) {
        const e = Math.abs(a[j]! - b[j]!);
        if (e > m) m = e;
      }
      return m;
    };
    const sigma = Math.sqrt(v.variance);
    const parts: string[] = [];
    if (st.norm === 'rmsnorm') {
      parts.push('These weights run as RMSNorm; beside it, what LayerNorm would make of this token with the same γ.');
    }
    if (!Number.isFinite(v.mean)) {
      parts.push('This token holds a non-finite value, so all three norms give NaN for it.');
    } else {
      parts.push(
        `For ${describeRow(s.activations, st.row)}: μ = ${fmtNum(v.mean, 4)}, σ = ${fmtNum(sigma, 6)} and the root mean square ` +
          `√(σ² + μ²) = ${fmtNum(v.rms, 6)} (with ε).`,
      );
      parts.push(
        `RMSNorm skips subtracting μ and divides by ${fmtNum(v.rms, 6)} instead of ${fmtNum(sigma, 6)}: its output differs from ` +
          `bias-free LayerNorm's by up to ${fmtNum(maxDiff(v.rmsnorm, v.biasfree), 3)} on this token, mostly the shift ` +
          `γᵢ·μ/σ that LayerNorm subtracts (μ/σ = ${fmtNum(v.mean / sigma, 3)} here).`,
      );
      if (v.layernorm) {
        parts.push(
          `Bias-free LayerNorm is LayerNorm minus β: here they differ by up to ${fmtNum(maxDiff(v.layernorm, v.biasfree), 3)} (the largest |β|).`,
        );
      } else parts.push('These weights have no β: LayerNorm and its bias-free variant are the same layer.');
    }
    $('variants-text').textContent = parts.join(' ');
    const series = [
      ...(v.layernorm
        ? [{ label: 'LayerNorm', values: v.layernorm.subarray(from, to + 1), color: COLORS.ln, width: 1.5 }]
        : []),
      { label: 'bias-free', values: v.biasfree.subarray(from, to + 1), color: COLORS.biasfree, width: 1.25 },
      { label: 'RMSNorm', values: v.rmsnorm.subarray(from, to + 1), color: COLORS.rms, dash: [5, 4], width: 1.5 },
    ];
    variantsChart.set(from, series);
    $('variants-chart').setAttribute('aria-label', `This token under the three norms, features ${from} to ${to}`);
  }

  function renderWeightsChart(s: Readonly<PageState>): void {
    const w = s.weights;
    const list = $('gb-callouts');
    if (!w) {
      list.replaceChildren();
      return;
    }
    const callouts = notableFeatures(w.gamma, w.beta, w.norm === 'rmsnorm');
    gbChart.set(
      0,
      [
        { label: 'γ', values: w.gamma, color: COLORS.gamma, width: 1.25 },
        ...(w.beta ? [{ label: 'β', values: w.beta, color: COLORS.beta, width: 1.25 }] : []),
      ],
      callouts.filter((c) => c.chart),
    );
    list.replaceChildren(...callouts.map((c) => el('li', c.sentence)));
    $('gb-chart').setAttribute(
      'aria-label',
      `γ${w.beta ? ' and β' : ''} for all ${w.d} features. ${callouts.map((c) => c.sentence).join(' ')}`,
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

function describeValues(v: Float32Array): string {
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

/** One or two sentences about this token: what dominates σ² (or mean(x²)), or why there is nothing to normalize. */
function insight(st: StagesResult, hasBeta: boolean): string {
  const rms = st.norm === 'rmsnorm';
  const { nan, posInf, negInf } = st.nonFinite;
  if (nan.length || posInf.length || negInf.length) {
    const list = (name: string, fs: number[]) =>
      fs.length
        ? `${name} at feature${fs.length > 1 ? 's' : ''} ${fs.slice(0, 5).join(', ')}${fs.length > 5 ? ', …' : ''}`
        : '';
    const what = [list('NaN', nan), list('+Inf', posInf), list('−Inf', negInf)].filter(Boolean).join(' and ');
    const allNaN = st.output.every((v) => Number.isNaN(v));
    return (
      `This token's input holds ${what}, so ${rms ? 'mean(x²) is not a number' : 'μ and σ² are not numbers'} and there is nothing to normalize by: ` +
      (allNaN
        ? 'every output of this row is NaN, as in PyTorch. Fix the input; no ε helps.'
        : 'its outputs are not finite.')
    );
  }
  // What each feature adds to the statistic the norm divides by: (x − μ)² to σ², x² to mean(x²).
  const spread = st.norm === 'rmsnorm' ? st.input : st.centered;
  const stat = rms ? 'mean(x²)' : 'σ²';
  const d = st.d;
  let total = 0;
  let jMax = 0;
  for (let j = 0; j < d; j++) {
    const c2 = spread[j]! ** 2;
    total += c2;
    if (c2 > spread[jMax]! ** 2) jMax = j;
  }
  if (!(total > 0)) {
    return rms
      ? 'Every feature of this token is 0, so mean(x²) = 0 and the output is all zeros.'
      : `Every feature of this token equals the mean, so x − μ is all zeros and the output is ${hasBeta ? 'just β' : 'all zeros'}.`;
  }
  const share = (spread[jMax]! ** 2 / total) * 100;
  if (share >= 25) {
    const others: number[] = [];
    for (let j = 0; j < d; j++) if (j !== jMax) others.push(Math.abs(st.normalized[j]!));
    const where = rms ? `is ${fmtNum(spread[jMax]!, 4)}` : `sits ${fmtNum(spread[jMax]!, 4)} from the mean`;
    const unit = rms ? 'mean square 1' : 'variance 1';
    const squeeze = rms ? `rstd = ${fmtNum(st.rstd, 3)}` : `1/σ = ${fmtNum(st.rstd, 3)}`;
    return (
      `Feature ${jMax} ${where} and alone makes up ${share.toFixed(1)}% of ${stat}. ` +
      `x̂ always has ${unit} in total, so that one massive activation takes ${share.toFixed(0)}% of it and a typical ` +
      `(median) feature is left with |x̂| ≈ ${fmtNum(median(others), 2)}: on the shared symmetric-log scale, x̂ is x squeezed by ${squeeze}.`
    );
  }
  return (
    `No single feature dominates this token: the largest share of ${stat} is ${share.toFixed(1)}% (feature ${jMax}), ` +
    (rms
      ? 'so x̂ spreads evenly with mean square 1; RMSNorm does not centre it, so x̂ keeps the mean of x, scaled by rstd.'
      : 'so x̂ spreads evenly around 0 with unit variance.')
  );
}

function stageTable(st: StagesResult, s: Readonly<PageState>, from: number, to: number, bias: boolean): HTMLElement {
  const w = s.weights!;
  const table = el('table', undefined, 'stage-table');
  const cap = el(
    'caption',
    `${describeRow(s.activations, st.row)}, features ${from}–${to}: every stage as the module computed it`,
  );
  cap.id = 'stage-table-caption';
  table.append(cap);
  const thead = el('thead');
  const hr = el('tr');
  const corner = el('th', 'stage');
  corner.scope = 'col';
  hr.append(corner);
  for (let j = from; j <= to; j++) {
    const th = el('th', String(j));
    th.scope = 'col';
    hr.append(th);
  }
  thead.append(hr);
  const tbody = el('tbody');
  const rowsDef: [string, Float32Array][] =
    st.norm === 'rmsnorm'
      ? [
          ['x', st.input],
          ['x̂', st.normalized],
          ['γ', w.gamma],
          ['y', st.output],
        ]
      : [
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
  wrap.tabIndex = 0;
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-labelledby', 'stage-table-caption');
  wrap.append(table);
  return wrap;
}

interface Notable extends Callout {
  sentence: string;
  /** Marked on the chart too (the rest are only listed). */
  chart: boolean;
}

/**
 * The features worth pointing at: smallest and largest γ, largest |β|, and GPT-2's massive channels
 * (not for an RMSNorm's γ, which is another model's: its feature 447 is nothing special).
 */
function notableFeatures(gamma: Float32Array, beta: Float32Array | null, rms: boolean): Notable[] {
  const d = gamma.length;
  const idx = Array.from({ length: d }, (_, i) => i);
  const byGamma = [...idx].sort((a, b) => gamma[a]! - gamma[b]!);
  let mean = 0;
  for (const g of gamma) mean += g / d;
  const out: Notable[] = [];
  const seen = new Set<number>();
  const push = (j: number, series: number, text: string, sentence: string, chart: boolean) => {
    if (seen.has(j * 2 + series)) return;
    seen.add(j * 2 + series);
    out.push({ feature: j, series, text, sentence, chart });
  };
  const top = byGamma[d - 1]!;
  push(
    top,
    0,
    `γ${top} = ${fmtNum(gamma[top]!, 3)}`,
    `Feature ${top} has the largest gain, γ = ${fmtNum(gamma[top]!, 4)} (the mean γ is ${fmtNum(mean, 3)}).`,
    true,
  );
  if (beta) {
    const jb = idx.reduce((a, b) => (Math.abs(beta[b]!) > Math.abs(beta[a]!) ? b : a), 0);
    push(
      jb,
      1,
      `β${jb} = ${fmtNum(beta[jb]!, 3)}`,
      `Feature ${jb} has the largest bias, β = ${fmtNum(beta[jb]!, 4)}: it is shifted by that much whatever the token.`,
      true,
    );
  }
  const low = byGamma[0]!;
  push(
    low,
    0,
    `γ${low} = ${fmtNum(gamma[low]!, 2)}`,
    `Feature ${low} has the smallest gain, γ = ${fmtNum(gamma[low]!, 4)}: ${rms ? 'RMSNorm' : 'LayerNorm'} all but silences it.`,
    true,
  );
  for (const j of rms ? [] : [447, 138, 378]) {
    if (j >= d) continue;
    push(
      j,
      0,
      `γ${j} = ${fmtNum(gamma[j]!, 3)}`,
      `Feature ${j}, one of GPT-2's massive channels, has γ = ${fmtNum(gamma[j]!, 4)}: after normalization its huge values are scaled by that.`,
      j === 447,
    );
  }
  return out;
}
