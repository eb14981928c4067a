/**
 * The correctness lab: this library against the exact answer, the SIMD build against the scalar
 * one, and any number of expected outputs against this library on every row, with a per-row
 * table, the worst element in full, and a report to copy. One panel: its sections render the
 * same lab state.
 */
import { NORM_FORMS, normOfForm } from 'layernorm-wasm';
import {
  PROMISED_SULP,
  ULP_BIN_LABELS,
  type ElementView,
  type LabFileResult,
  type LabResult,
  type ToleranceMode,
} from '../engine/protocol';
import { isCurrent, type PageState, type PageStore } from '../state';
import { Histogram } from '../ui/charts';
import { $, copyText, el, markInvalid, radioValue, setMsg, syncValue } from '../ui/dom';
import { fmtBytes, fmtErr, fmtF32, fmtShape, hex32, parseFinite } from '../ui/format';
import { fmtInt, fmtNum } from '../ui/numbers';
import { reportJson, reportText } from '../ui/report';
import { describeRow } from '../ui/rows';

const PAGE = 50;

/** A tolerance as typed: 1e-5, 1.3e-6, 4. */
const tolNum = (v: number) => (v === 0 || v >= 1e-3 ? String(v) : v.toExponential());

function tolText(t: PageState['tolerance']): string {
  return t.mode === 'ulp' ? `${tolNum(t.ulp)} sULP` : `atol ${tolNum(t.atol)} + rtol ${tolNum(t.rtol)} · |e|`;
}

export function mountCheck(store: PageStore, root: HTMLElement): void {
  const hist = new Histogram($('ulp-hist'));
  mountTolerance(store, root);
  mountLabView(store);
  mountReport(store);

  $('scalar-btn').addEventListener('click', () => store.dispatch({ type: 'check/scalar' }));
  $('expected-file').addEventListener('change', (e) => {
    const input = e.target as HTMLInputElement;
    const files = [...(input.files ?? [])];
    input.value = '';
    if (files.length) store.dispatch({ type: 'lab/add', files });
  });

  store.watch(['result', 'activations'], (s) => renderReference(s, hist), { defer: true });
  store.watch(['scalar', 'engine'], (s) => renderScalar(s));
  store.watch(['expected', 'expectedMessage'], (s) => {
    const list = $('expected-list');
    list.replaceChildren(
      ...s.expected.map((f) => {
        const li = el('li');
        const remove = el('button', 'Remove', 'secondary small');
        remove.type = 'button';
        remove.setAttribute('aria-label', `Remove ${f.name}`);
        remove.addEventListener('click', () => store.dispatch({ type: 'lab/remove', id: f.id }));
        li.append(el('span', `${f.name} — ${fmtShape(f.shape)} ${f.dtype}, ${fmtBytes(f.bytes)}`), remove);
        return li;
      }),
    );
    setMsg($('expected-msg'), s.expectedMessage?.text ?? '', s.expectedMessage?.kind ?? 'info');
  });
  // Progress ticks change \`lab\` many times a second: redraw the results only when they change.
  store.watch(['lab'], (s) => renderLabProgress(s));
  let drawn: unknown[] = [];
  store.watch(
    ['lab', 'activations', 'labView', 'expected'],
    (s) => {
      const key = [
        s.lab.result,
        s.lab.status === 'failed' ? s.lab.message : '',
        s.activations,
        s.labView,
        s.expected,
        s.eps,
      ];
      if (key.every((k, i) => k === drawn[i])) return;
      drawn = key;
      renderLab(s);
    },
    { defer: true },
  );
  store.watch(['labRows', 'labView'], (s) => renderRows(s), { defer: true });
}

