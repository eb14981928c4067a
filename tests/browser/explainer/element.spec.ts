/**
 * <layernorm-explainer> in a plain page (an import map, the package as built): an author's own
 * activations and tokens, a checkpoint `src`, the reader picking tokens by pointer and keyboard,
 * and the numbers it shows (`stages`) bit-identical to the runtime's own layerNormStages /
 * rmsNormStages for that row.
 */
import { test, expect, nearExtras, HF_URL, GAMMA, BETA, D } from '../fixtures';
import { normGguf } from '../../kit/checkpoints/index.mjs';
import { explainerPage, hiddenStates, open } from './pages';
import { serveSite } from './site';
import type { Page } from '@playwright/test';

const site = serveSite();
const TOKENS = ['The', ' cat', ' sat', ' on', ' the', ' mat'];

/** The element's stages against the runtime's, for its current row and inputs; [] when identical. */
async function stagesDiffer(
  page: Page,
  call: 'layerNormStages' | 'rmsNormStages',
  options: string,
  { settled = true } = {},
): Promise<string[]> {
  return page.evaluate(
    async ([call, options, settled]) => {
      const el = document.querySelector('layernorm-explainer')!;
      // `ready` also waits for a src still loading; without it, the stages shown now.
      if (settled) await el.ready;
      const rt = await window.lnw.init();
      const a = el.activations!;
      const opts = new Function('w', `return ${options}`)(el.weights);
      const expected = rt[call](a.data, a.shape.at(-1)!, el.row, opts);
      return window.lnw.sameStages(el.stages, expected);
    },
    [call, options, settled] as const,
  );
}

declare global {
  interface Window {
    lnw: {
      init: typeof import('layernorm-wasm').init;
      sameStages(a: unknown, b: unknown): string[];
      LayerNormExplainer: unknown;
    };
    events: { type: string; row: number; token: string | null }[];
  }
}

async function ownData(page: Page, weights: string): Promise<void> {
  await open(page, explainerPage(site, 'own-data', '<layernorm-explainer></layernorm-explainer>'));
  await page.evaluate(
    ([x, tokens, weights, gamma, beta]) => {
      const el = document.querySelector('layernorm-explainer')!;
      window.events = [];
      el.addEventListener('rowchange', (e) => window.events.push({ type: e.type, ...(e as CustomEvent).detail }));
      const w = new Function('gamma', 'beta', `return ${weights}`)(new Float32Array(gamma), new Float32Array(beta));
      el.weights = w;
      el.activations = { data: new Float32Array(x), shape: [1, tokens.length, 768], tokens };
    },
    [hiddenStates(TOKENS.length), TOKENS, weights, Array.from(GAMMA), Array.from(BETA)] as const,
  );
}

const explainer = (page: Page) => page.locator('layernorm-explainer');

