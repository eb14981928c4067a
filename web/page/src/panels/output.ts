/** The output card: heatmap, downloads, per-row statistics, and what the results were computed for. */
import { NORM_FORMS, NORMS, type NormForm } from 'layernorm-wasm';
import { formToRun } from '../engine/form';
import { isCurrent, type PageState, type PageStore } from '../state';
import { $, el } from '../ui/dom';
import { fmtShape } from '../ui/format';
import { fmtEps, fmtInt, fmtNum } from '../ui/numbers';
import { Heatmap } from '../ui/heatmap';
import { describeRow } from '../ui/rows';
import { drawHeatAxes } from './heat-axes';

const fmt = (v: number) => fmtNum(v, 6);
const formLabel = (form: NormForm) => NORM_FORMS[form].label;

/** Why the results on screen are not those of the current inputs, or null when they are. */
export function staleReason(s: Readonly<PageState>): string | null {
  const r = s.result;
  if (!r || isCurrent(s, r)) return null;
  const made = `ε = ${fmtEps(r.params.eps)}, ${formLabel(r.params.form)}`;
  if (s.eps === null) {
    return `ε “${s.epsText}” is not a number ≥ 0, so nothing was recomputed: the results below are still for ${made}.`;
  }
  if (s.computing) return `Updating… the results below are for ${made} until the new ones are ready.`;
  if (s.activations && r.actId !== s.activations.id) return `The results below are for earlier activations (${made}).`;
  return `The results below are for ${made}; the current settings are ε = ${fmtEps(s.eps)}, ${formLabel(formToRun(s.weights, s.form))}.`;
}

export function mountOutput(store: PageStore): void {
  const heatmap = new Heatmap($<HTMLCanvasElement>('heatmap'), {
    legend: $<HTMLCanvasElement>('heat-legend'),
    legendLabels: { min: $('legend-min'), mid: $('legend-mid'), max: $('legend-max'), nan: $('legend-nan') },
    readout: $('heat-readout'),
    fmt,
    onSelectRow: (row) => {
      store.set({ row });
      // The explainer is above: say where the token went, and offer the way there.
      $('heat-picked').hidden = false;
      $('heat-picked-text').textContent = `${describeRow(store.state.activations, row)} is now in the explainer above.`;
    },
    onView: (v) => store.set({ heatCenter: v.center ?? store.state.heatCenter }),
  });
  const zoom = $<HTMLSelectElement>('heat-zoom');
  zoom.addEventListener('change', () => store.set({ heatZoom: Number(zoom.value) }));
  $('heat-picked-go').addEventListener('click', (e) => {
    e.preventDefault();
    $('explain').scrollIntoView({ behavior: 'smooth', block: 'start' });
  });
  $('dl-npy').addEventListener('click', () => store.dispatch({ type: 'out/download', format: 'npy' }));
  $('dl-json').addEventListener('click', () => store.dispatch({ type: 'out/download', format: 'json' }));

  store.watch(['touch'], (s) => {
    $('heat-hint').textContent = s.touch
      ? 'Tap a row to explain that token in the explainer above; zoom in to read single features.'
      : 'Hover to read values; click a row (or focus the heatmap, move with the arrow keys and press Enter) to explain that token in the explainer above.';
  });

  store.watch(['result', 'resultError', 'computing', 'weights', 'weightsLoad', 'activations', 'eps', 'form'], (s) =>
    renderSummary(s, heatmap),
  );

  const view = (s: Readonly<PageState>) => ({ zoom: s.heatZoom, center: s.heatCenter, selectedRow: s.row });

  store.watch(
    ['result'],
    (s) => {
      const r = s.result;
      if (!r) return;
      heatmap.set(
        {
          values: r.sampleOut,
          inputs: r.sampleIn,
          rows: r.sampleRows.length,
          d: r.d,
          rowLabels: r.sampleRows,
          describeRow: (row) => describeRow(store.state.activations, row),
        },
        view(s),
      );
      axes();
    },
    { defer: true },
  );
  // The table in a task of its own, after the heatmap's.
  store.watch(['result'], (s) => s.result && renderStats(s), { defer: true });
  const axes = () => {
    const { from, to } = heatmap.range;
    $('heat-axes').textContent = `rows (tokens) ↓ · features ${from} … ${to} →`;
    drawHeatAxes(heatmap, store.state.activations, store.state.row);
  };
  store.watch(['heatZoom', 'heatCenter', 'row'], (s) => {
    zoom.value = String(s.heatZoom);
    if (s.result) heatmap.setView(view(s));
    axes();
  });
}