/** The tolerance's inputs, both ways: what is typed (when valid) sets it; a new one shows there. */
function mountTolerance(store: PageStore, root: HTMLElement): void {
  const atol = $<HTMLInputElement>('atol');
  const rtol = $<HTMLInputElement>('rtol');
  const ulp = $<HTMLInputElement>('ulp-tol');
  const readTolerance = () => {
    const mode = radioValue(root, 'tolmode') as ToleranceMode;
    const a = parseFinite(atol.value);
    const r = parseFinite(rtol.value);
    const u = parseFinite(ulp.value);
    const bad = [
      [atol, a],
      [rtol, r],
      [ulp, u],
    ] as const;
    let problem = '';
    for (const [input, v] of bad) {
      const wrong = v === null || v < 0;
      markInvalid(input, wrong);
      if (wrong) problem = 'Tolerances must be numbers ≥ 0.';
    }
    setMsg($('tol-msg'), problem, 'error');
    if (!problem) store.set({ tolerance: { mode, atol: a!, rtol: r!, ulp: u! } });
  };
  for (const i of [atol, rtol, ulp]) i.addEventListener('input', readTolerance);
  for (const r of root.querySelectorAll<HTMLInputElement>('input[name="tolmode"]'))
    r.addEventListener('change', readTolerance);

  store.watch(['tolerance'], (s) => {
    const t = s.tolerance;
    root.querySelector<HTMLInputElement>(`input[name="tolmode"][value="${t.mode}"]`)!.checked = true;
    // Keep the text as typed when it already means the stored number.
    for (const [input, v] of [
      [atol, t.atol],
      [rtol, t.rtol],
      [ulp, t.ulp],
    ] as const) {
      if (parseFinite(input.value) !== v) syncValue(input, tolNum(v));
    }
  });
}

/** The lab's table of rows: which file, in which order, only the failing ones, a page at a time. */
function mountLabView(store: PageStore): void {
  const fileSelect = $<HTMLSelectElement>('lab-file');
  const sortSelect = $<HTMLSelectElement>('lab-sort');
  const failing = $<HTMLInputElement>('lab-failing');
  const setView = (patch: Partial<NonNullable<PageState['labView']>>) => {
    const v = store.state.labView;
    if (v) store.set({ labView: { ...v, offset: 0, ...patch } });
  };
  fileSelect.addEventListener('change', () => setView({ fileId: Number(fileSelect.value) }));
  sortSelect.addEventListener('change', () => setView({ sort: sortSelect.value as 'row' | 'abs' | 'ulp' }));
  failing.addEventListener('change', () => setView({ failingOnly: failing.checked }));
  $('lab-prev').addEventListener('click', () => {
    const v = store.state.labView;
    if (v) store.set({ labView: { ...v, offset: Math.max(0, v.offset - PAGE) } });
  });
  $('lab-next').addEventListener('click', () => {
    const v = store.state.labView;
    const total = store.state.labRows?.total ?? 0;
    if (v && v.offset + PAGE < total) store.set({ labView: { ...v, offset: v.offset + PAGE } });
  });
}

