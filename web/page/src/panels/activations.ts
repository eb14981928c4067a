/** The activations card (generate, paste, upload) and the progress card of a large file. */
import type { PageStore } from '../state';
import { $, markInvalid, setMsg, syncValue } from '../ui/dom';
import { fmtBytes, fmtShape, parseWhole } from '../ui/format';
import { fmtInt } from '../ui/numbers';

const LIMITS = { B: [1, 64], T: [1, 4096], seed: [0, 2 ** 31 - 1] } as const;
const MAX_ROWS = 8192;
/** Pasted text at least this long is kept out of the text box. */
const BIG_PASTE = 256 * 1024;
/**
 * The most a paste may hold. The browser hands pasted text to the main thread in one piece
 * (about 10 ms per MB): larger inputs go through a file, which the engine reads off the main thread.
 */
const MAX_PASTE = 2_000_000;

type Inputs = Record<keyof typeof LIMITS, HTMLInputElement>;
type Say = (text: string) => void;

export function mountActivations(store: PageStore): void {
  const inputs: Inputs = {
    B: $<HTMLInputElement>('gen-b'),
    T: $<HTMLInputElement>('gen-t'),
    seed: $<HTMLInputElement>('gen-seed'),
  };

  const error = (text: string) => store.set({ actMessage: { kind: 'error', text } });
  mountGenerator(store, inputs, error);
  mountPaste(store, error);
  mountFiles(store);
  mountLarge(store);

  store.watch(['actMessage'], (s) => {
    const m = s.actMessage;
    setMsg($('act-msg'), m?.text ?? '', m?.kind ?? 'info');
    if (!m || m.kind !== 'error') for (const i of Object.values(inputs)) markInvalid(i, false);
  });

  store.watch(['activations', 'weightsLoad', 'weights'], (s) => {
    const a = s.activations;
    const node = $('act-summary');
    if (!a) {
      node.textContent = 'No activations yet.';
      return;
    }
    const rows = `${fmtInt(a.rows)} ${a.rows === 1 ? 'row' : 'rows'} of d = ${a.d}`;
    const tokens = a.tokens ? ', labelled by their tokens' : '';
    const read = a.streamed ? `, read in slices from ${fmtBytes(a.bytes)}` : '';
    node.textContent = `${a.label}: shape ${fmtShape(a.shape)} (${rows}${tokens}${read})`;
  });
}

/** The generator's B, T and seed: checked, then generated; a new sample's shows there. */
function mountGenerator(store: PageStore, inputs: Inputs, error: Say): void {
  $('gen-btn').addEventListener('click', () => {
    const values: Record<string, number> = {};
    const problems: string[] = [];
    for (const [name, input] of Object.entries(inputs) as [keyof typeof LIMITS, HTMLInputElement][]) {
      const [lo, hi] = LIMITS[name];
      const v = parseWhole(input.value);
      const bad = v === null || v < lo || v > hi;
      markInvalid(input, bad);
      if (bad) problems.push(`${name} must be a whole number from ${lo} to ${fmtInt(hi)} (got “${input.value}”).`);
      else values[name] = v;
    }
    if (!problems.length && values.B! * values.T! > MAX_ROWS) {
      markInvalid(inputs.B, true);
      markInvalid(inputs.T, true);
      problems.push(
        `B·T must be at most ${fmtInt(MAX_ROWS)} rows (got ${values.B}·${values.T} = ${fmtInt(values.B! * values.T!)}).`,
      );
    }
    if (problems.length) return error(`${problems.join(' ')} Nothing was generated.`);
    store.dispatch({ type: 'act/generate', B: values.B!, T: values.T!, seed: values.seed! });
  });

  store.watch(['gen'], (s) => {
    syncValue(inputs.B, String(s.gen.B));
    syncValue(inputs.T, String(s.gen.T));
    syncValue(inputs.seed, String(s.gen.seed));
  });
}

