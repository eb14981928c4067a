/**
 * What the reader types into the row, first-feature and zoom fields, checked: loaded on the first
 * keystroke (most readers pick tokens and never type), then each field's value is taken or its
 * message says what it must be.
 */
import { fmtInt, parseWhole } from './format.js';

export interface TypedFields {
  row: HTMLInputElement;
  start: HTMLInputElement;
  zoomFrom: HTMLInputElement;
  zoomTo: HTMLInputElement;
  rowMsg: HTMLElement;
  startMsg: HTMLElement;
}

/** What is shown now, and where a taken value goes. */
export interface TypedContext {
  rows: number;
  row: number;
  d: number | null;
  window: number;
  pickRow(row: number): void;
  changeView(patch: { start?: number; zoom?: { from: number; to: number } }): void;
}

function mark(input: HTMLInputElement, invalid: boolean): void {
  if (invalid) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

export function typed(field: 'row' | 'start' | 'zoom', f: TypedFields, c: TypedContext): void {
  if (field === 'row') {
    const v = parseWhole(f.row.value);
    const ok = v !== null && v < c.rows;
    mark(f.row, !ok);
    f.rowMsg.textContent = ok
      ? ''
      : `Row must be a whole number from 0 to ${fmtInt(Math.max(0, c.rows - 1))}; still showing row ${c.row}.`;
    if (ok && v !== c.row) c.pickRow(v);
    return;
  }
  const d = c.d;
  if (!d) return;
  if (field === 'start') {
    const v = parseWhole(f.start.value);
    const ok = v !== null && v <= d - c.window;
    mark(f.start, !ok);
    f.startMsg.textContent = ok ? '' : `The first feature must be a whole number from 0 to ${d - c.window}.`;
    if (ok) c.changeView({ start: v });
    return;
  }
  const from = parseWhole(f.zoomFrom.value);
  const to = parseWhole(f.zoomTo.value);
  const ok = from !== null && to !== null && to <= d - 1 && to - from >= 3;
  mark(f.zoomFrom, !ok);
  mark(f.zoomTo, !ok);
  f.startMsg.textContent = ok ? '' : `Zoom needs whole numbers with from + 3 ≤ to ≤ ${d - 1}.`;
  if (ok) c.changeView({ zoom: { from, to } });
}