/** The lab's report: copied as text or JSON, or downloaded. */
function mountReport(store: PageStore): void {
  const reportMsg = (text: string) => setMsg($('report-msg'), text);
  $('report-copy-text').addEventListener('click', async () =>
    reportMsg(
      (await copyText(reportText(store.state))) ? 'Copied the text report.' : 'Select the report below and copy it.',
    ),
  );
  $('report-copy-json').addEventListener('click', async () =>
    reportMsg(
      (await copyText(JSON.stringify(reportJson(store.state), null, 2)))
        ? 'Copied the JSON report.'
        : 'Copying was refused by the browser.',
    ),
  );
  $('report-download').addEventListener('click', () => {
    const blob = new Blob([JSON.stringify(reportJson(store.state), null, 2)], { type: 'application/json' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = 'layernorm-lab-report.json';
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
  });
}

function renderReference(s: Readonly<PageState>, hist: Histogram): void {
  const p = $('ref-result');
  const r = s.result;
  if (!r) {
    p.textContent = '—';
    return;
  }
  const ref = r.reference;
  const ok = ref.maxSulp <= PROMISED_SULP && ref.nonFiniteMismatches === 0;
  p.replaceChildren();
  p.append(el('strong', ok ? '✓ Agrees' : '✗ Larger error than expected', ok ? 'pass' : 'fail'));
  const total = r.rows * r.d;
  const oracle = normOfForm(r.params.form).api.reference;
  let text =
    ` — against ${oracle}: max abs error ${fmtErr(ref.maxAbs)}, max ${fmtNum(ref.maxSulp, 3)} sULP over the ${fmtInt(ref.compared)} finite values` +
    (ref.compared < total ? ` of ${fmtInt(total)}` : '') +
    (ref.worstIndex >= 0
      ? `; largest error at ${describeRow(s.activations, Math.floor(ref.worstIndex / r.d))}, feature ${ref.worstIndex % r.d}`
      : '') +
    `; ${fmtInt(ref.bitIdentical)} of those ${fmtInt(ref.compared)} are bit-identical to the reference.`;
  if (r.nonFiniteRows.count) {
    text +=
      ` ${fmtInt(r.nonFiniteRows.count)} ${r.nonFiniteRows.count === 1 ? 'row holds' : 'rows hold'} NaN or ±Inf in the input ` +
      `(first: ${r.nonFiniteRows.first.slice(0, 5).join(', ')}): ${fmtInt(ref.nonFiniteBoth)} values are non-finite in both outputs, alike, and left out of the error figures.`;
  }
  if (ref.nonFiniteMismatches)
    text += ` ${fmtInt(ref.nonFiniteMismatches)} values are non-finite in only one of the two.`;
  p.append(text);
  p.dataset.maxAbs = String(ref.maxAbs);
  // Green up to the accuracy this package promises (the first six bins).
  hist.set(ref.histogram, ULP_BIN_LABELS, 5);
  $('ulp-hist').setAttribute(
    'aria-label',
    'Histogram of sULP errors: ' + ULP_BIN_LABELS.map((l, i) => `${l}: ${ref.histogram[i]}`).join(', '),
  );
}

function renderScalar(s: Readonly<PageState>): void {
  const p = $('scalar-result');
  const job = s.scalar;
  $<HTMLButtonElement>('scalar-btn').disabled = job.status === 'running';
  p.replaceChildren();
  if (job.status === 'running') {
    p.textContent = job.total ? `Comparing… ${Math.round((100 * job.done) / job.total)}%` : 'Loading the scalar build…';
    return;
  }
  if (job.status === 'failed') {
    p.textContent = `Could not compare with the scalar build: ${job.message}`;
    return;
  }
  const r = job.result;
  if (!r) return;
  if (s.engine.backend === 'scalar')
    p.append('This browser already runs the scalar build; both sides are the same build. ');
  const same = r.differing === 0;
  p.append(
    el(
      'strong',
      same ? '✓ Bit-identical' : `≠ ${fmtInt(r.differing)} of ${fmtInt(r.total)} elements differ`,
      same ? 'pass' : 'fail',
    ),
  );
  p.append(
    same
      ? ` — ${r.otherKernel} and ${r.kernel} produce the same bits for all ${fmtInt(r.total)} values of ${NORM_FORMS[r.params.form].label}.`
      : ` — first at ${describeRow(s.activations, Math.floor(r.first!.index / (s.result?.d ?? 1)))}, feature ${r.first!.index % (s.result?.d ?? 1)}: ` +
          `${fmtF32(r.first!.ours)} (${hex32(r.first!.ours)}) vs ${fmtF32(r.first!.scalar)} (${hex32(r.first!.scalar)}).`,
  );
  if (!isCurrent(s, r)) p.append(' (for the previous output; updating…)');
}

function verdictLine(f: LabFileResult, s: Readonly<PageState>, tol: PageState['tolerance']): HTMLElement {
  const p = el('p', undefined, 'verdict');
  p.dataset.file = f.name;
  if (f.shapeError) {
    p.append(el('strong', 'SHAPE MISMATCH', 'fail'), ` — ${f.shapeError}`);
    return p;
  }
  const total = f.values + f.nonFiniteBoth + f.nonFiniteMismatches;
  p.append(el('strong', f.pass ? 'PASS' : 'FAIL', f.pass ? 'pass' : 'fail'), ` ${f.name} — `);
  if (f.pass) {
    p.append(
      `all ${fmtInt(total)} values within ${tolText(tol)} of this library's output, on every one of the ${fmtInt(f.rows)} rows; ` +
        `max |y − e| ${fmtErr(f.maxAbs)}, max ${fmtNum(f.maxSulp, 3)} sULP${maxSulpWhere(f, s, tol)}.`,
    );
  } else {
    const w = f.worst;
    p.append(
      `${fmtInt(f.failingValues)} of ${fmtInt(total)} values differ by more than ${tolText(tol)}, in ${fmtInt(f.failingRows)} of ${fmtInt(f.rows)} rows.` +
        (w
          ? ` Worst: ${describeRow(s.activations, w.row)}, feature ${w.feature}: this library ${fmtF32(w.ours)}, expected ${fmtF32(w.expected)} (|diff| ${fmtErr(w.abs)}).`
          : ''),
    );
  }
  const n = (k: number, one: string, many: string) => `${fmtInt(k)} ${k === 1 ? one : many}`;
  if (f.nonFiniteMismatches)
    p.append(` ${n(f.nonFiniteMismatches, 'value is', 'values are')} non-finite on one side only.`);
  if (f.nonFiniteBoth) p.append(` ${n(f.nonFiniteBoth, 'value is', 'values are')} NaN or ±Inf in both, alike.`);
  if (f.shapeNote) p.append(` Note: ${f.shapeNote}`);
  return p;
}

/**
 * Where the largest sULP is and why it can stand beside PASS: sULP counts float32 steps at the
 * scale of the result, so where the result is near 0 a tiny difference is many steps, and an
 * allclose rule (atol) passes it. That element is often not the worst one by the pass rule.
 */
function maxSulpWhere(f: LabFileResult, s: Readonly<PageState>, tol: PageState['tolerance']): string {
  const at = f.maxSulpAt;
  if (!at || f.maxSulp <= PROMISED_SULP) return '';
  const where = `${describeRow(s.activations, at.row)}, feature ${at.feature}`;
  const why =
    tol.mode === 'allclose'
      ? `there the expected value is ${fmtF32(at.expected)}, so |y − e| = ${fmtErr(at.abs)} is many float32 steps of so small a number, and within atol`
      : `there the expected value is ${fmtF32(at.expected)}`;
  return ` (at ${where}: ${why}; the worst element by the pass rule is the one shown below)`;
}

function renderLabProgress(s: Readonly<PageState>): void {
  const job = s.lab;
  $('lab-progress-row').hidden = job.status !== 'running';
  if (job.status !== 'running') return;
  $<HTMLProgressElement>('lab-progress').value = job.total ? job.done / job.total : 0;
  $('lab-progress-label').textContent = job.total
    ? `Comparing every row… ${fmtInt(job.done)} of ${fmtInt(job.total)}`
    : 'Comparing every row…';
}

function renderLab(s: Readonly<PageState>): void {
  const job = s.lab;
  const out = $('expected-result');
  const side = $('lab-side');
  const r = job.result;
  if (job.status === 'failed') {
    out.replaceChildren(el('p', `The comparison failed: ${job.message}`, 'fail'));
    side.replaceChildren();
    return;
  }
  if (!r || !s.expected.length) {
    out.replaceChildren();
    side.replaceChildren();
    $('lab-report').hidden = true;
    $('lab-rows').hidden = true;
    return;
  }
  out.replaceChildren(...r.files.map((f) => verdictLine(f, s, r.tolerance)));
  if (!isCurrent(s, r)) out.append(el('p', 'These verdicts are for the previous output; updating…', 'hint'));

  side.replaceChildren(sideBySide(r));
  const chosen = r.files.find((f) => f.id === s.labView?.fileId) ?? r.files.find((f) => !f.shapeError);
  if (chosen?.worst) side.append(worstTable(chosen.name, chosen.worst, s));

  $('lab-report').hidden = false;
  $('report-text').textContent = reportText(s);
  const files = r.files.filter((f) => !f.shapeError);
  $('lab-rows').hidden = files.length === 0;
  const select = $<HTMLSelectElement>('lab-file');
  select.replaceChildren(
    ...files.map((f) => {
      const o = el('option', f.name);
      o.value = String(f.id);
      return o;
    }),
  );
  if (s.labView) select.value = String(s.labView.fileId);
}

/** Side by side: every output against the exact answer, this library's first. */
function sideBySide(r: LabResult): HTMLElement {
  const table = el('table', undefined, 'side-by-side');
  const cap = el('caption', 'Each output against the exact answer (float64, rounded once to float32)');
  cap.id = 'side-caption';
  table.append(cap);
  const head = el('tr');
  for (const h of ['output', 'values', 'max |diff|', 'max sULP', 'bit-identical', 'vs this library']) {
    const th = el('th', h);
    th.scope = 'col';
    head.append(th);
  }
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  const line = (
    name: string,
    c: { compared: number; maxAbs: number; maxSulp: number; bitIdentical: number },
    verdict: HTMLElement | string,
  ) => {
    const tr = el('tr');
    const th = el('th', name);
    th.scope = 'row';
    const pct = c.compared ? ` (${((100 * c.bitIdentical) / c.compared).toFixed(1)}%)` : '';
    tr.append(
      th,
      el('td', fmtInt(c.compared)),
      el('td', fmtErr(c.maxAbs)),
      el('td', fmtNum(c.maxSulp, 3)),
      el('td', `${fmtInt(c.bitIdentical)}${pct}`),
    );
    const td = el('td');
    td.append(verdict);
    tr.append(td);
    tbody.append(tr);
  };
  line('this library', r.ours, '—');
  for (const f of r.files) {
    if (f.shapeError) continue;
    line(f.name, f.vsExact, el('strong', f.pass ? 'PASS' : 'FAIL', f.pass ? 'pass' : 'fail'));
  }
  table.append(thead, tbody);
  const wrap = el('div', undefined, 'table-wrap');
  wrap.tabIndex = 0;
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-labelledby', 'side-caption');
  wrap.append(table);
  return wrap;
}

/** The worst element with enough digits to see the difference, and its bits. */
function worstTable(name: string, w: ElementView, s: Readonly<PageState>): HTMLElement {
  const box = el('div', undefined, 'worst');
  box.append(el('h4', `Worst element of ${name}: ${describeRow(s.activations, w.row)}, feature ${w.feature}`));
  const table = el('table', undefined, 'bits');
  const thead = el('thead');
  const hr = el('tr');
  for (const h of ['source', 'value (shortest float32)', 'bits', 'sULP from exact']) {
    const th = el('th', h);
    th.scope = 'col';
    hr.append(th);
  }
  thead.append(hr);
  const tbody = el('tbody');
  const fromExact = (u: number) => (Number.isNaN(u) ? '—' : fmtNum(u, 3));
  for (const [label, v, sulp] of [
    ['input x', w.x, '—'],
    ['this library', w.ours, fromExact(w.oursFromExact)],
    [name, w.expected, fromExact(w.expectedFromExact)],
    ['exact', w.exact, '0'],
  ] as const) {
    const tr = el('tr');
    const th = el('th', label);
    th.scope = 'row';
    tr.append(th, el('td', fmtF32(v), 'mono'), el('td', hex32(v), 'mono'), el('td', sulp));
    tbody.append(tr);
  }
  table.append(thead, tbody);
  const wrap = el('div', undefined, 'table-wrap');
  wrap.tabIndex = 0;
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-label', `Worst element of ${name}`);
  wrap.append(table);
  box.append(wrap);
  return box;
}

function renderRows(s: Readonly<PageState>): void {
  const page = s.labRows;
  const v = s.labView;
  if (!v) return;
  $<HTMLSelectElement>('lab-sort').value = v.sort;
  $<HTMLInputElement>('lab-failing').checked = v.failingOnly;
  const body = $('lab-rows-table').querySelector('tbody')!;
  if (!page || page.fileId !== v.fileId) {
    body.replaceChildren();
    return;
  }
  body.replaceChildren(
    ...page.rows.map((r) => {
      const tr = el('tr');
      const th = el('th', describeRow(s.activations, r.row));
      th.scope = 'row';
      tr.append(
        th,
        el('td', String(r.feature)),
        el('td', fmtF32(r.ours), 'mono'),
        el('td', fmtF32(r.expected), 'mono'),
        el('td', fmtErr(r.abs)),
        el('td', fmtNum(r.sulp, 3)),
        el('td', r.pass ? 'pass' : 'FAIL', r.pass ? 'pass' : 'fail'),
      );
      return tr;
    }),
  );
  const last = Math.min(page.total, page.offset + page.rows.length);
  $('lab-page').textContent = page.total
    ? `rows ${fmtInt(page.offset + 1)}–${fmtInt(last)} of ${fmtInt(page.total)}`
    : v.failingOnly
      ? 'no failing rows'
      : 'no rows';
  $<HTMLButtonElement>('lab-prev').disabled = page.offset === 0;
  $<HTMLButtonElement>('lab-next').disabled = last >= page.total;
}