test('an author’s activations and tokens: the reader picks tokens by pointer and keyboard, the stages are the runtime’s', async ({
  page,
}) => {
  await ownData(page, '({ gamma, beta, eps: 1e-5 })');
  await expect(page.locator('#ex-token')).toHaveText('row 0 “The”');
  const ln = '{ gamma: w.gamma, beta: w.beta, eps: 1e-5 }';
  expect(await stagesDiffer(page, 'layerNormStages', ln)).toEqual([]);
  // Pointer: a click on " sat".
  await page.getByRole('option', { name: '␣sat' }).click();
  await expect(page.locator('#ex-token')).toHaveText('row 2 “␣sat”');
  await expect(explainer(page)).toHaveAttribute('row', '2');
  expect(await stagesDiffer(page, 'layerNormStages', ln)).toEqual([]);
  // Keyboard: the listbox takes the arrows, Home and End.
  await page.getByRole('listbox', { name: /Tokens/ }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.locator('#ex-token')).toHaveText('row 3 “␣on”');
  await page.keyboard.press('End');
  await expect(page.locator('#ex-token')).toHaveText('row 5 “␣mat”');
  expect(await stagesDiffer(page, 'layerNormStages', ln)).toEqual([]);
  // Or the row typed in.
  await page.locator('#ex-row').fill('1');
  await expect(page.locator('#ex-token')).toHaveText('row 1 “␣cat”');
  // A script setting `row` is no reader's pick: reflected, no event.
  await page.evaluate(() => (document.querySelector('layernorm-explainer')!.row = 4));
  await expect(explainer(page)).toHaveAttribute('row', '4');
  await expect(page.locator('#ex-token')).toHaveText('row 4 “␣the”');
  expect(await page.evaluate(() => window.events)).toEqual([
    { type: 'rowchange', row: 2, token: ' sat' },
    { type: 'rowchange', row: 3, token: ' on' },
    { type: 'rowchange', row: 5, token: ' mat' },
    { type: 'rowchange', row: 1, token: ' cat' },
  ]);
  expect(await stagesDiffer(page, 'layerNormStages', ln)).toEqual([]);
  // What it shows is what it computed: μ, σ², 1/√(σ²+ε) and the table's y row.
  const shown = await page.evaluate(() => {
    const st = document.querySelector('layernorm-explainer')!.stages as import('layernorm-wasm').LayerNormStages;
    return { mean: st.mean, variance: st.variance, rstd: st.rstd, y: Array.from(st.output.subarray(444, 452)) };
  });
  expect(Number(await page.locator('#ex-mean').textContent())).toBeCloseTo(shown.mean, 5);
  expect(Number(await page.locator('#ex-var').textContent()) / shown.variance).toBeCloseTo(1, 6);
  expect(Number(await page.locator('#ex-rstd').textContent()) / shown.rstd).toBeCloseTo(1, 6);
  await page.locator('#ex-start').fill('444');
  const y = await page
    .locator('.stage-table tbody tr', { has: page.locator('th:text-is("y")') })
    .locator('td')
    .allTextContents();
  expect(y.map(Number).map((v, i) => Math.abs(v - shown.y[i]!) <= 1e-4 * (1 + Math.abs(shown.y[i]!)))).toEqual(
    Array(8).fill(true),
  );
});

test('bias-free and RMSNorm weights: that form’s stages, charts and table', async ({ page }) => {
  await ownData(page, '({ gamma, eps: 1e-3 })');
  expect(await stagesDiffer(page, 'layerNormStages', '{ gamma: w.gamma, eps: 1e-3 }')).toEqual([]);
  await expect(page.locator('#param-count')).toHaveText('γ 768 = 768 (no β)');
  await expect(page.locator('#equation math').first()).not.toContainText('β');
  await expect(page.locator('#stages figure:visible strong')).toHaveText([
    'x',
    'x − μ',
    'x̂ = (x − μ)/√(σ² + ε)',
    'γ ⊙ x̂',
    'y = γ ⊙ x̂',
  ]);
  await nearExtras(page);
  await expect(page.locator('.legend')).toHaveText('γ (gain)');
  await page.evaluate(() => {
    const el = document.querySelector('layernorm-explainer')!;
    el.weights = { gamma: el.weights!.gamma, norm: 'rmsnorm', eps: 1e-6 };
    el.row = 3;
  });
  await expect(page.locator('#fact-norm')).toHaveText('RMSNorm (γ only)');
  expect(await stagesDiffer(page, 'rmsNormStages', '{ gamma: w.gamma, eps: 1e-6 }')).toEqual([]);
  await expect(page.locator('#stages figure:visible strong')).toHaveText(['x', 'x̂ = x · rstd', 'y = γ ⊙ x̂']);
  await expect(page.locator('.stage-table tbody th')).toHaveText(['x', 'x̂', 'γ', 'y']);
  await expect(page.locator('#ex-ms')).toBeVisible();
  await expect(page.locator('#ex-mean')).toHaveCount(0);
  await expect(page.locator('#ex-insight')).toContainText('of mean(x²)');
  await expect(page.locator('#variants-text')).toContainText('These weights run as RMSNorm');
});

