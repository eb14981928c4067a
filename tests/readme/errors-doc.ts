/**
 * The rows of web/docs/errors.md, read from its tables, and which of them name a browser: their
 * behaviour is a browser's (CORS, a page's URL or Content-Security-Policy, an engine's
 * Float16Array, Chromium's own wording) or they are the page's. Those run in Chromium
 * (tests/readme/errors.spec.ts, the page and worker suites), and errors-doc.test.ts checks that
 * each names such a test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './blocks';

export interface ErrorsRow {
  id: string;
  section: string;
  input: string;
  error: string;
  /** The message column as written. */
  text: string;
  /** Each message the row quotes (its `…` spans), in order. */
  messages: string[];
  test: string;
}

export function errorsRows(): ErrorsRow[] {
  const rows: ErrorsRow[] = [];
  let section = '';
  for (const line of readFileSync(join(ROOT, 'web/docs/errors.md'), 'utf8').split('\n')) {
    if (line.startsWith('## ')) section = line.slice(3).trim();
    if (!/^\| *[A-Z]*\d+[a-z]? *\|/.test(line)) continue;
    // Cells split on | that is not escaped as \|.
    const cells = line
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim().replaceAll('\\|', '|'));
    const [id = '', input = '', error = '', text = '', test = ''] = cells;
    const messages = [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    rows.push({ id, section, input, error, text, messages, test });
  }
  return rows;
}

export function errorsRow(id: string): ErrorsRow {
  const row = errorsRows().find((r) => r.id === id);
  if (!row) throw new Error(`web/docs/errors.md has no row ${id}`);
  return row;
}

const BROWSER_WORDS = /Chromium|browser|CORS|in a page|this page's|a page whose|engines with Float16Array/;

export function namesABrowser(row: ErrorsRow): boolean {
  return row.section === 'Page' || BROWSER_WORDS.test(`${row.input} | ${row.error} | ${row.text}`);
}
