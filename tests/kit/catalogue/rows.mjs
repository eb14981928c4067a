// The rows of web/docs/errors.md, read from its tables: each row's id, section, input, error type,
// the messages it quotes and its test column. The one reader of the catalogue: its check against
// the case table and its browser rows (tests/errors/catalogue.test.ts), the Chromium specs of its
// browser rows (tests/readme/errors.spec.ts) and the FormatError list
// (tests/fuzz/format-problems.test.ts) all read it here.
import { readFileSync } from 'node:fs';

export const ERRORS_MD = new URL('../../../web/docs/errors.md', import.meta.url);

/** The catalogue's text. */
export const errorsText = () => readFileSync(ERRORS_MD, 'utf8');

/** Abbreviations the catalogue defines in its prose ("`BYTES` stands for `…`"), by name. */
export function abbreviations(text = errorsText()) {
  return new Map([...text.matchAll(/`([A-Z]+)` stands for `([^`]+)`/g)].map((m) => [m[1], m[2]]));
}

/** Every row of every table whose first cell is an id (1, 27a, R3, P12, A13a, W4, …), in order. */
export function errorsRows(text = errorsText()) {
  const rows = [];
  let section = '';
  const abbrev = abbreviations(text);
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('## ')) section = line.slice(3).trim();
    if (!/^\| *[A-Z]*\d+[a-z]? *\|/.test(line)) return;
    // Cells split on | that is not escaped as \|.
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim().replaceAll('\\|', '|'));
    const [id = '', input = '', error = '', text = '', test = ''] = cells;
    const spans = (s) => [...s.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    // An abbreviation stands for its text only where the catalogue wrote it as a word of a message.
    const expand = (m) => [...abbrev].reduce((s, [name, long]) => s.replace(new RegExp(`\\b${name}\\b`, 'g'), long), m);
    rows.push({ id, section, input, error, text, messages: spans(text).map(expand), test, line: i + 1 });
  });
  return rows;
}

export function errorsRow(id) {
  const row = errorsRows().find((r) => r.id === id);
  if (!row) throw new Error(`web/docs/errors.md has no row ${id}`);
  return row;
}

const BROWSER_WORDS = /Chromium|browser|CORS|in a page|this page's|a page whose|engines with Float16Array/;

/**
 * Whether a row names a browser: its behaviour is a browser's (CORS, a page's URL or
 * Content-Security-Policy, an engine's Float16Array, Chromium's own wording) or it is the page's.
 * Those run in Chromium (tests/readme/errors.spec.ts, the page and worker suites).
 */
export function namesABrowser(row) {
  return row.section === 'Page' || BROWSER_WORDS.test(`${row.input} | ${row.error} | ${row.text}`);
}

/**
 * Whether a quoted message stands for `message`: the same text, where "…" (the catalogue's
 * elision) and "<url>" stand for any text.
 */
export function quotes(quoted, message) {
  if (!quoted.includes('…') && !quoted.includes('<url>')) return quoted === message;
  const pattern = quoted
    .split(/…|<url>/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`, 's').test(message);
}

/**
 * A message's rule: what it says with the function that says it, the value it got and every
 * number left out. Two messages of one rule differ only in those (`layerNormStats: d must be a
 * positive integer, got bigint 3n` is row 12's rule, which quotes `layerNorm: … got boolean`).
 */
export function rule(message) {
  return message
    .replace(/^[\w.]+: /, '')
    .replace(/, got .*$/s, '')
    .replace(/\d+(\.\d+)?/g, '#');
}
