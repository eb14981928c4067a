/**
 * What an author writes in the element's attributes, read: an attribute never throws, a value
 * that cannot be used falls back to the default and comes with a note saying what is shown.
 */
import type { ExplainerScale, ExplainerTheme, ExplainerView } from './types.js';

export const VIEWS: readonly ExplainerView[] = ['window', 'all'];
export const SCALES: readonly ExplainerScale[] = ['symlog', 'linear', 'own'];
export const THEMES: readonly ExplainerTheme[] = ['light', 'dark', 'auto'];

/** The view attributes' values, as the element keeps them. */
export interface ViewAttributes {
  row: number;
  view: ExplainerView;
  scale: ExplainerScale;
  /** null: around the row's strongest feature. */
  start: number | null;
  zoom: { from: number; to: number } | null;
}

function whole(value: string): number | null {
  if (!/^\s*\d+\s*$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * The value of view attribute `name` (`theme` has none to keep: CSS reads it), and the note to
 * show when `value` cannot be used; null when `name` is not one of them.
 */
export function readAttribute(
  name: string,
  value: string | null,
): { patch: Partial<ViewAttributes>; note: string | null } | null {
  let note: string | null = null;
  const bad = (text: string) => (note = `${name}="${value}" ${text}`);
  const choose = <T extends string>(options: readonly T[]): T => {
    if (value === null || options.includes(value as T)) return (value ?? options[0]) as T;
    bad(`is not one of ${options.join(', ')}: showing ${options[0]}.`);
    return options[0]!;
  };
  let patch: Partial<ViewAttributes>;
  if (name === 'row') {
    const n = value === null ? 0 : whole(value);
    if (n === null) bad('is not a whole number ≥ 0: showing row 0.');
    patch = { row: n ?? 0 };
  } else if (name === 'view') patch = { view: choose(VIEWS) };
  else if (name === 'scale') patch = { scale: choose(SCALES) };
  else if (name === 'theme') patch = (choose(THEMES), {});
  else if (name === 'start') {
    const n = value === null ? null : whole(value);
    if (value !== null && n === null)
      bad('is not a whole number ≥ 0: the window is placed around the strongest feature.');
    patch = { start: n };
  } else if (name === 'zoom') {
    const m = value === null ? null : /^\s*(\d+)\s*[-–:]\s*(\d+)\s*$/.exec(value);
    const zoom = m && Number(m[2]) - Number(m[1]) >= 3 ? { from: Number(m[1]), to: Number(m[2]) } : null;
    if (value !== null && !zoom)
      bad('is not a range of at least 4 features, such as "400-500": showing every feature.');
    patch = { zoom };
  } else return null;
  return { patch, note };
}