/** Pasted numbers, a large paste kept out of the box. */
function mountPaste(store: PageStore, error: Say): void {
  // A large paste never goes into the text box: laying out megabytes of text would hold the main
  // thread for seconds. It is kept aside and used as if it were there.
  const box = $<HTMLTextAreaElement>('paste');
  let pasted: string | null = null;
  box.addEventListener('paste', (e) => {
    const text = e.clipboardData?.getData('text/plain') ?? '';
    if (text.length < BIG_PASTE) return;
    e.preventDefault();
    box.value = '';
    if (text.length > MAX_PASTE) {
      pasted = null;
      $('paste-note').textContent = '';
      return error(
        `The pasted text is ${fmtBytes(text.length)}; pasting is limited to ${fmtBytes(MAX_PASTE)}. ` +
          'Save it to a .txt or .json file (or np.save a .npy) and upload it: files are read in the background.',
      );
    }
    pasted = text;
    let lines = 1;
    for (let i = text.indexOf('\n'); i >= 0 && i < text.length - 1; i = text.indexOf('\n', i + 1)) lines++;
    $('paste-note').textContent =
      `${fmtBytes(text.length)} of text pasted (${fmtInt(lines)} lines), kept out of the box so the page stays responsive. ` +
      'Use it with the button below, or type in the box to start over.';
  });
  box.addEventListener('input', () => {
    pasted = null;
    $('paste-note').textContent = '';
  });
  $('paste-btn').addEventListener('click', () => {
    const text = pasted ?? box.value;
    if (!text.trim()) return error('Paste some numbers first: one row per line, or JSON nested arrays.');
    store.dispatch({ type: 'act/text', text });
  });
}

/** An uploaded file, and the tokens that label its rows (picked before or after it). */
function mountFiles(store: PageStore): void {
  const tokensInput = $<HTMLInputElement>('tokens-file');
  let lastFile: File | null = null;
  $('npy-file').addEventListener('change', (e) => {
    const input = e.target as HTMLInputElement;
    const f = input.files?.[0];
    input.value = '';
    if (!f) return;
    lastFile = f;
    store.dispatch({ type: 'act/file', file: f, tokens: tokensInput.files?.[0] ?? null });
  });
  tokensInput.addEventListener('change', () => {
    // Tokens chosen after the file label that file's rows.
    const t = tokensInput.files?.[0] ?? null;
    if (lastFile && t) store.dispatch({ type: 'act/file', file: lastFile, tokens: t });
  });
}

/** The progress card of a large file: its progress, cancel, download and, when done, what it took. */
function mountLarge(store: PageStore): void {
  $('large-cancel').addEventListener('click', () => store.dispatch({ type: 'act/cancel' }));
  $('large-download').addEventListener('click', () => store.dispatch({ type: 'out/download', format: 'npy' }));

  store.watch(['large'], (s) => {
    const l = s.large;
    const card = $('large-card');
    card.hidden = !l;
    if (!l) return;
    const progress = $<HTMLProgressElement>('large-progress');
    const label = $('large-progress-label');
    $('large-name').textContent = `${l.name} — ${fmtBytes(l.bytes)}`;
    progress.value = l.total ? l.done / l.total : 0;
    if (l.status === 'done') progress.dataset.done = 'true';
    else delete progress.dataset.done;
    $<HTMLButtonElement>('large-cancel').disabled = l.status !== 'running';
    $('large-download').hidden = l.status !== 'done';
    if (l.status === 'running') {
      label.textContent = l.total
        ? `${Math.round((100 * l.done) / l.total)}% — ${fmtInt(l.done)} of ${fmtInt(l.total)} rows`
        : 'Starting…';
    } else if (l.status === 'done') label.textContent = `Done — ${fmtInt(l.done)} rows`;
    else if (l.status === 'cancelled') label.textContent = 'Cancelled';
    else label.textContent = 'Failed';
    $('large-summary').textContent = l.message;
  });

  store.watch(['result', 'large'], (s) => {
    const l = s.large;
    const r = s.result;
    if (l?.status !== 'done' || !r || !s.activations?.streamed) return;
    const sec = (ms: number) => (ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`);
    $('large-summary').textContent =
      `Normalized ${fmtShape(r.shape)} (${fmtBytes(l.bytes)}) in ${sec(r.ms)} (${sec(r.kernelMs)} in the kernel), ` +
      `every row checked against the exact answer. The heatmap and the statistics show ` +
      `${fmtInt(r.sampleRows.length)} evenly spaced rows; the explainer and the lab use every row.`;
  });
}
