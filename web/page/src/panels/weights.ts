/** The weights card: where γ and β come from, the norm they run as (LayerNorm preset or RMSNorm), and ε. */
import { DEFAULT_NORM, NORM_FORMS, NORMS, type NormForm } from 'layernorm-wasm';
import type { ConfigRequest, Preset } from '../engine/protocol';
import { formToRun } from '../engine/form';
import { parseEps, type PageState, type PageStore, type Weights, type WeightsSource } from '../state';
import { $, el, markInvalid, radioValue, setMsg, setRadio, syncValue } from '../ui/dom';
import { fmtBytes } from '../ui/format';
import { fmtEps, fmtNum } from '../ui/numbers';

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

/** Which norm the checkpoint holds, its gain's name, and the ε it states. */
function normSummary(w: Weights): string | null {
  if (w.synthetic) return null;
  const name = `${NORMS[w.norm].name}${w.tensor ? ` ${w.tensor}` : ''}`;
  const model = w.architecture ? ` (${w.architecture})` : '';
  const eps = w.eps !== null ? `ε = ${fmtEps(w.eps)} as the checkpoint states` : 'the checkpoint states no ε';
  return `${name}${model}, ${eps}`;
}

export function mountWeights(store: PageStore, root: HTMLElement): void {
  const urlInput = $<HTMLInputElement>('weights-url');
  const retry = $<HTMLButtonElement>('weights-retry');
  const useSynthetic = $<HTMLButtonElement>('weights-use-synthetic');
  const eps = $<HTMLInputElement>('eps');
  /** A problem with what was typed, shown until the next load. */
  let localProblem: string | null = null;

  const seed = () => {
    const v = Number($<HTMLInputElement>('weights-seed').value);
    return Number.isSafeInteger(v) && v >= 0 ? v : 1;
  };
  const configFor = mountConfig();
  const load = (source: WeightsSource, file?: File, weight?: string) => {
    const config = configFor(source);
    localProblem = typeof config === 'string' ? config : null;
    if (typeof config === 'string') return render();
    store.dispatch({
      type: 'weights/load',
      source,
      file,
      ...(config ? { config } : {}),
      ...(weight ? { weight } : {}),
    });
  };
  $('weights-pick-load').addEventListener('click', () => {
    const l = store.state.weightsLoad;
    if (l) load(l.source, undefined, $<HTMLSelectElement>('weights-tensor').value);
  });

  for (const r of root.querySelectorAll<HTMLInputElement>('input[name="wsrc"]')) {
    r.addEventListener('change', () => {
      if (!r.checked) return;
      localProblem = null;
      if (r.value === 'hf') load({ kind: 'hf' });
      else if (r.value === 'synthetic') load({ kind: 'synthetic', seed: seed() });
      else if (r.value === 'url') store.set({ weightsSource: { kind: 'url', url: urlInput.value.trim() } });
      else store.set({ weightsSource: { kind: 'file', name: '' } });
    });
  }
  $('weights-seed').addEventListener('change', () => load({ kind: 'synthetic', seed: seed() }));
  onFile(root, (f) => load({ kind: 'file', name: f.name }, f));
  const loadUrl = () => {
    const url = weightsUrl(urlInput.value.trim());
    if (url instanceof URL) return load({ kind: 'url', url: url.href });
    localProblem = url;
    render();
  };
  $('weights-url-load').addEventListener('click', loadUrl);
  urlInput.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') loadUrl();
  });
  retry.addEventListener('click', () => {
    const l = store.state.weightsLoad;
    if (l) load(l.source);
  });
  useSynthetic.addEventListener('click', () => load({ kind: 'synthetic', seed: seed() }));
  const presets = mountPresets(store, root);

  eps.addEventListener('input', () => store.set({ epsText: eps.value, eps: parseEps(eps.value), epsOrigin: 'typed' }));

  function render(): void {
    const s = store.state;
    renderSource(s, root, urlInput);
    renderNotice(s, localProblem, retry, useSynthetic);
    renderSummary(s);
    renderLayer(s, root, presets);
    renderEps(s, eps);
  }

  store.watch(['weightsSource', 'weightsLoad', 'weights', 'form', 'epsText', 'eps', 'epsOrigin'], render);
}

/**
 * The config.json the visitor gives beside a local file or a URL: returns what goes with a load
 * from `source` (null: none), or what is wrong with the config.json's URL (a string).
 */
