/**
 * The page's long main-thread tasks (PerformanceObserver 'longtask': every task over 50 ms),
 * recorded from the first script on. A measurement: the browser tests report it and
 * `npm run bench:page` prints it against its target; neither fails on it (it moves with the
 * machine). That the work runs in the engine worker is what the tests assert.
 */
import type { Page } from '@playwright/test';

interface Task {
  start: number;
  duration: number;
}

/** Starts recording; call before the page loads. */
export async function recordLongTasks(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __tasks: Task[] };
    w.__tasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__tasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
}

/** The page's time now, to pass to `longTasksSince`. */
export const pageNow = (page: Page): Promise<number> => page.evaluate(() => performance.now());

/** The long tasks that started at or after `from` (page time), once the last one is reported. */
export async function longTasksSince(page: Page, from: number): Promise<{ count: number; longest: number }> {
  // An entry is delivered after its task ends: give the observer a frame to report the last one.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50))));
  const tasks = await page.evaluate(
    (start) => (window as unknown as { __tasks: Task[] }).__tasks.filter((t) => t.start >= start),
    from,
  );
  return { count: tasks.length, longest: Math.max(0, ...tasks.map((t) => t.duration)) };
}
