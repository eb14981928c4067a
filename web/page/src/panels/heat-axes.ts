/**
 * What makes the heatmap readable: each drawn row's label (its token, or its index) beside it,
 * ticks for the features under it, and a frame around the row the explainer shows.
 */
import type { ActivationsInfo } from '../engine/protocol';
import { $, el } from '../ui/dom';
import type { Heatmap } from '../ui/heatmap';
import { showToken } from '../ui/rows';

/** Row labels at least this far apart, in CSS pixels. */
const LABEL_GAP = 13;

function rowLabel(info: ActivationsInfo | null, row: number): string {
  const token = info?.tokens?.[row];
  if (token !== undefined) return showToken(token);
  if (info?.shape.length === 3) return `${Math.floor(row / info.shape[1]!)}·${row % info.shape[1]!}`;
  return String(row);
}

/** About `count` round feature numbers between from and to. */
function featureTicks(from: number, to: number, count: number): number[] {
  const raw = (to - from) / Math.max(1, count);
  const p = 10 ** Math.floor(Math.log10(Math.max(1, raw)));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
  const out: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) out.push(t);
  return out;
}

export function drawHeatAxes(heatmap: Heatmap, info: ActivationsInfo | null, selectedRow: number): void {
  const rows = heatmap.rows;
  const labels = $('heat-rows');
  const ticks = $('heat-ticks');
  const frame = $('heat-selected');
  if (!rows) {
    labels.replaceChildren();
    ticks.replaceChildren();
    frame.hidden = true;
    return;
  }
  const every = Math.max(1, Math.ceil(LABEL_GAP / rows.height));
  labels.style.height = `${rows.height * rows.labels.length}px`;
  labels.replaceChildren(
    ...Array.from(rows.labels)
      .map((row, i) => ({ row, i }))
      .filter(({ i }) => i % every === 0)
      .map(({ row, i }) => {
        const label = el('span', rowLabel(info, row));
        label.style.top = `${(i + 0.5) * rows.height}px`;
        return label;
      }),
  );
  const { from, to } = heatmap.range;
  const width = ticks.clientWidth || 600;
  ticks.replaceChildren(
    ...featureTicks(from, to, Math.max(2, Math.floor(width / 70))).map((t) => {
      const tick = el('span', String(t));
      tick.style.left = `${((t - from + 0.5) / (to - from + 1)) * 100}%`;
      return tick;
    }),
  );
  const i = rows.labels.indexOf(selectedRow);
  frame.hidden = i < 0;
  if (i >= 0) {
    // Around the row, 3 px out on each side: its colours stay visible inside the frame.
    frame.style.top = `${i * rows.height - 3}px`;
    frame.style.height = `${rows.height + 6}px`;
  }
}
