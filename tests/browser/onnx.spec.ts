/**
 * layernorm-wasm/onnx in Chromium with onnxruntime-web (its wasm backend, 1 thread, its files
 * served from 127.0.0.1): every tiny model of tests/data/onnx/ is read by URL (range requests),
 * exposed and run; the model's own outputs are the original model's bit for bit, and each norm's
 * captured input and output are bit for bit what onnxruntime-web gives in Node (tests/onnx/
 * capture.test.ts holds those to the independent forward pass). Bad input (a cut file, a page that
 * is not a model, a norm in an If branch, ids outside the vocabulary) is the package's typed error,
 * and the page captures again after it.
 */
import { test, expect } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import * as ortWeb from 'onnxruntime-web';
import { captureNorms, readOnnxModel } from '../../dist/onnx/index.js';
import { IDS, MODELS } from '../onnx/fixtures';

const ROOT = join(import.meta.dirname, '..', '..');
const SERVED: Record<string, string> = {
  '/dist/': join(ROOT, 'dist'),
  '/ort/': join(ROOT, 'node_modules', 'onnxruntime-web', 'dist'),
  '/models/': join(ROOT, 'tests', 'data', 'onnx'),
};
const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
};

const PAGE = `<!doctype html>
<html>
  <head>
    <meta charset="utf-8" />
    <title>layernorm-wasm/onnx</title>
    <script type="importmap">
      { "imports": { "layernorm-wasm/onnx": "/dist/onnx/index.js", "onnxruntime-web": "/ort/ort.wasm.min.mjs" } }
    </script>
    <script type="module">
      import * as ort from 'onnxruntime-web';
      import { captureNorms, readOnnxModel } from 'layernorm-wasm/onnx';
      ort.env.wasm.numThreads = 1;
      window.capture = async (url, ids) => {
        try {
          const model = await readOnnxModel(url);
          const capture = await captureNorms(ort, model, ids);
          const session = await ort.InferenceSession.create(model.bytes);
          const feeds = {};
          const seq = (f) => new ort.Tensor('int64', BigInt64Array.from(ids, (_, i) => BigInt(f(i))), [1, ids.length]);
          for (const input of model.inputs) {
            if (input.name === 'input_ids') feeds[input.name] = seq((i) => ids[i]);
            else if (input.name === 'attention_mask') feeds[input.name] = seq(() => 1);
            else if (input.name === 'position_ids') feeds[input.name] = seq((i) => i);
            else feeds[input.name] = new ort.Tensor('float32', new Float32Array(0), [1, 2, 0, 8]);
          }
          const original = await session.run(feeds);
          await session.release();
          const same = Object.entries(capture.outputs).every(([name, t]) =>
            t.data.every((v, i) => Object.is(v, original[name].data[i])),
          );
          return {
            same,
            norms: capture.norms.map((n) => ({
              name: n.name,
              form: n.form,
              shape: n.input.shape,
              input: Array.from(n.input.data),
              output: Array.from(n.output.data),
            })),
          };
        } catch (error) {
          return { error: { name: error.name, message: error.message } };
        }
      };
      window.ready = true;
    </script>
  </head>
  <body></body>
</html>`;

