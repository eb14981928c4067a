/** How a row is named on the page: its token when there are tokens, its (b, t) for [B, T, d]. */
import type { ActivationsInfo } from '../engine/protocol';

/** A token with its whitespace made visible (GPT-2's tokens often start with a space). */
export function showToken(token: string): string {
  const visible = token.replace(/ /g, '␣').replace(/\n/g, '↵').replace(/\t/g, '⇥');
  return visible.length > 24 ? `${visible.slice(0, 23)}…` : visible;
}

export function describeRow(info: ActivationsInfo | null, row: number): string {
  if (!info) return `row ${row}`;
  const token = info.tokens?.[row];
  if (token !== undefined) return `row ${row} “${showToken(token)}”`;
  if (info.shape.length === 3) {
    const T = info.shape[1]!;
    return `row ${row} (b ${Math.floor(row / T)}, t ${row % T})`;
  }
  return `row ${row}`;
}