/** What the output is (or why there is none), whether it is stale, and what each download holds. */
function renderSummary(s: Readonly<PageState>, heatmap: Heatmap): void {
  const summary = $('out-summary');
  const r = s.result;
  if (s.resultError) summary.textContent = s.resultError;
  else if (r) {
    summary.textContent =
      `Output ${fmtShape(r.shape)}: ${fmtInt(r.rows * r.d)} values, ε = ${fmtEps(r.params.eps)}, ${formLabel(r.params.form)}` +
      (r.output.nonFinite ? `, ${fmtInt(r.output.nonFinite)} of them NaN or ±Inf (black in the heatmap)` : '') +
      (r.rows > r.sampleRows.length
        ? ` — the heatmap shows ${fmtInt(r.sampleRows.length)} evenly spaced rows of ${fmtInt(r.rows)}`
        : '');
  } else if (!s.weights && s.weightsLoad?.status === 'loading') {
    summary.textContent = `Waiting for the weights (${s.weightsLoad.label}).`;
  } else if (s.computing) summary.textContent = 'Normalizing…';
  else summary.textContent = 'Run the norm by loading weights and activations.';
  const stale = staleReason(s);
  $('out-stale').hidden = stale === null;
  $('out-stale').textContent = stale ?? '';

  const usable = r !== null && !s.resultError;
  $<HTMLButtonElement>('dl-npy').disabled = !usable;
  $<HTMLButtonElement>('dl-json').disabled = !usable || (s.activations?.streamed ?? false);
  const notes: string[] = [];
  if (usable && s.activations?.streamed) notes.push('This output is too large for JSON; the .npy holds every row.');
  if (usable && r.output.nonFinite) {
    notes.push(
      `JSON has no NaN or ±Inf: the ${fmtInt(r.output.nonFinite)} non-finite values are written as null. The .npy keeps them exactly.`,
    );
  }
  $('dl-note').textContent = notes.join(' ');
  if (!usable) {
    heatmap.clear(s.resultError ? 'No output: see the message above.' : '');
    drawHeatAxes(heatmap, null, s.row);
  }
}

/** Rows of the statistics table drawn at first; the rest on request. */
const FIRST_STATS = 32;

function renderStats(s: Readonly<PageState>, all = false): void {
  const r = s.result!;
  const body = $('stats-table').querySelector('tbody')!;
  const frag = document.createDocumentFragment();
  const n = all ? r.sampleRows.length : Math.min(FIRST_STATS, r.sampleRows.length);
  const st = r.stats;
  // LayerNorm's μ, σ², 1/√(σ² + ε), or RMSNorm's mean(x²), 1/√(mean(x²) + ε).
  const spec = NORMS[st.norm];
  const columns: [string, Float64Array][] = [
    ...(st.mean ? [['μ', st.mean] as [string, Float64Array]] : []),
    [spec.moment, st.moment],
    [`1/√(${spec.moment}+ε)`, st.rstd],
  ];
  const moment = st.mean ? `Mean, ${spec.momentName}` : spec.momentName[0]!.toUpperCase() + spec.momentName.slice(1);
  $('stats-caption').textContent = `${moment} and 1/√(${spec.moment} + ε) of each row`;
  $('stats-head').replaceChildren(
    ...['row', ...columns.map(([name]) => name)].map((name) => {
      const th = el('th', name);
      th.scope = 'col';
      return th;
    }),
  );
  for (let i = 0; i < n; i++) {
    const row = r.sampleRows[i]!;
    const tr = el('tr');
    const th = el('th', describeRow(s.activations, row));
    th.scope = 'row';
    tr.append(th, ...columns.map(([, values]) => el('td', fmtNum(values[i]!, 7))));
    frag.append(tr);
  }
  body.replaceChildren(frag);
  const note = $('stats-note');
  note.replaceChildren(
    r.rows > r.sampleRows.length
      ? `The ${fmtInt(r.sampleRows.length)} rows drawn in the heatmap, of ${fmtInt(r.rows)}. `
      : '',
    'Computed by the module in float64, as its kernel works (not rounded to float32).',
  );
  if (n < r.sampleRows.length) {
    const more = el('button', `Show all ${fmtInt(r.sampleRows.length)} rows`, 'secondary small');
    more.type = 'button';
    more.addEventListener('click', () => renderStats(s, true));
    note.append(more);
  }
}
