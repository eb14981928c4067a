/**
 * Row changes leave nothing behind: 500 of them, with the γ/β section far below the viewport
 * (its code not loaded, so every render would wait for it), leave the live Float32Arrays and the
 * suspended async calls bounded, counted in a heap snapshot of Chromium after a garbage collection
 * (CDP HeapProfiler).
 */
import { test, expect, GAMMA, BETA } from '../fixtures';
import { explainerPage, hiddenStates, open } from './pages';
import { serveSite } from './site';
import type { Page } from '@playwright/test';

const site = serveSite();
const ROWS = 8;

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Live objects by name, after a garbage collection (`type` 'object' nodes of the snapshot). */
async function liveObjects(page: Page): Promise<Map<string, number>> {
  const cdp = await page.context().newCDPSession(page);
  let json = '';
  cdp.on('HeapProfiler.addHeapSnapshotChunk', ({ chunk }) => (json += chunk));
  await cdp.send('HeapProfiler.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  await cdp.detach();
  const heap = JSON.parse(json) as Snapshot;
  const fields = heap.snapshot.meta.node_fields;
  const types = heap.snapshot.meta.node_types[0];
  const [typeAt, nameAt] = [fields.indexOf('type'), fields.indexOf('name')];
  const counts = new Map<string, number>();
  for (let i = 0; i < heap.nodes.length; i += fields.length) {
    if (types[heap.nodes[i + typeAt]!] !== 'object') continue;
    const name = heap.strings[heap.nodes[i + nameAt]!]!;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

/** An async function suspended at an await is a 'Generator' object in V8's heap snapshot. */
const SUSPENDED = 'Generator';

test('500 row changes with γ/β far below leave the live Float32Arrays and suspended calls bounded', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 300 });
  await open(page, explainerPage(site, 'leak', '<layernorm-explainer></layernorm-explainer>'));
  await page.evaluate(
    async ([x, gamma, beta, rows]) => {
      const el = document.querySelector('layernorm-explainer')!;
      el.weights = { gamma: new Float32Array(gamma), beta: new Float32Array(beta) };
      el.activations = { data: new Float32Array(x), shape: [rows, 768] };
      await el.ready;
    },
    [hiddenStates(ROWS), Array.from(GAMMA), Array.from(BETA), ROWS] as const,
  );
  await expect(page.locator('#ex-token')).toHaveText('row 0');
  const changeRows = (n: number) =>
    page.evaluate(async (n) => {
      const el = document.querySelector('layernorm-explainer')!;
      for (let i = 1; i <= n; i++) {
        el.row = i % 8;
        await el.ready;
      }
    }, n);
  await changeRows(20);
  const before = await liveObjects(page);
  await changeRows(500);
  await expect(page.locator('#ex-token')).toHaveText('row 4');
  const after = await liveObjects(page);
  const grown = [...after]
    .map(([name, n]) => [name, n - (before.get(name) ?? 0)] as const)
    .filter(([name, n]) => n > 20 && !/^(HTML|SVG|MathML)\w*Element$/.test(name))
    .map(([name, n]) => `${name} +${n}`);
  test.info().annotations.push({
    type: 'live after 500 row changes',
    description:
      `Float32Array ${after.get('Float32Array')} (before ${before.get('Float32Array')}), ` +
      `suspended calls ${after.get(SUSPENDED)} (before ${before.get(SUSPENDED)}); ` +
      `kinds grown by more than 20 (DOM nodes aside): ${grown.join(', ') || 'none'}`,
  });
  // Detached DOM nodes of earlier drawings are Blink's to collect, on its own schedule.
  expect(grown, 'object kinds that grew with the row changes').toEqual([]);
  expect(after.get('Float32Array') ?? 0).toBeLessThanOrEqual((before.get('Float32Array') ?? 0) + 8);
  expect(after.get(SUSPENDED) ?? 0, 'suspended async calls').toBeLessThanOrEqual((before.get(SUSPENDED) ?? 0) + 8);
  // The γ/β section, once near, draws the latest row.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.locator('#weights-slot').scrollIntoViewIfNeeded();
  await expect(page.locator('#gb-callouts')).toContainText('largest gain');
});