test('src: a checkpoint read by range requests, with the ε and the norm it states', async ({ page, server }) => {
  server.reset();
  await open(
    page,
    explainerPage(site, 'src-gpt2', `<layernorm-explainer src="${HF_URL}" row="1"></layernorm-explainer>`),
  );
  await page.evaluate((x) => {
    document.querySelector('layernorm-explainer')!.activations = { data: new Float32Array(x), shape: [4, 768] };
  }, hiddenStates(4));
  await expect(page.locator('#fact-norm')).toHaveText('LayerNorm (γ and β)');
  await expect(page.locator('#fact-eps')).toHaveText('1e-5');
  expect(await stagesDiffer(page, 'layerNormStages', '{ gamma: w.gamma, beta: w.beta, eps: 1e-5 }')).toEqual([]);
  expect(await page.evaluate(() => Array.from(document.querySelector('layernorm-explainer')!.weights!.gamma))).toEqual(
    Array.from(GAMMA),
  );
  expect(server.bytesSent(), 'range reads, not the 548 MB file').toBeLessThan(32 * 1024);
  // GPT-2's own weights: its massive channels are pointed out.
  await nearExtras(page);
  await expect(page.locator('#gb-callouts')).toContainText("Feature 447, one of GPT-2's massive channels");
  // A llama.cpp GGUF says RMSNorm and ε = 1e-6 in its metadata.
  server.addFile('llama.gguf', normGguf('llama', 'layer_norm_rms_epsilon', 1e-6));
  await explainer(page).evaluate((el, url) => el.setAttribute('src', url), server.url('llama.gguf'));
  await expect(page.locator('#fact-norm')).toHaveText('RMSNorm (γ only)');
  await expect(page.locator('#fact-eps')).toHaveText('1e-6');
  expect(await stagesDiffer(page, 'rmsNormStages', '{ gamma: w.gamma, eps: 1e-6 }')).toEqual([]);
  await expect(page.locator('#gb-callouts')).not.toContainText('massive');
});

test.describe('a src that fails', () => {
  test.use({ allowConsole: [/404 \(Not Found\)/] });
  test('says what failed, fires error, and keeps the weights it had', async ({ page, server }) => {
    await ownData(page, '({ gamma, beta })');
    await expect(page.locator('#ex-token')).toHaveText('row 0 “The”');
    await page.evaluate(() => {
      const el = document.querySelector('layernorm-explainer')!;
      el.addEventListener(
        'error',
        (e) => ((window as unknown as { failed: string }).failed = (e as CustomEvent).detail.message),
      );
    });
    await explainer(page).evaluate(
      (el, url) => el.setAttribute('src', url),
      server.url('model.safetensors', 'not-found'),
    );
    await expect(page.locator('#ex-status')).toContainText('Could not load the weights from');
    await expect(page.locator('#ex-status')).toContainText('404');
    expect(await page.evaluate(() => (window as unknown as { failed: string }).failed)).toContain('404');
    await expect(page.locator('#fact-norm')).toHaveText('LayerNorm (γ and β)');
    expect(await stagesDiffer(page, 'layerNormStages', '{ gamma: w.gamma, beta: w.beta }')).toEqual([]);
  });
});

