/**
 * What arrives after the default weights does not move the weights card under a click. The
 * explainer's γ and β and its three forms are drawn only when they come within 600 px of the
 * screen, right above the weights card: scrolling a source radio into view (as a click does)
 * brings them in, 830 px of them on a desktop and 1,850 on a phone. The card on screen must stay
 * where it was: its radios keep their place on screen, and the browser reports no layout shift
 * (Layout Instability API, recorded from the first script on) of the card or anything in it.
 */
import { test, expect, ready, FORM_NAMES } from './fixtures';
import type { Page } from '@playwright/test';

interface Shift {
  start: number;
  value: number;
  input: boolean;
  /** The shifted nodes that are the weights card, inside it or holding it, as "what: y → y". */
  card: string[];
}

interface Recorder {
  __shifts: Shift[];
  __shiftObserver: PerformanceObserver;
  __record(entries: PerformanceEntryList): void;
}

async function recordShifts(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as Recorder;
    w.__shifts = [];
    const name = (n: Node) => (n instanceof Element ? `${n.localName}${n.id ? `#${n.id}` : ''}` : n.nodeName);
    const record = (entries: PerformanceEntryList) => {
      for (const e of entries as (PerformanceEntry & {
        value: number;
        hadRecentInput: boolean;
        sources: { node: Node | null; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }[];
      })[]) {
        const card = document.getElementById('weights-card');
        const touched = e.sources.filter((s) => card && s.node && (card.contains(s.node) || s.node.contains(card)));
        w.__shifts.push({
          start: e.startTime,
          value: e.value,
          input: e.hadRecentInput,
          card: touched.map((s) => `${name(s.node!)}: y ${s.previousRect.y} → ${s.currentRect.y}`),
        });
      }
    };
    w.__record = record;
    w.__shiftObserver = new PerformanceObserver((list) => record(list.getEntries()));
    w.__shiftObserver.observe({ type: 'layout-shift', buffered: true });
  });
}

/** The shifts that started at or after `from` (page time), the last frame's included. */
async function shiftsSince(page: Page, from: number): Promise<Shift[]> {
  return page.evaluate(async (start) => {
    const w = window as unknown as Recorder;
    // A frame's shifts are reported after it is drawn: wait for the next one, then take the rest.
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    w.__record(w.__shiftObserver.takeRecords());
    return w.__shifts.filter((s) => s.start >= start);
  }, from);
}

/** Where the four source radios are on screen. */
const radios = (page: Page) =>
  page.locator('input[name="wsrc"]').evaluateAll((inputs) =>
    inputs.map((i) => ({
      value: (i as HTMLInputElement).value,
      x: i.getBoundingClientRect().x,
      y: i.getBoundingClientRect().y,
    })),
  );

for (const device of [
  { name: 'desktop', use: {} },
  { name: 'phone', use: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } },
]) {
  test.describe(device.name, () => {
    test.use(device.use);

    test("the explainer's lower sections arriving do not move the weights card on screen", async ({ page }) => {
      await recordShifts(page);
      await ready(page, './', 'GPT-2 small');
      // The premise: they have not come yet (they are far below the first screen).
      await expect(page.locator('#gb-h')).toHaveCount(0);
      const from = await page.evaluate(() => performance.now());
      await page.locator('input[name="wsrc"][value="url"]').scrollIntoViewIfNeeded();
      const before = await radios(page);
      await expect(page.locator('#gb-h')).toHaveText('γ and β of these weights');
      await expect(page.locator('#variants-chart svg.chart')).toHaveCount(FORM_NAMES.length);
      const shifts = await shiftsSince(page, from);
      expect
        .soft(
          shifts.filter((s) => !s.input && s.card.length),
          'layout shifts of the weights card',
        )
        .toEqual([]);
      // The browser scrolls by whole pixels, so a card kept still under content of a fractional
      // height may be left up to a pixel off (0.3 to 0.8 px here); a radio is 13 px tall.
      const after = await radios(page);
      const moved = after.filter((r, i) => r.x !== before[i]!.x || Math.abs(r.y - before[i]!.y) >= 1);
      expect(moved, `the source radios on screen, from ${JSON.stringify(before)}`).toEqual([]);
    });
  });
}
