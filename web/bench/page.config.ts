/**
 * `npm run bench:page`: the page's main-thread tasks while it works on large inputs, in Chromium,
 * on the production build served as the browser tests serve it (playwright.config.ts).
 */
import { defineConfig } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import base from '../../playwright.config';

const root = fileURLToPath(new URL('../..', import.meta.url));

export default defineConfig({
  ...base,
  testDir: '.',
  testMatch: 'page-tasks.bench.ts',
  outputDir: '../../test-results/bench-page',
  fullyParallel: false,
  workers: 1,
  timeout: 300_000,
  webServer: base.webServer && !Array.isArray(base.webServer) ? { ...base.webServer, cwd: root } : base.webServer,
});
