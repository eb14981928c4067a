import { defineConfig } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './web/scripts/common.mjs';

/** A free TCP port on 127.0.0.1, picked once and shared with the test workers through the environment. */
function freePort(): number {
  const script =
    "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
  return Number(execFileSync(process.execPath, ['-e', script]).toString());
}
process.env.LNW_PAGE_PORT ??= String(freePort());
const port = Number(process.env.LNW_PAGE_PORT);
/** PAGE_URL tests a page that is already being served (e.g. `npm start`) instead of building one. */
const external = process.env.PAGE_URL;
const baseURL = external ?? `http://127.0.0.1:${port}/`;
const config = 'web/page/vite.config.ts';

export default defineConfig({
  // The page and the package in Chromium, and the README examples that run there.
  testDir: 'tests',
  testMatch: ['browser/**/*.spec.ts', 'readme/**/*.spec.ts'],
  outputDir: 'test-results/browser',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: true,
  workers: 2,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL,
    browserName: 'chromium',
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
    serviceWorkers: 'block',
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
    },
  },
  // The production build, served statically: the same files a static host would serve, CSP included.
  webServer: external
    ? undefined
    : {
        // Type-check the page first (Vite's build does not), then build it and serve it statically.
        command:
          `npx tsc -p web/page/tsconfig.json && npx vite build --config ${config} --logLevel warn && ` +
          `npx vite preview --config ${config} --host 127.0.0.1 --port ${port} --strictPort`,
        url: baseURL,
        timeout: 180_000,
        reuseExistingServer: false,
        stdout: 'pipe',
        stderr: 'pipe',
      },
});
