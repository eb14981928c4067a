/**
 * "Your text through GPT-2": the reader's text tokenized and run through a model in the engine
 * worker (its download said in bytes, with an estimate and a cancel button), then one captured
 * norm at a time in the card's own <layernorm-explainer> (ln_f and the last token first), the
 * depth chart of that token, and the norm checked per token against the exact answer. This code
 * loads when the card comes near; onnxruntime-web and the tokenizer only when a run is asked for.
 */
import '../styles/text.css';
import type { ExplainerWeights } from 'layernorm-wasm/explainer';
import type { Call, EngineClient } from '../engine/client';
import type { Progress, TextModelSource, TextRunResult } from '../engine/protocol';
import { HUB_MODEL, MODEL_CACHE } from '../engine/text/hub';
import type { PageStore } from '../state';
import { byId as $, depthChart, depthTable, el, fmtBytes, labTable, progressText, say as setMsg } from './text-views';

type Explainer = HTMLElementTagNameMap['layernorm-explainer'];

/** The norm the card opens on: the final one (ln_f) where the model names it, else the last. */
export const finalNorm = (names: readonly string[]): number => {
  const i = names.findIndex((n) => /(^|\.)ln_f$|(^|\.)norm$|final/.test(n));
  return i >= 0 ? i : names.length - 1;
};

export function mountText(_store: PageStore, root: HTMLElement, engine: EngineClient): void {
  const input = $<HTMLTextAreaElement>('text-input');
  const runButton = $<HTMLButtonElement>('text-run');
  const cancelButton = $<HTMLButtonElement>('text-cancel');
  const progress = runProgress(runButton, cancelButton);
  const msg = $('text-msg');
  const result = $('text-result');
  const picker = $<HTMLSelectElement>('text-norm');
  // Made with the first run, so that the page holds one explainer until the reader asks for a second.
  let made: Explainer | null = null;
  const theExplainer = (): Explainer => {
    if (made) return made;
    made = document.createElement('layernorm-explainer');
    made.id = 'text-explainer';
    made.addEventListener('rowchange', drawDepth);
    $('text-explainer-slot').replaceWith(made);
    return made;
  };
  const torchInput = $<HTMLInputElement>('text-torch');
  let running: Call<TextRunResult> | null = null;
  let run: TextRunResult | null = null;

  /** The picked norm in the explainer, the chart and the lab; `row`: a new run's token to open on. */
  const showNorm = (row?: number) => {
    if (!run) return;
    const r = run;
    const norm = Number(picker.value);
    // A PyTorch output is of one norm on one text: another norm or run starts without it.
    torchInput.value = '';
    const explainer = theExplainer();
    explainNorm(explainer, engine, r, norm);
    // After the engine, so that the row is one of the new run's.
    if (row !== undefined) explainer.row = row;
    drawDepth();
    void runLab();
  };

  const drawDepth = () => {
    if (run && made) renderDepth(run, Math.min(made.row, run.tokens.length - 1), Number(picker.value));
  };
  const runLab = () => checkNorm(engine, () => run, picker, torchInput);

  const finish = () => {
    running = null;
    progress.finish();
  };

  runButton.addEventListener('click', async () => {
    const model = modelSource(root);
    if (typeof model === 'string') return setMsg(msg, model, 'error');
    setMsg(msg, '');
    running = engine.start('textRun', { text: input.value, model }, { onProgress: progress.start() });
    try {
      const r = await running.result;
      finish();
      run = r;
      renderRun(r, picker);
      result.hidden = false;
      showNorm(r.tokens.length - 1);
    } catch (e) {
      finish();
      // The client's Cancelled, by name: importing the class would share its module with the first load.
      if ((e as Error).name === 'Cancelled') setMsg(msg, 'Cancelled: nothing was downloaded or kept.', 'warn');
      else setMsg(msg, `${(e as Error).name}: ${(e as Error).message}`, 'error');
    }
  });
  cancelButton.addEventListener('click', () => running?.cancel());
  void sayWhetherKept();
  $('text-input-npy').addEventListener('click', () => {
    if (run) void downloadInput(engine, run, Number(picker.value));
  });
  mountModelChoice(root);
  picker.addEventListener('change', () => showNorm());
  torchInput.addEventListener('change', () => void runLab());
}

/** The run's progress row while a run is on, and the buttons that start and cancel it. */
function runProgress(runButton: HTMLButtonElement, cancelButton: HTMLButtonElement) {
  const row = $('text-progress-row');
  const bar = $<HTMLProgressElement>('text-progress');
  const label = $('text-progress-label');
  return {
    /** Shows the row; returns what draws each progress report. */
    start(): (p: Progress) => void {
      runButton.disabled = true;
      cancelButton.hidden = false;
      row.hidden = false;
      bar.removeAttribute('value');
      label.textContent = 'Loading the tokenizer and onnxruntime-web…';
      let startedAt = 0;
      return (p) => {
        if (p.done === 0) startedAt = performance.now();
        if (p.total > 0 && (p.phase === 'model' || p.phase === 'tokenizer')) bar.value = p.done / p.total;
        else bar.removeAttribute('value');
        label.textContent = progressText(p, startedAt, performance.now());
      };
    },
    finish(): void {
      runButton.disabled = false;
      cancelButton.hidden = true;
      row.hidden = true;
    },
  };
}

