// The references' speed: layerNormReference and rmsNormReference (each output the correctly
// rounded float32) against the float64 two-pass formula they replaced, timed interleaved in one
// run: ns per element and the paired per-round ratio (median over rounds, with its spread), and
// the page's lab case, a 25 MB float32 file (6.5 M values, 8,464 rows of 768) through the reference.
import { EPS, makeData } from './data.mjs';
import { quantile, timeCandidates } from './timing.mjs';

/** The references as they were before they were exact: plain float64 two-pass, one rounding. */
function float64Reference(x, d, gamma, beta, eps, centred) {
  const y = new Float32Array(x.length);
  for (let base = 0; base < x.length; base += d) {
    let mean = 0;
    if (centred) {
      let sum = 0;
      for (let j = 0; j < d; j++) sum += x[base + j];
      mean = sum / d;
    }
    let squares = 0;
    for (let j = 0; j < d; j++) {
      const c = x[base + j] - mean;
      squares += c * c;
    }
    const denom = Math.sqrt(squares / d + eps);
    for (let j = 0; j < d; j++) {
      const c = x[base + j] - mean;
      let v = c === 0 ? 0 : c / denom;
      v *= gamma[j];
      if (beta) v += beta[j];
      y[base + j] = v;
    }
  }
  return y;
}

/** Paired ratio a/b per round, median and interquartile spread over the rounds. */
function pairedRatio(a, b) {
  const r = a.samples.map((s, i) => s / b.samples[i]).sort((p, q) => p - q);
  const median = quantile(r, 0.5);
  return { median, spread: (quantile(r, 0.75) - quantile(r, 0.25)) / median };
}

async function timeShape(pkg, rows, d, { rounds, gc }) {
  const { x, gamma, beta } = makeData(rows, d);
  const c = (name, run) => ({ c: { run }, row: { name } });
  const list = [
    c('layerNormReference (γ, β)', () => pkg.layerNormReference(x, d, { gamma, beta, eps: EPS })),
    c('float64 two-pass LayerNorm (before)', () => float64Reference(x, d, gamma, beta, EPS, true)),
    c('rmsNormReference (γ)', () => pkg.rmsNormReference(x, d, { gamma, eps: EPS })),
    c('float64 two-pass RMSNorm (before)', () => float64Reference(x, d, gamma, null, EPS, false)),
  ];
  await timeCandidates(list, { rounds, minMs: 20, targetMs: 50, gc });
  const rows_ = list.map((l) => l.row);
  return { n: x.length, rows: rows_, ln: pairedRatio(rows_[0], rows_[1]), rms: pairedRatio(rows_[2], rows_[3]) };
}

/** The printed section: ns/element per candidate and the ratios, at [1024 × 768] (and the lab's file). */
export async function referenceSpeed(pkg, { quick = false, gc = null } = {}) {
  const rounds = quick ? 5 : 15;
  const out = [`\n## The references (JS, correctly rounded) against the float64 formula they replaced\n`];
  const shapes = quick
    ? [[1024, 768]]
    : [
        [1024, 768],
        [8464, 768],
      ];
  for (const [rows, d] of shapes) {
    const r = await timeShape(pkg, rows, d, { rounds, gc });
    out.push(`[${rows} × ${d}], ${rounds} interleaved rounds (medians):`);
    for (const row of r.rows) {
      const ns = (row.median * 1e6) / r.n;
      out.push(
        `  ${row.name.padEnd(38)} ${ns.toFixed(1).padStart(7)} ns/element  ${row.median.toFixed(2).padStart(8)} ms`,
      );
    }
    const fmt = (p) => `${p.median.toFixed(2)}× (spread ${(100 * p.spread).toFixed(0)}%)`;
    out.push(`  paired ratio, exact / float64: LayerNorm ${fmt(r.ln)}, RMSNorm ${fmt(r.rms)}`);
    if (rows * d > 6e6)
      out.push(
        `  a 25 MB file (${((rows * d) / 1e6).toFixed(1)} M floats) through layerNormReference: ${(r.rows[0].median / 1000).toFixed(2)} s`,
      );
  }
  return out.join('\n');
}