/** A static server of the page, the package, onnxruntime-web's files and the models (ranges honoured). */
function startServer(): Promise<Server> {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (path === '/page.html') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(PAGE);
    if (path === '/not-a-model.onnx') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(PAGE);
    const prefix = Object.keys(SERVED).find((p) => path.startsWith(p));
    const rest = prefix ? normalize(path.slice(prefix.length)).replace(/^cut\//, '') : '';
    const file = prefix ? join(SERVED[prefix]!, rest) : '';
    if (!prefix || rest.startsWith('..') || !existsSync(file) || !statSync(file).isFile()) {
      return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
    let body = new Uint8Array(readFileSync(file));
    // /models/cut/<file>: the first half of it, as an interrupted download leaves it.
    if (path.startsWith('/models/cut/')) body = body.subarray(0, body.length >> 1);
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    const type = TYPES[extname(file)] ?? 'application/octet-stream';
    if (!range) return void res.writeHead(200, { 'Content-Type': type }).end(body);
    const [start, end] = [Number(range[1]), Math.min(Number(range[2]), body.length - 1)];
    res.writeHead(206, { 'Content-Type': type, 'Content-Range': `bytes ${start}-${end}/${body.length}` });
    res.end(body.subarray(start, end + 1));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

type Outcome = {
  same?: boolean;
  norms?: { name: string; form: string; shape: number[]; input: number[]; output: number[] }[];
  error?: { name: string; message: string };
};

let server: Server;
let origin: string;
test.beforeAll(async () => {
  server = await startServer();
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ortWeb.env.wasm.numThreads = 1;
});
test.afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function openPage(page: import('@playwright/test').Page) {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.context().route(/^(?!http:\/\/127\.0\.0\.1[:/])/, (route) => route.abort('blockedbyclient'));
  await page.goto(`${origin}/page.html`);
  await page.waitForFunction(() => (window as unknown as { ready?: boolean }).ready === true);
  return errors;
}

const run = (page: import('@playwright/test').Page, url: string, ids: readonly number[]) =>
  page.evaluate(
    ([u, i]) => (window as unknown as { capture(u: string, i: number[]): Promise<Outcome> }).capture(u, i),
    [url, [...ids]] as const,
  ) as Promise<Outcome>;

test('every tiny model: outputs unchanged, each norm captured as onnxruntime-web captures it in Node', async ({
  page,
}) => {
  const errors = await openPage(page);
  for (const m of MODELS) {
    const outcome = await run(page, `${origin}/models/${m.file}`, IDS);
    expect(outcome.error, m.file).toBeUndefined();
    expect(outcome.same, `${m.file}: the model's own outputs, bit for bit`).toBe(true);
    const node = await captureNorms(ortWeb, await readOnnxModel(readFileSync(join(SERVED['/models/']!, m.file))), IDS);
    expect(outcome.norms!.map((n) => [n.name, n.form, n.shape])).toEqual(
      node.norms.map((n) => [n.name, n.form, [1, IDS.length, 16]]),
    );
    outcome.norms!.forEach((n, k) => {
      const [input, output] = [node.norms[k]!.input.data, node.norms[k]!.output.data];
      expect(
        n.input.every((v, i) => Object.is(v, input[i])),
        `${m.file} ${n.name} input`,
      ).toBe(true);
      expect(
        n.output.every((v, i) => Object.is(v, output[i])),
        `${m.file} ${n.name} output`,
      ).toBe(true);
    });
  }
  expect(errors).toEqual([]);
});

test('bad input is a typed error, and the page captures again after it', async ({ page }) => {
  const errors = await openPage(page);
  const refusal = async (url: string, ids: readonly number[]) => (await run(page, url, ids)).error;
  const cut = await refusal(`${origin}/models/cut/gpt2-opset14.onnx`, IDS);
  const half = readFileSync(join(SERVED['/models/']!, 'gpt2-opset14.onnx')).length >> 1;
  expect(cut).toEqual({
    name: 'FormatError',
    message: `${origin}/models/cut/gpt2-opset14.onnx: invalid onnx: the file is truncated: it ends at byte ${half}, inside the graph of the ModelProto (from byte 19)`,
  });
  const html = await refusal(`${origin}/not-a-model.onnx`, IDS);
  expect(html?.name).toBe('FormatError');
  expect(html?.message).toContain(
    'invalid onnx: expected an ONNX model (a protobuf ModelProto), but it starts with 3c 21 64 6f 63 74 79 70 ("<!doctyp")',
  );
  expect((await refusal(`${origin}/models/norm-in-if.onnx`, IDS))?.message).toContain(
    'is inside the else_branch of If node "optimum::if"',
  );
  expect(await refusal(`${origin}/models/gpt2-opset14.onnx`, [3, 64])).toEqual({
    name: 'RangeError',
    message:
      'captureNorms: tokens[1] must be an integer in [0, 64) (the vocabulary: the rows of transformer.wte.weight), got number 64',
  });
  const again = await run(page, `${origin}/models/gpt2-opset14.onnx`, IDS);
  expect(again.same).toBe(true);
  expect(again.norms).toHaveLength(5);
  expect(errors).toEqual([]);
});
