/**
 * web/docs/errors.md and the case table (tests/kit/catalogue) are one catalogue: every row whose
 * test column names C has its cases, and quotes exactly their messages, no more and no fewer; every
 * case has its row, with its error type and its message (quoted, or of a rule the row states for
 * other functions and values); every row names where it is tested, in files that exist; and the
 * rows that name a browser each name a Chromium test (the Playwright suites under tests/browser/
 * and tests/readme/, which `npm test` runs; WB is tests/browser/worker.spec.ts).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CASES, errorsRows, namesABrowser, quotes, rule, type ErrorCase } from '../kit/catalogue/index.mjs';
import { errorsText } from '../kit/catalogue/rows.mjs';

const ROOT = new URL('../../', import.meta.url);
const rows = errorsRows();
const byId = new Map(rows.map((r) => [r.id, r]));
/** Rows whose test column starts with C: their cases are in the table. */
const namesC = (test: string) => /^C(?=$|[;,:\s])/.test(test);

/** A message the row quotes that the case's message is, either way round where one elides text. */
const sameMessage = (quoted: string, message: string) => quotes(quoted, message) || quotes(message, quoted);

/** The test files the catalogue's legends name: **X** = `tests/…`. */
const LEGEND = new Map(
  [...errorsText().matchAll(/\*\*([A-Z]+)\*\* =\s+`(tests\/[^`]+)`/g)].map((m) => [m[1]!, m[2]!] as const),
);

describe('web/docs/errors.md and tests/kit/catalogue are one catalogue', () => {
  it('the catalogue is read: its rows, each id once, and the cases', () => {
    expect(rows.length).toBeGreaterThan(200);
    expect(rows.map((r) => r.id).filter((id, i, all) => all.indexOf(id) !== i)).toEqual([]);
    expect(CASES.length).toBeGreaterThan(300);
    expect(rows.filter((r) => namesC(r.test)).length).toBeGreaterThan(140);
  });

  it('every case has its row: one that names C, its error type, and its message or that message’s rule', () => {
    const wrong = CASES.flatMap((c: ErrorCase) => {
      const row = byId.get(c.row);
      const at = `${c.row}: ${c.name}`;
      if (!row) return [`${at}: errors.md has no row ${c.row}`];
      if (!namesC(row.test)) return [`${at}: row ${c.row}'s test column does not name C (${row.test})`];
      if (!row.error.includes(c.error)) return [`${at}: row ${c.row} says ${row.error}, the case ${c.error}`];
      const quoted = row.messages.some((q) => sameMessage(q, c.message));
      const ruled = row.messages.some((q) => rule(q) === rule(c.message));
      return quoted || ruled ? [] : [`${at}: row ${c.row} quotes neither \`${c.message}\` nor its rule`];
    });
    expect(wrong).toEqual([]);
  });

  it('every row that names C has cases, and each message it quotes is thrown by one of them', () => {
    const wrong = rows
      .filter((r) => namesC(r.test))
      .flatMap((r) => {
        const cases = CASES.filter((c) => c.row === r.id);
        if (cases.length === 0) return [`${r.id}: names C but has no case`];
        if (r.messages.length === 0) return [`${r.id}: names C but quotes no message`];
        return r.messages
          .filter((q) => !cases.some((c) => sameMessage(q, c.message)))
          .map((q) => `${r.id}: no case throws \`${q}\``);
      });
    expect(wrong).toEqual([]);
  });

  it('every row names where it is tested: C, a legend’s file or a file under tests/, each of which exists', () => {
    expect(LEGEND.size).toBeGreaterThan(5);
    // "same" (… › another test): the test of the row above.
    const tests: string[] = [];
    rows.forEach((r, i) => tests.push(r.test.startsWith('same') ? tests[i - 1] + r.test.slice(4) : r.test));
    const wrong = rows.flatMap((r, i) => {
      const test = tests[i]!;
      const paths = [...test.matchAll(/tests\/[\w./-]+\.(?:ts|mjs|js)/g)].map((m) => m[0]);
      const named = [...test.matchAll(/(?:^|[;(]\s*|,\s*)([A-Z]{1,2})(?=:|\s›|;|$)/g)].map((m) => m[1]!);
      const problems = [
        ...paths.filter((p) => !existsSync(new URL(p, ROOT))).map((p) => `${r.id}: ${p} does not exist`),
        ...named.filter((n) => n !== 'C' && !LEGEND.has(n)).map((n) => `${r.id}: ${n} is in no legend`),
      ];
      if (paths.length === 0 && named.length === 0) problems.push(`${r.id}: names no test (${r.test})`);
      return problems;
    });
    expect(wrong).toEqual([]);
    const missing = [...LEGEND].filter(([, path]) => !existsSync(new URL(path, ROOT)));
    expect(missing).toEqual([]);
  });

  it('the rows that name a browser are found by their words, and each names an existing Chromium test', () => {
    const browserRows = rows.filter(namesABrowser);
    expect(browserRows.map((r) => r.id)).toEqual(
      expect.arrayContaining(['R2', '57d', '74', '75', '76b', '77', 'W8', '79', '91']),
    );
    expect(browserRows.map((r) => r.id)).not.toContain('1');
    const missing = browserRows.flatMap((r) => {
      const specs = [...r.test.matchAll(/tests\/(browser|readme)\/[\w.-]+\.spec\.ts/g)]
        .map((m) => m[0])
        .concat(/\bWB\b/.test(r.test) ? ['tests/browser/worker.spec.ts'] : []);
      if (specs.length === 0) return [`${r.id}: its test column names no Chromium test (${r.test})`];
      return specs.filter((s) => !existsSync(new URL(s, ROOT))).map((s) => `${r.id}: ${s} does not exist`);
    });
    expect(missing).toEqual([]);
  });
});
