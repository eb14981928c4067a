/**
 * README.md's path from a model to the element ("Into the explainer"), run as written: a plain
 * page whose import map points at onnxruntime-web and the built package, the Hub's GPT-2 answered
 * by the local Hub (tests/browser/text/hub.ts: the tiny GPT-2 of tests/data/onnx at its URL). The
 * element explains the last token through the model's own ln_f: its input row bit for bit what
 * onnxruntime-web captures in Node, its output the package's own for that row and those weights.
 */
import { test, expect } from '../fixtures';
import * as ortWeb from 'onnxruntime-web';
import { join } from 'node:path';
import { captureNorms, readOnnxModel } from '../../../dist/onnx/index.js';
import { init } from '../../../dist/index.js';
import { specBlocks } from '../../readme/blocks';
import { TINY_GPT2, routeHub, startHub, type Hub } from '../text/hub';
import { ROOT, serveSite } from './site';

const site = serveSite();
site.mount('/node_modules/layernorm-wasm/dist/', join(ROOT, 'dist'));
const [example] = specBlocks('tests/browser/explainer/capture-readme.spec.ts');

let hub: Hub;
test.beforeAll(async () => {
  hub = await startHub();
  ortWeb.env.wasm.numThreads = 1;
});
test.afterAll(() => hub.close());

test('the README has the example: model → capture → element, in about 15 lines of script', () => {
  expect(example!.lang).toBe('html');
  const script = example!.code.split('<script type="module">')[1]!.split('</script>')[0]!;
  expect(script.trim().split('\n').length).toBeLessThanOrEqual(16);
});

test('model → capture → element, as written: ln_f on the last token, with the tokens', async ({ page }) => {
  await routeHub(page.context(), hub);
  await page.goto(site.put('/capture/index.html', example!.code));
  await expect(page.locator('#ex-token')).toHaveText('row 3 “2”', { timeout: 30_000 });
  await expect(page.locator('#fact-norm')).toHaveText('LayerNorm (γ and β)');

  const node = await captureNorms(ortWeb, await readOnnxModel(TINY_GPT2), [38, 47, 51, 17]);
  const lnf = node.norms.find((n) => n.name === 'transformer.ln_f')!;
  const shown = await page.locator('layernorm-explainer').evaluate(async (node) => {
    const el = node as HTMLElement & {
      ready: Promise<void>;
      activations: { shape: number[]; tokens: string[] } | null;
      stages: { input: Float32Array; output: Float32Array } | null;
    };
    await el.ready;
    return {
      shape: el.activations!.shape,
      tokens: el.activations!.tokens,
      input: Array.from(el.stages!.input),
      output: Array.from(el.stages!.output),
    };
  });
  expect(shown.shape).toEqual([1, 4, 16]);
  expect(shown.tokens).toEqual(['G', 'P', 'T', '2']);
  const row = lnf.input.data.slice(3 * 16, 4 * 16);
  expect(shown.input).toEqual(Array.from(row));
  const rt = await init();
  expect(shown.output).toEqual(Array.from(rt.layerNorm(row, 16, lnf)));
});