test('while the weights load: x, x − μ and x̂ at once, γ ⊙ x̂ and y when they arrive', async ({ page, server }) => {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  await page.context().route(HF_URL, async (route) => {
    await released;
    await route.fulfill({ response: await route.fetch({ url: server.url('model.safetensors') }) });
  });
  await open(page, explainerPage(site, 'waiting', `<layernorm-explainer src="${HF_URL}"></layernorm-explainer>`));
  await page.evaluate((x) => {
    document.querySelector('layernorm-explainer')!.activations = { data: new Float32Array(x), shape: [2, 768] };
  }, hiddenStates(2));
  await expect(page.locator('#ex-status')).toContainText('Loading the weights from');
  await expect(page.locator('#ex-mean')).toBeVisible();
  await expect(page.locator('#stages figure:visible strong')).toHaveText([
    'x',
    'x − μ',
    'x̂ = (x − μ)/√(σ² + ε)',
    'γ ⊙ x̂',
    '+ β  →  y',
  ]);
  await expect(page.locator('#stages .pending:visible')).toHaveCount(2);
  await expect(page.locator('.stage-table tbody th')).toHaveText(['x', 'x − μ', 'x̂']);
  expect(await stagesDiffer(page, 'layerNormStages', '{ eps: 1e-5 }', { settled: false })).toEqual([]);
  release();
  await expect(page.locator('#fact-norm')).toHaveText('LayerNorm (γ and β)');
  await expect(page.locator('#stages .pending:visible')).toHaveCount(0);
  await expect(page.locator('.stage-table tbody th')).toHaveText(['x', 'x − μ', 'x̂', 'γ', 'γ ⊙ x̂', 'β', 'y']);
  await expect(page.locator('#ex-status')).toBeHidden();
});

test('weights set while a src is loading: the newer choice stays', async ({ page, server }) => {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let asked = 0;
  await page.context().route(HF_URL, async (route) => {
    asked++;
    await released;
    try {
      await route.fulfill({ response: await route.fetch({ url: server.url('model.safetensors') }) });
    } catch {
      await route.abort().catch(() => undefined); // the element gave this read up
    }
  });
  await open(page, explainerPage(site, 'newer', `<layernorm-explainer src="${HF_URL}"></layernorm-explainer>`));
  // Before the src's read has started (it waits for the first drawing): it never starts.
  await page.evaluate((x) => {
    const el = document.querySelector('layernorm-explainer')!;
    el.activations = { data: new Float32Array(x), shape: [2, 768] };
    el.weights = { gamma: new Float32Array(768).fill(3), eps: 0.25 };
  }, hiddenStates(2));
  await expect(page.locator('#fact-eps')).toHaveText('0.25');
  await page.waitForTimeout(500);
  expect(asked, 'the src was never read').toBe(0);
  // While it is being read: the read is given up.
  await page.locator('layernorm-explainer').evaluate((el) => el.setAttribute('src', el.getAttribute('src')!));
  await expect(page.locator('#ex-status')).toContainText('Loading the weights from');
  await expect.poll(() => asked).toBeGreaterThan(0);
  await page.evaluate(() => {
    document.querySelector('layernorm-explainer')!.weights = { gamma: new Float32Array(768).fill(2), eps: 0.5 };
  });
  release();
  await expect(page.locator('#ex-status')).toBeHidden();
  await expect(page.locator('#fact-eps')).toHaveText('0.5');
  await page.waitForTimeout(500);
  await expect(page.locator('#fact-norm')).toHaveText('bias-free LayerNorm (γ only)');
  expect(await stagesDiffer(page, 'layerNormStages', '{ gamma: w.gamma, eps: 0.5 }')).toEqual([]);
});

