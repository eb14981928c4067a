/**
 * The explainer card: the package's own <layernorm-explainer>, the one implementation of the
 * explainer, kept in step with the store both ways (the row, the features shown, the scale). Its
 * numbers come from the page's engine worker, which holds the activations (a file of any size),
 * through the element's `engine`: the page's main thread loads no WebAssembly. Around it: what it
 * explains, the share buttons, and a notice while ε is not a number.
 */
import 'layernorm-wasm/explainer';
import { DEFAULT_NORM, NORM_FORMS } from 'layernorm-wasm';
import type { ExplainerWeights } from 'layernorm-wasm/explainer';
import type { Call, EngineClient } from '../engine/client';
import type { StagesResult } from '../engine/protocol';
import { permalink } from '../permalink';
import { formToRun } from '../engine/form';
import type { PageState, PageStore } from '../state';
import { $, copyText, el, setMsg } from '../ui/dom';
import { fmtEps } from '../ui/numbers';
import { describeRow } from '../ui/rows';

export function mountExplain(store: PageStore, engine: EngineClient): void {
  const explainer = $('explainer') as HTMLElementTagNameMap['layernorm-explainer'];
  let latest: Call<StagesResult> | null = null;

  // The activations: their shape and tokens, and a way to explain any row of them in the engine.
  store.watch(['activations'], (s) => {
    const a = s.activations;
    if (!a) return;
    explainer.engine = {
      shape: a.shape,
      tokens: a.tokens,
      explain: async (req) => {
        latest?.cancel();
        const w = req.weights;
        const call = engine.start('stages', {
          actId: a.id,
          row: req.row,
          eps: req.eps,
          gamma: w?.gamma ?? null,
          beta: w?.beta ?? null,
          norm: w?.norm ?? DEFAULT_NORM,
        });
        latest = call;
        return (await call.result).explanation;
      },
    };
  });

  // The weights as they run: β only in a form that has it; ε the page's (the last valid one).
  store.watch(['weights', 'form', 'eps'], (s) => {
    const w = s.weights;
    if (!w) {
      explainer.weights = null;
      return;
    }
    if (s.eps === null) return;
    const form = formToRun(s.weights, s.form);
    const weights: ExplainerWeights = {
      gamma: w.gamma,
      beta: NORM_FORMS[form].bias ? w.beta : null,
      eps: s.eps,
      norm: w.norm,
      architecture: w.architecture,
    };
    explainer.weights = weights;
  });

  store.watch(['row'], (s) => {
    if (explainer.row !== s.row) explainer.row = s.row;
  });
  explainer.addEventListener('rowchange', (e) => store.set({ row: (e as CustomEvent<{ row: number }>).detail.row }));
  store.watch(['view', 'windowStart', 'zoom', 'scale'], (s) => {
    explainer.view = s.view;
    explainer.start = s.windowStart;
    explainer.zoom = s.zoom;
    explainer.scale = s.scale;
  });
  explainer.addEventListener('viewchange', (e) => {
    const { view, start, zoom, scale } = (e as CustomEvent<import('layernorm-wasm/explainer').ViewChangeDetail>).detail;
    store.set({ view, windowStart: start, zoom, scale });
  });

  store.watch(['activations', 'weights', 'weightsLoad', 'row'], (s) => renderAbout(s));
  store.watch(['eps', 'epsText', 'weights'], (s) => {
    const stale = $('ex-stale');
    const shown = explainer.weights?.eps;
    stale.hidden = s.eps !== null || shown === undefined || shown === null;
    stale.textContent = stale.hidden
      ? ''
      : `ε “${s.epsText}” is not a number ≥ 0: the explainer still shows ε = ${fmtEps(shown!)}.`;
  });
  mountShare(store);
}

/** What the explainer is showing, with links to the cards that change it. */
function renderAbout(s: Readonly<PageState>): void {
  const about = $('explain-about');
  const a = s.activations;
  const link = (href: string, text: string) => {
    const anchor = el('a', text);
    anchor.href = href;
    return anchor;
  };
  const weights = s.weights
    ? s.weights.label
    : s.weightsLoad?.status === 'loading'
      ? `${s.weightsLoad.label} (loading: until then γ = 1, no β)`
      : 'no weights yet';
  about.replaceChildren(
    a ? `Explaining ${describeRow(a, s.row)} of the ${a.label} ` : 'Waiting for activations ',
    `through ${weights}. Change the `,
    link('#weights-card', 'weights'),
    ' or the ',
    link('#act-card', 'activations'),
    ' below, pick a row in the ',
    link('#output-card', 'output'),
    ', or check it in the ',
    link('#check', 'lab'),
    '.',
  );
}

function mountShare(store: PageStore): void {
  const embedBox = $('embed-box');
  const code = $<HTMLTextAreaElement>('embed-code');
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
    const url = permalink(store.state);
    const ok = await copyText(url);
    embedBox.hidden = false;
    code.value = url;
    setMsg($('share-msg'), (ok ? 'Link copied.' : 'Copy the link above.') + shareNote(store.state));
  });
  $('copy-embed').addEventListener('click', () => {
    const open = embedBox.hidden;
    embedBox.hidden = !open;
    $('copy-embed').setAttribute('aria-expanded', String(open));
    const src = permalink(store.state, { embed: true }).replace(/&/g, '&amp;');
    // The frame reports its height; the article's script fits the frame to it.
    code.value = [
      `<iframe src="${src}" title="LayerNorm explainer: one token through the final norm" width="100%" height="2400" style="border:0" loading="lazy"></iframe>`,
      '<script>',
      "  addEventListener('message', (e) => {",
      "    if (e.data?.type !== 'layernorm-embed:height') return;",
      "    for (const f of document.querySelectorAll('iframe')) if (f.contentWindow === e.source) f.style.height = `${e.data.height}px`;",
      '  });',
      '</script>',
    ].join('\n');
    code.rows = 8;
    setMsg(
      $('share-msg'),
      'The frame sends its height, and the script fits the frame to it (see the page’s README for the rest of the messages).' +
        shareNote(store.state),
    );
  });
}