/** Norm `norm` of the run in the explainer: its weights, and its stages computed in the engine. */
function explainNorm(explainer: Explainer, engine: EngineClient, r: TextRunResult, norm: number): void {
  const n = r.norms[norm]!;
  const weights: ExplainerWeights = { gamma: n.gamma, beta: n.beta, eps: n.eps, norm: n.norm };
  explainer.weights = weights;
  explainer.engine = {
    shape: [r.tokens.length, n.d],
    tokens: r.tokens,
    explain: (req) =>
      engine.call('textStages', { runId: r.runId, norm, row: req.row, weights: req.weights, eps: req.eps }),
  };
}

/** Typing a model's URL or picking its file chooses that source. */
function mountModelChoice(root: HTMLElement): void {
  const choose = (value: string) => () => {
    const radio = root.querySelector<HTMLInputElement>(`input[name="text-model"][value="${value}"]`);
    if (radio) radio.checked = true;
  };
  $('text-url').addEventListener('input', choose('url'));
  $('text-file').addEventListener('change', choose('file'));
}

/** The model picked: GPT-2 small from the Hub, a URL or a file; or what is missing, to say. */
function modelSource(root: HTMLElement): TextModelSource | string {
  const kind = root.querySelector<HTMLInputElement>('input[name="text-model"]:checked')?.value;
  if (kind === 'url') {
    const url = $<HTMLInputElement>('text-url').value.trim();
    if (!/^https?:\/\/\S+$/.test(url)) return 'Type the model’s URL (http:// or https://, an .onnx file) first.';
    return { kind: 'url', url };
  }
  if (kind === 'file') {
    const file = $<HTMLInputElement>('text-file').files?.[0];
    return file ? { kind: 'file', file } : 'Pick an .onnx file first.';
  }
  return { kind: 'hub' };
}

/** What a run captured, and its norms to pick from (the final one picked). */
function renderRun(r: TextRunResult, picker: HTMLSelectElement): void {
  const from = r.model.cached ? 'from this browser’s cache, nothing downloaded' : 'downloaded';
  $('text-summary').textContent =
    `${r.tokens.length} tokens through ${r.model.source} (${fmtBytes(r.model.bytes)}, ${from}): ${r.norms.length} norms captured.`;
  picker.replaceChildren(
    ...r.norms.map((n, i) => Object.assign(el('option', `${i + 1}. ${n.name}`), { value: String(i) })),
  );
  picker.value = String(finalNorm(r.norms.map((n) => n.name)));
}

/** The depth chart and table of one token: its input to every norm of the run. */
function renderDepth(run: TextRunResult, row: number, norm: number): void {
  $('text-depth').replaceChildren(depthChart(run.norms, row, norm));
  depthTable($<HTMLTableElement>('text-depth-table'), run.norms, row);
  $('text-depth-caption').textContent =
    `σ (solid) and max|x| (dashed) of “${run.tokens[row]}”'s input to each of the ${run.norms.length} norms, in graph order, on a log scale: the residual stream grows with depth, and one feature runs far ahead of the rest.`;
}

/** The picked norm checked per token against the exact answer (and a PyTorch output, when given). */
async function checkNorm(
  engine: EngineClient,
  current: () => TextRunResult | null,
  picker: HTMLSelectElement,
  torchInput: HTMLInputElement,
): Promise<void> {
  const run = current();
  if (!run) return;
  const labMsg = $('text-lab-msg');
  try {
    const lab = await engine.call('textLab', {
      runId: run.runId,
      norm: Number(picker.value),
      torch: torchInput.files?.[0] ?? null,
    });
    // A newer run, or another norm picked, while this one was checked: theirs is on its way.
    if (lab.runId !== current()?.runId || lab.norm !== Number(picker.value)) return;
    setMsg(labMsg, '');
    labTable($<HTMLTableElement>('text-lab'), lab, run.tokens);
  } catch (e) {
    setMsg(labMsg, (e as Error).message, 'error');
  }
}

/** The picked norm's input as a .npy, to run through PyTorch. */
async function downloadInput(engine: EngineClient, run: TextRunResult, norm: number): Promise<void> {
  try {
    const { blob, name } = await engine.call('textInput', { runId: run.runId, norm });
    const url = URL.createObjectURL(blob);
    const a = Object.assign(document.createElement('a'), { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (e) {
    setMsg($('text-lab-msg'), (e as Error).message, 'error');
  }
}

/** Whether an earlier visit kept GPT-2 small in Cache Storage (asked of the browser only, never of the network). */
async function sayWhetherKept(): Promise<void> {
  const note = $('text-cache-note');
  let kept = false;
  try {
    kept = !!(await (await caches.open(MODEL_CACHE)).match(HUB_MODEL));
  } catch {
    // No Cache Storage here (not a secure context, or storage turned off): nothing was kept.
  }
  note.textContent = kept
    ? 'GPT-2 small is kept in this browser from an earlier visit: nothing to download.'
    : 'The first run downloads GPT-2 small once (its size is said before the first byte); this browser then keeps it.';
}