function mountConfig(): (source: WeightsSource) => ConfigRequest | null | string {
  const configUrl = $<HTMLInputElement>('weights-config-url');
  let configFile: File | null = null;
  $('weights-config-file').addEventListener('change', (e) => {
    configFile = (e.target as HTMLInputElement).files?.[0] ?? null;
  });
  return (source) => {
    if (source.kind === 'file') return configFile && { kind: 'file', file: configFile };
    const text = configUrl.value.trim();
    if (source.kind !== 'url' || !text) return null;
    try {
      return { kind: 'url', url: new URL(text).href };
    } catch {
      return `“${text}” is not a URL for the config.json. Enter a full http:// or https:// address, or leave it empty.`;
    }
  };
}

/** A local checkpoint, picked or dropped on the card. */
function onFile(root: HTMLElement, loadFile: (f: File) => void): void {
  $('weights-file').addEventListener('change', (e) => {
    const input = e.target as HTMLInputElement;
    const f = input.files?.[0];
    if (f) loadFile(f);
    input.value = '';
  });
  root.addEventListener('dragover', (e) => {
    e.preventDefault();
    root.classList.add('dragging');
  });
  root.addEventListener('dragleave', () => root.classList.remove('dragging'));
  root.addEventListener('drop', (e) => {
    e.preventDefault();
    root.classList.remove('dragging');
    const f = e.dataTransfer?.files?.[0];
    if (f) loadFile(f);
  });
}

/** A checkpoint's URL as typed: an http or https address, or what is wrong with it. */
function weightsUrl(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `“${text}” is not a URL. Enter a full http:// or https:// address.`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return `Only http and https URLs are supported, not ${url.protocol.replace(':', '')}.`;
  }
  return url;
}

/** The Layer card's radios; picking one of LayerNorm's forms sets the form. */
function mountPresets(store: PageStore, root: HTMLElement): HTMLInputElement[] {
  const presets = [...root.querySelectorAll<HTMLInputElement>('input[name="preset"]')];
  for (const r of presets) {
    // Only LayerNorm's forms are presets: another norm's form (RMSNorm) is checked, and enabled,
    // only while weights of that norm are loaded.
    if (NORM_FORMS[r.value as NormForm].norm !== DEFAULT_NORM) continue;
    r.addEventListener('change', () => {
      if (r.checked) store.set({ form: r.value as Preset });
    });
  }
  return presets;
}

/** The source picked, and its panel. */
function renderSource(s: Readonly<PageState>, root: HTMLElement, urlInput: HTMLInputElement): void {
  const src = s.weightsSource;
  if (radioValue(root, 'wsrc') !== src.kind) setRadio(root, 'wsrc', src.kind);
  $('wsrc-file-panel').hidden = src.kind !== 'file';
  $('wsrc-url-panel').hidden = src.kind !== 'url';
  $('wsrc-synthetic-panel').hidden = src.kind !== 'synthetic';
  $('config-why').hidden = src.kind !== 'file' && src.kind !== 'url';
  if (src.kind === 'url' && src.url) syncValue(urlInput, src.url);
  if (src.kind === 'synthetic') syncValue($<HTMLInputElement>('weights-seed'), String(src.seed));
}

/**
 * The notice: a problem with what was typed (`localProblem`), a failed load (with a retry, or the
 * checkpoint's norms to pick from), a load that keeps the page waiting, or what the loader assumed
 * about the weights in use.
 */
function renderNotice(
  s: Readonly<PageState>,
  localProblem: string | null,
  retry: HTMLButtonElement,
  useSynthetic: HTMLButtonElement,
): void {
  const notice = $('weights-notice');
  const w = s.weights;
  const l = s.weightsLoad;
  let text: string | null = null;
  let kind = 'warn';
  if (localProblem) text = localProblem;
  else if (l?.status === 'failed') text = l.message;
  else if (l?.status === 'loading' && !w) {
    kind = 'info';
    text =
      `Loading ${l.label}… ${fmtBytes(l.bytesRead)} read. Everything below starts as soon as the weights arrive; ` +
      'the page stops waiting after 20 s without data.';
  } else if (w && w.warnings.length > 0 && l?.status !== 'loading') {
    text = `Note: ${w.warnings.map((warning) => `${warning}.`).join(' ')}`;
  }
  notice.hidden = text === null;
  notice.dataset.kind = kind;
  $('weights-notice-text').textContent = text ?? '';
  retry.hidden = !(l?.status === 'failed' && l.retry && !localProblem);
  const candidates = l?.status === 'failed' && !localProblem ? l.candidates : [];
  $('weights-pick').hidden = candidates.length === 0;
  const select = $<HTMLSelectElement>('weights-tensor');
  if ([...select.options].map((o) => o.value).join('|') !== candidates.join('|')) {
    select.replaceChildren(...candidates.map((name) => el('option', name)));
  }
  retry.textContent = l?.source.kind === 'hf' ? 'Try Hugging Face again' : 'Try again';
  useSynthetic.hidden = !(l?.status === 'loading' && !w);
}

