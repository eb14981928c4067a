/**
 * What an author writes on the element before any script runs: its attributes, read (an attribute
 * never throws, a value that cannot be used falls back to the default and comes with a note saying
 * what is shown), and properties set before the element was defined.
 */
import type { ExplainerScale, ExplainerTheme, ExplainerView } from './types.js';

export const VIEWS: readonly ExplainerView[] = ['window', 'all'];
export const SCALES: readonly ExplainerScale[] = ['symlog', 'linear', 'own'];
export const THEMES: readonly ExplainerTheme[] = ['light', 'dark', 'auto'];

const CHOICES: Record<string, readonly string[]> = { view: VIEWS, scale: SCALES, theme: THEMES };
const WHOLE = 'a whole number ≥ 0';
/** What each attribute must be, and what is shown when it is not. */
const FALLBACK: Record<string, [expected: string, shown: string]> = {
  row: [WHOLE, 'row 0'],
  start: [WHOLE, 'the window around the strongest feature'],
  zoom: ['a range of at least 4 features, such as "400-500"', 'every feature'],
};

/**
 * Attribute `name` read: its value as the element keeps it (undefined for the attributes that are
 * not a view setting) and the note to show when `value` could not be used.
 */
export function readAttribute(name: string, value: string | null): { value: unknown; note: string | null } {
  const options = CHOICES[name];
  let read: unknown;
  if (options) read = value === null ? options[0] : options.includes(value) ? value : null;
  else if (name === 'row' || name === 'start') {
    const n = value !== null && /^\s*\d+\s*$/.test(value) ? Number(value) : null;
    read = value === null ? (name === 'row' ? 0 : null) : n !== null && Number.isSafeInteger(n) ? n : null;
  } else if (name === 'zoom') {
    const m = value === null ? null : /^\s*(\d+)\s*[-–:]\s*(\d+)\s*$/.exec(value);
    read = m && Number(m[2]) - Number(m[1]) >= 3 ? { from: Number(m[1]), to: Number(m[2]) } : null;
  } else return { value: undefined, note: null };
  if (value === null || read !== null) return { value: read, note: null };
  const [expected, shown] = options ? [`one of ${options.join(', ')}`, options[0]] : FALLBACK[name]!;
  return {
    value: name === 'row' ? 0 : options ? options[0] : null,
    note: `${name}="${value}" is not ${expected}: showing ${shown}.`,
  };
}

/** The properties an author may set before the element is defined. */
const EARLY = ['weights', 'activations', 'row', 'view', 'start', 'zoom', 'scale', 'runtime', 'engine'];

/**
 * Properties set before the element was defined are own properties of the plain element that
 * stood in for it, hiding the class's setters: taken up through those setters (and so checked).
 */
export function takeUpEarlyProperties(el: object): void {
  const props = el as Record<string, unknown>;
  for (const name of EARLY) {
    if (!Object.prototype.hasOwnProperty.call(el, name)) continue;
    const value = props[name];
    delete props[name];
    props[name] = value;
  }
}
