/**
 * Pages that hold one <layernorm-explainer>, for the element's tests: plain ESM with an import
 * map, the package as built in dist/. The page exposes `lnw.sameStages(a, b)`, which lists every
 * field where two stage objects differ (numbers by Object.is, arrays bit for bit).
 */
import type { Page } from '@playwright/test';
import { IMPORT_MAP, type Site } from './site';

export const SAME_STAGES = `
function sameStages(a, b) {
  if (!a || !b) return ['missing: ' + (a ? 'expected' : 'stages')];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const diff = [];
  for (const k of keys) {
    const x = a[k], y = b[k];
    if (ArrayBuffer.isView(x) || ArrayBuffer.isView(y)) {
      if (!(x instanceof Float32Array && y instanceof Float32Array) || x.length !== y.length) { diff.push(k); continue; }
      const u = new Uint32Array(x.buffer, x.byteOffset, x.length), v = new Uint32Array(y.buffer, y.byteOffset, y.length);
      if (u.some((bits, i) => bits !== v[i])) diff.push(k);
    } else if (!Object.is(x, y)) diff.push(k + ': ' + x + ' vs ' + y);
  }
  return diff;
}`;

/** A page with `body` in its <main> and `script` run once the element is defined. */
export function explainerPage(site: Site, name: string, body: string, script = ''): string {
  return site.put(
    `/t/${name}.html`,
    `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${name}</title><link rel="icon" href="data:,">${IMPORT_MAP}</head>
<body>
<main>
<h1>${name}</h1>
${body}
</main>
<script type="module">
import { LayerNormExplainer } from 'layernorm-wasm/explainer';
import { init } from 'layernorm-wasm';
${SAME_STAGES}
window.lnw = { init, sameStages, LayerNormExplainer };
${script}
window.lnwReady = true;
</script>
</body>
</html>
`,
  );
}

export async function open(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { lnwReady?: boolean }).lnwReady === true);
}

/** Seeded GPT-2-like rows: N(0, 1)-ish, and a massive channel 447 that grows with the row. */
export function hiddenStates(rows: number, d = 768, seed = 3): number[] {
  let s = seed >>> 0;
  const u = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const x = Array.from({ length: rows * d }, () => Math.fround((u() + u() + u() - 1.5) * 2));
  for (let r = 0; r < rows; r++) x[r * d + (447 % d)] = 200 * (r + 1);
  return x;
}
