/**
 * The weight loaders where users run them: Chromium, on the main thread and in a module Worker,
 * with the package's default fetch (no `fetch` option), reading checkpoints this test builds from
 * the local range server on 127.0.0.1 (another origin than the page: CORS and its preflight
 * included). A browser's fetch throws "Illegal invocation" when it is called as a method of
 * anything but its global, which Node's fetch never shows.
 */
import type { Page } from '@playwright/test';
import { test, expect, HF_URL, GAMMA, BETA, D } from './fixtures';
import { normGguf } from './checkpoints';
import { serveWorkerPage } from './worker-page';

const site = serveWorkerPage();

/* eslint-disable @typescript-eslint/no-explicit-any -- page-side code sees the package untyped */
type Loaded = { ok: true; weights: any } | { ok: false; error: { name: string; message: string; cause: string } };
type Loader = 'loadLayerNormWeights' | 'loadNormWeights';

/** Loads `url` with `loader` on the page's main thread. */
function onMainThread(page: Page, loader: Loader, url: string): Promise<Loaded> {
  return page.evaluate(
    async ([loader, url]) => {
      const io: any = await import('/dist/io/index.js' as string);
      try {
        return { ok: true, weights: await io[loader](url) };
      } catch (error: any) {
        return { ok: false, error: { name: error.name, message: error.message, cause: String(error.cause) } };
      }
    },
    [loader, url] as const,
  ) as Promise<Loaded>;
}

/** Loads `url` with `loader` in a module Worker started by the page. */
function inWorker(page: Page, loader: Loader, url: string): Promise<Loaded> {
  return page.evaluate(
    ([loader, url]) =>
      new Promise((resolve, reject) => {
        const worker = new Worker('/test/load-weights.js', { type: 'module' });
        worker.onmessage = (e) => {
          resolve(e.data);
          worker.terminate();
        };
        worker.onerror = (e) => reject(new Error(`the worker failed: ${e.message}`));
        worker.postMessage({ loader, url });
      }),
    [loader, url] as const,
  ) as Promise<Loaded>;
}

const where = { 'the main thread': onMainThread, 'a module Worker': inWorker };

for (const [name, load] of Object.entries(where)) {
  test.describe(`on ${name}, with the default fetch`, () => {
    test('loadLayerNormWeights reads GPT-2’s ln_f by range requests from 127.0.0.1, and from the Hub URL with its config.json', async ({
      page,
      server,
    }) => {
      await site.open(page);
      server.reset();
      const direct = await load(page, 'loadLayerNormWeights', server.url('model.safetensors'));
      expect(direct.ok ? 'loaded' : direct.error).toBe('loaded');
      const w = (direct as { weights: any }).weights;
      expect([w.d, w.norm, w.eps, w.format, w.names]).toEqual([
        D,
        'layernorm',
        null,
        'safetensors',
        { weight: 'ln_f.weight', bias: 'ln_f.bias' },
      ]);
      expect(new Float32Array(w.gamma)).toEqual(GAMMA);
      expect(new Float32Array(w.beta)).toEqual(BETA);
      // The header and the two tensors, not the 548 MB file.
      expect(server.bytesSent('model.safetensors')).toBeLessThan(32 * 1024);

      const hub = await load(page, 'loadLayerNormWeights', HF_URL);
      expect(hub.ok ? 'loaded' : hub.error).toBe('loaded');
      const h = (hub as { weights: any }).weights;
      expect([h.eps, h.architecture, h.source]).toEqual([1e-5, 'gpt2', HF_URL]);
      expect(new Float32Array(h.gamma)).toEqual(GAMMA);
    });

    test('loadNormWeights reads a Llama GGUF’s RMSNorm from 127.0.0.1', async ({ page, server }) => {
      server.addFile('llama.gguf', normGguf('llama', 'layer_norm_rms_epsilon', 1e-6));
      await site.open(page);
      const loaded = await load(page, 'loadNormWeights', server.url('llama.gguf'));
      expect(loaded.ok ? 'loaded' : loaded.error).toBe('loaded');
      const w = (loaded as { weights: any }).weights;
      expect([w.d, w.norm, w.eps, w.architecture, w.beta, w.format]).toEqual([
        D,
        'rmsnorm',
        1e-6,
        'llama',
        null,
        'gguf',
      ]);
      expect(new Float32Array(w.gamma)).toEqual(GAMMA);
    });
  });
}