/** The weights in use (or being loaded): where from, their norm, d, γ and β. */
function renderSummary(s: Readonly<PageState>): void {
  const w = s.weights;
  const l = s.weightsLoad;
  const summary = $('weights-summary');
  summary.replaceChildren();
  if (l?.status === 'loading') {
    summary.append(el('strong', `Loading ${l.label}…`), ` ${fmtBytes(l.bytesRead)} read.`);
    if (w) summary.append(` Until it arrives the page uses ${w.label}.`);
  } else if (!w) summary.textContent = 'No weights loaded yet.';
  if (w && l?.status !== 'loading') {
    summary.append(el('strong', w.label));
    const norm = normSummary(w);
    const parts = [w.detail, ...(norm ? [norm] : []), `d = ${w.d}`, `γ: ${summarize(w.gamma)}`];
    if (w.beta) parts.push(`β: ${summarize(w.beta)}`);
    else parts.push(NORMS[w.norm].bias ? 'no β in this checkpoint' : `no β (an ${NORMS[w.norm].name} has none)`);
    if (w.beta && !NORM_FORMS[s.form].bias) parts.push('β ignored (bias-free preset)');
    summary.append(` — ${parts.join(' · ')}`);
  }
}

/** The forms of the loaded norm are open (one with β only when the weights have a β). */
function renderLayer(s: Readonly<PageState>, root: HTMLElement, presets: HTMLInputElement[]): void {
  const w = s.weights;
  const norm = NORMS[w?.norm ?? DEFAULT_NORM];
  const own = (w?.norm ?? DEFAULT_NORM) !== DEFAULT_NORM;
  const hasBeta = !w || w.beta !== null;
  for (const r of presets) {
    const form = NORM_FORMS[r.value as NormForm];
    r.disabled = NORMS[form.norm] !== norm || (form.bias && !hasBeta);
  }
  setRadio(root, 'preset', formToRun(s.weights, s.form));
  $('preset-note').textContent = own
    ? `These weights are the gain of an ${norm.name} (the checkpoint says so), so the layer runs as ${norm.name} with the checkpoint’s ε. Load a ${NORMS[DEFAULT_NORM].name} checkpoint for the presets above.`
    : hasBeta
      ? ''
      : 'These weights have no β, so the layer runs bias-free.';
  $('eps-what').textContent = `(added to the ${norm.momentName}, ${norm.moment})`;
}

/** ε as typed, where it came from, and whether it is a number. */
function renderEps(s: Readonly<PageState>, eps: HTMLInputElement): void {
  const w = s.weights;
  const own = (w?.norm ?? DEFAULT_NORM) !== DEFAULT_NORM;
  syncValue(eps, s.epsText);
  const said = w?.eps ?? null;
  $('eps-origin').textContent =
    s.epsOrigin === 'checkpoint'
      ? `As the checkpoint states it${w?.architecture ? ` (${w.architecture})` : ''}.`
      : said !== null && Number(fmtEps(said)) !== s.eps
        ? `The checkpoint states ε = ${fmtEps(said)}.`
        : w && !w.synthetic && said === null
          ? own
            ? 'These weights do not state ε; 1e-5 is the package’s default (Llama-family models use 1e-5 or 1e-6).'
            : 'These weights do not state ε; 1e-5 is GPT-2’s.'
          : '';
  const bad = s.eps === null;
  markInvalid(eps, bad);
  setMsg(
    $('eps-msg'),
    bad ? 'ε must be a finite number ≥ 0 that a double holds (0, or from 5e-324 up), e.g. 1e-5.' : '',
    bad ? 'error' : 'info',
  );
}
