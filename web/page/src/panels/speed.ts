/** The speed card: which build and kernel run, the time of one call on the current input, a benchmark. */
import { NORM_FORMS, NORMS } from 'layernorm-wasm';
import { formToRun } from '../engine/form';
import type { PageStore } from '../state';
import { $, el } from '../ui/dom';
import { fmtBytes, fmtShape, fmtTime } from '../ui/format';

export function mountSpeed(store: PageStore): void {
  $('bench-btn').addEventListener('click', () => store.dispatch({ type: 'speed/bench' }));

  store.watch(['engine', 'timing', 'weights', 'form'], (s) => {
    const facts = $('speed-facts');
    facts.replaceChildren();
    // One kernel set holds every norm's row kernels (its name is the LayerNorm one): say which runs.
    const norm = NORMS[NORM_FORMS[formToRun(s.weights, s.form)].norm].name;
    const rows: [string, string][] = [
      ['Backend', s.engine.backend || '—'],
      ['Kernel', s.engine.kernel ? `${norm} rows of the kernel set ${s.engine.kernel}` : '—'],
    ];
    const t = s.timing;
    if (t.status === 'done' && t.result) {
      const { shape, msPerCall, bytes } = t.result;
      rows.push(
        ['Input', fmtShape(shape)],
        ['Time per call', fmtTime(msPerCall)],
        ['Throughput', `${(bytes / (msPerCall * 1e6)).toFixed(2)} GB/s (reads x, writes y: ${fmtBytes(bytes)})`],
      );
    } else if (t.status === 'failed') rows.push(['Time per call', t.message]);
    for (const [k, v] of rows) facts.append(el('dt', k), el('dd', v));
  });

  store.watch(['bench'], (s) => {
    const b = s.bench;
    const btn = $<HTMLButtonElement>('bench-btn');
    const res = $('bench-result');
    btn.disabled = b.status === 'running';
    res.replaceChildren();
    if (b.status === 'running') res.textContent = b.done ? `Running… ${b.done}/${b.total}` : 'Running…';
    else if (b.status === 'failed') res.textContent = `Benchmark failed: ${b.message}`;
    else if (b.result) {
      const { wasmMs: mw, jsMs: mj, runs, values } = b.result;
      const gb = (ms: number) => ((values * 8) / (ms * 1e6)).toFixed(2);
      res.append(
        el(
          'strong',
          mj >= mw
            ? `${(mj / mw).toFixed(1)}× faster than plain JavaScript`
            : `${(mw / mj).toFixed(1)}× slower than plain JavaScript`,
        ),
        ` — [1, 1024, 768], median of ${runs} runs, interleaved: wasm ${fmtTime(mw)} (${gb(mw)} GB/s), plain JS ${fmtTime(mj)} (${gb(mj)} GB/s).`,
      );
      res.dataset.ratio = String(mj / mw);
    }
  });
}
