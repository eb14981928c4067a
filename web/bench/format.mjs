// Formatting the results: Markdown tables (also readable on a terminal) and the target lines.

import { VARIANT_LABEL } from './forms.mjs';

export function fmtTime(ms) {
  if (ms == null) return '—';
  if (ms < 1) return `${(ms * 1000).toFixed(ms < 0.01 ? 3 : 2)} µs`;
  return `${ms.toFixed(3)} ms`;
}
export function fmtErr(e) {
  if (e == null) return '—';
  if (e === 0) return '0';
  if (!Number.isFinite(e)) return 'mismatch';
  return e.toExponential(1);
}
const fmtX = (v) =>
  v == null ? '—' : v >= 100 ? `${v.toFixed(0)}×` : v >= 10 ? `${v.toFixed(1)}×` : `${v.toFixed(2)}×`;

export function formatTables(res) {
  const lines = [];
  for (const s of res.shapes) {
    lines.push(`### [${s.rows} × ${s.d}] — ${(s.bytes / 1e6).toFixed(3)} MB moved per call (in + out)`);
    lines.push('');
    lines.push('| candidate | variant | median / call | GB/s | × memcpy | × ort-web | spread (IQR) | max abs err |');
    lines.push('|---|---|--:|--:|--:|--:|--:|--:|');
    for (const c of s.candidates) {
      if (c.median == null) {
        lines.push(
          `| ${c.name} | ${VARIANT_LABEL[c.variant]} | ${c.error ?? 'not timed'} | | | | | ${fmtErr(c.maxErr)} |`,
        );
        continue;
      }
      lines.push(
        `| ${c.name} | ${VARIANT_LABEL[c.variant]} | ${fmtTime(c.median)} | ${c.gbps.toFixed(2)} | ${fmtX(c.xMemcpy)} | ${fmtX(c.xOrt)} | ${(c.spread * 100).toFixed(1)}% | ${fmtErr(c.maxErr)} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

export function formatTargets(res) {
  return res.targets.map((t) => t.text).join('\n');
}
