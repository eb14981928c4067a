/**
 * <layernorm-explainer> on a norm the package does not have, added to its table as one row of
 * facts before the element loads (tests/kit/made-up-norm.mjs: centred, moment divided by 1, with
 * a bias): the element runs it in its own form, shows its stages, statistics and variant as its
 * facts name them, and its output is within the contract of the exact answer for those facts.
 */
import { join } from 'node:path';
import { test, expect, GAMMA, BETA, D } from '../fixtures';
import { compareToExact, exactNormOf } from '../../kit/exact.mjs';
import { MADE_UP, MADE_UP_FACTS } from '../../kit/made-up-norm.mjs';
import { hiddenStates, SAME_STAGES } from './pages';
import { IMPORT_MAP, ROOT, serveSite } from './site';

const site = serveSite();
site.mount('/tests/kit/', join(ROOT, 'tests', 'kit'));
const X = hiddenStates(3);
const EPS = 1e-5;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>made-up norm</title>
<link rel="icon" href="data:,">${IMPORT_MAP}</head>
<body><main><h1>made-up norm</h1><layernorm-explainer></layernorm-explainer></main>
<script type="module">
import { MADE_UP } from '/tests/kit/made-up-norm.mjs';
import 'layernorm-wasm/explainer';
import { init } from 'layernorm-wasm';
${SAME_STAGES}
window.lnw = { init, sameStages, MADE_UP };
window.lnwReady = true;
</script></body></html>`;

test('a made-up norm from its facts: its form, stages, statistics and variant, within the contract', async ({
  page,
}) => {
  await page.goto(site.put('/t/made-up-norm.html', PAGE));
  await page.waitForFunction(() => (window as unknown as { lnwReady?: boolean }).lnwReady === true);
  await page.evaluate(
    ([x, gamma, beta, norm, eps]) => {
      const el = document.querySelector('layernorm-explainer')!;
      el.activations = { data: new Float32Array(x as number[]), shape: [3, 768] };
      el.weights = {
        gamma: new Float32Array(gamma as number[]),
        beta: new Float32Array(beta as number[]),
        norm: norm as 'layernorm',
        eps: eps as number,
      };
      el.row = 2;
    },
    [X, Array.from(GAMMA), Array.from(BETA), MADE_UP, EPS] as const,
  );
  await expect(page.locator('#fact-norm')).toHaveText('centred L2Norm (γ and β)');
  await expect(page.locator('#stages figure:visible strong')).toHaveText([
    'x',
    'x − μ',
    'x̂ = (x − μ)/√(Σ(x − μ)² + ε)',
    'γ ⊙ x̂',
    '+ β  →  y',
  ]);
  await expect(page.locator('dt', { hasText: 'Σ(x − μ)²' }).first()).toBeVisible();
  // The words about the token name its moment and the unit x̂ has by it.
  await expect(page.locator('#ex-insight')).toContainText('of Σ(x − μ)²');
  await expect(page.locator('#ex-insight')).toContainText('sum of squares 1');
  // The element's stages are the runtime's own method for the row, bit for bit.
  const differ = await page.evaluate(async (eps) => {
    const w = window as unknown as {
      lnw: { init(): Promise<Record<string, Function>>; sameStages(a: unknown, b: unknown): string[] };
    };
    const el = document.querySelector('layernorm-explainer')!;
    await el.ready;
    const rt = await w.lnw.init();
    const a = el.activations!;
    const want = rt.centredL2NormStages!(a.data, 768, 2, { gamma: el.weights!.gamma, beta: el.weights!.beta, eps });
    return w.lnw.sameStages(el.stages, want);
  }, EPS);
  expect(differ).toEqual([]);
  const output = await page.evaluate(() => Array.from(document.querySelector('layernorm-explainer')!.stages!.output));
  const row = Float32Array.from(X.slice(2 * D, 3 * D));
  const exact = exactNormOf(MADE_UP_FACTS, row, D, { gamma: GAMMA, beta: BETA, eps: EPS });
  expect(compareToExact(output, exact, BETA, D).maxSulp).toBeLessThanOrEqual(6.5);
  // Its variant is drawn beside the package's forms, marked as the one running.
  await expect(page.locator(`figure.variant[data-form="${MADE_UP}"]`)).toHaveAttribute('aria-current', 'true');
});