test('a refused property never throws: its message is shown in place of the drawing and fires error', async ({
  page,
}) => {
  await ownData(page, '({ gamma, beta })');
  const said = await page.evaluate(async () => {
    const el = document.querySelector('layernorm-explainer')!;
    const good = { weights: el.weights, activations: el.activations };
    const attempts: [string, () => void][] = [
      ['gamma string', () => (el.weights = { gamma: 'abc' as unknown as Float32Array })],
      ['beta length', () => (el.weights = { gamma: new Float32Array(4), beta: new Float32Array(3) })],
      [
        'rms with beta',
        () => (el.weights = { gamma: new Float32Array(4), beta: new Float32Array(4), norm: 'rmsnorm' }),
      ],
      ['eps', () => (el.weights = { gamma: new Float32Array(4), eps: -1 })],
      ['eps type', () => (el.weights = { gamma: new Float32Array(4), eps: '1e-5' as unknown as number })],
      ['empty gamma', () => (el.weights = { gamma: new Float32Array(0) })],
      ['shape', () => (el.activations = { data: new Float32Array(6), shape: [4, 2] })],
      ['shape entry', () => (el.activations = { data: new Float32Array(6), shape: [6, 0] })],
      ['tokens', () => (el.activations = { data: new Float32Array(6), shape: [3, 2], tokens: ['a'] })],
      ['row', () => (el.row = 1.5)],
      ['row type', () => (el.row = '2' as unknown as number)],
      ['zoom', () => (el.zoom = { from: 10, to: 12 })],
      ['scale', () => (el.scale = 'log' as never)],
    ];
    const out: string[] = [];
    for (const [what, set] of attempts) {
      const events: string[] = [];
      const listen = (e: Event) => events.push((e as CustomEvent<{ message: string }>).detail.message);
      el.addEventListener('error', listen);
      try {
        set();
      } catch (e) {
        out.push(`${what}: threw ${(e as Error).message}`);
      }
      el.removeEventListener('error', listen);
      await el.ready;
      const shown = el.shadowRoot!.querySelector('#ex-status')!.textContent;
      const drawn = !el.shadowRoot!.querySelector<HTMLElement>('#stages')!.closest('section')!.hidden;
      out.push(
        `${what}: ${events.join(' | ')}${shown === events[0] ? '' : ` (shown: ${shown})`}${drawn ? ' (drawn)' : ''}`,
      );
      // The property is given a good value again: the refusal is gone.
      if (what.startsWith('row')) el.row = 0;
      else if (what === 'zoom') el.zoom = null;
      else if (what === 'scale') el.scale = 'symlog';
      else if (what.startsWith('shape') || what === 'tokens') el.activations = good.activations;
      else el.weights = good.weights;
    }
    return out;
  });
  expect(said).toEqual([
    'gamma string: <layernorm-explainer>: weights.gamma must be a Float32Array, another typed array or an array of numbers, got string "abc"',
    'beta length: <layernorm-explainer>: weights.beta must have length d = 4, got length 3',
    'rms with beta: <layernorm-explainer>: RMSNorm has no bias term, so no weights.beta option; got weights.beta Float32Array(4)',
    'eps: <layernorm-explainer>: weights.eps must be a finite number >= 0, got number -1',
    'eps type: <layernorm-explainer>: weights.eps must be a finite number >= 0, got string "1e-5"',
    'empty gamma: <layernorm-explainer>: weights.gamma must be d >= 1 values, got Float32Array(0)',
    'shape: <layernorm-explainer>: activations.data must have length 8 (the values of shape [4, 2]), got length 6',
    'shape entry: <layernorm-explainer>: activations.shape[1] must be a positive integer, got number 0',
    'tokens: <layernorm-explainer>: activations.tokens must have length 3 (one string per row), got length 1',
    'row: <layernorm-explainer>: row must be an integer >= 0, got number 1.5',
    'row type: <layernorm-explainer>: row must be an integer >= 0, got string "2"',
    'zoom: <layernorm-explainer>: zoom.to must be at least zoom.from + 3 = 13 (4 features), got number 12',
    "scale: <layernorm-explainer>: scale must be 'symlog', 'linear' or 'own', got string \"log\"",
  ]);
  // After all that, it shows the last good inputs again.
  await expect(page.locator('#ex-status')).toBeHidden();
  expect(await stagesDiffer(page, 'layerNormStages', '{ gamma: w.gamma, beta: w.beta }')).toEqual([]);
  // What an author writes in HTML cannot throw: it is said in the element.
  await explainer(page).evaluate((el) => el.setAttribute('row', '9'));
  await expect(page.locator('#ex-status')).toHaveText('Row 9 does not exist: these activations have 6 rows (0 to 5).');
  await explainer(page).evaluate((el) => el.setAttribute('row', 'two'));
  await expect(page.locator('#ex-notes')).toHaveText('row="two" is not a whole number ≥ 0: showing row 0.');
  await expect(page.locator('#ex-status')).toBeHidden();
  await expect(page.locator('#ex-token')).toHaveText('row 0 “The”');
  await explainer(page).evaluate((el) => el.setAttribute('row', '2'));
  await expect(page.locator('#ex-notes')).toBeHidden();
  await expect(page.locator('#ex-token')).toHaveText('row 2 “␣sat”');
  // Weights of another width than the activations.
  await page.evaluate(
    () => (document.querySelector('layernorm-explainer')!.weights = { gamma: new Float32Array(896).fill(1) }),
  );
  await expect(page.locator('#ex-status')).toContainText(
    "The weights have d = 896 but the activations' last axis is 768",
  );
  await expect(page.locator('#stages')).toBeHidden();
  await expect(page.locator('#fact-norm')).toHaveCount(0);
});

