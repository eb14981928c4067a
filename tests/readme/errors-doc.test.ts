/**
 * errors.md's rows that name a browser each name a test that runs them in Chromium as part of
 * `npm test` (the Playwright suites under tests/browser/ and tests/readme/; WB is
 * tests/browser/worker.spec.ts), and that test exists.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './blocks.js';
import { errorsRows, namesABrowser } from './errors-doc.js';

const CHROMIUM_SPEC = /tests\/(browser|readme)\/[\w.-]+\.spec\.ts/g;

describe('errors.md rows that name a browser run in Chromium', () => {
  const rows = errorsRows();
  const browserRows = rows.filter(namesABrowser);

  it('the catalogue is read, and the rows that name a browser are found by their words', () => {
    expect(rows.length).toBeGreaterThan(200);
    expect(browserRows.map((r) => r.id)).toEqual(
      expect.arrayContaining(['R2', '57d', '74', '75', '76b', '77', 'W8', '79', '91']),
    );
    expect(browserRows.map((r) => r.id)).not.toContain('1');
  });

  it('each names an existing Chromium test that npm test runs', () => {
    const missing = browserRows.flatMap((r) => {
      const specs = [...r.test.matchAll(CHROMIUM_SPEC)]
        .map((m) => m[0])
        .concat(/\bWB\b/.test(r.test) ? ['tests/browser/worker.spec.ts'] : []);
      if (specs.length === 0) return [`${r.id}: its test column names no Chromium test (${r.test})`];
      return specs.filter((s) => !existsSync(join(ROOT, s))).map((s) => `${r.id}: ${s} does not exist`);
    });
    expect(missing).toEqual([]);
  });
});