test('an out-of-range row and a width mismatch fire error too, each once', async ({ page }) => {
  await ownData(page, '({ gamma, beta })');
  await page.evaluate(() => {
    const el = document.querySelector('layernorm-explainer')!;
    (window as unknown as { said: string[] }).said = [];
    el.addEventListener('error', (e) =>
      (window as unknown as { said: string[] }).said.push((e as CustomEvent<{ message: string }>).detail.message),
    );
    el.row = 9;
  });
  await expect(page.locator('#ex-status')).toHaveText('Row 9 does not exist: these activations have 6 rows (0 to 5).');
  await page.evaluate(() => {
    const el = document.querySelector('layernorm-explainer')!;
    el.row = 1;
    el.weights = { gamma: new Float32Array(16).fill(1) };
  });
  await expect(page.locator('#ex-status')).toContainText('The weights have d = 16');
  expect(await page.evaluate(() => (window as unknown as { said: string[] }).said)).toEqual([
    'Row 9 does not exist: these activations have 6 rows (0 to 5).',
    "The weights have d = 16 but the activations' last axis is 768 ([1, 6, 768]): they must be equal.",
  ]);
});

test('γ and β as number[] or Float64Array are converted to float32 once and give the same stages', async ({ page }) => {
  await ownData(page, '({ gamma: Array.from(gamma), beta: new Float64Array(beta) })');
  const kept = await page.evaluate(() => {
    const w = document.querySelector('layernorm-explainer')!.weights!;
    return [w.gamma.constructor.name, w.beta!.constructor.name];
  });
  expect(kept).toEqual(['Float32Array', 'Float32Array']);
  expect(await stagesDiffer(page, 'layerNormStages', '{ gamma: w.gamma, beta: w.beta }')).toEqual([]);
  const ref = await page.evaluate(
    ([gamma]) => {
      const w = document.querySelector('layernorm-explainer')!.weights!;
      return w.gamma.every((g, i) => Object.is(g, Math.fround(gamma[i]!)));
    },
    [Array.from(GAMMA)] as const,
  );
  expect(ref).toBe(true);
});

test('importing twice is harmless; nothing is fetched before the element comes near the viewport', async ({ page }) => {
  const wasm: string[] = [];
  page.on('request', (r) => r.url().endsWith('.wasm') && wasm.push(r.url()));
  await open(
    page,
    explainerPage(
      site,
      'far',
      `<div style="height: 4000px">Scroll down.</div><layernorm-explainer src="${HF_URL}"></layernorm-explainer>`,
      `await import('/dist/explainer/index.js?second-copy');
       document.querySelector('layernorm-explainer').activations = { data: new Float32Array(${JSON.stringify(hiddenStates(2))}), shape: [2, 768] };`,
    ),
  );
  expect(await page.evaluate(() => customElements.get('layernorm-explainer') === window.lnw.LayerNormExplainer)).toBe(
    true,
  );
  await page.waitForTimeout(500);
  expect(wasm, 'no .wasm before the element is near').toEqual([]);
  await explainer(page).scrollIntoViewIfNeeded();
  await expect(page.locator('#fact-norm')).toHaveText('LayerNorm (γ and β)');
  expect(wasm.length).toBe(1);
});
