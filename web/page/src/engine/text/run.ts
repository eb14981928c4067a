/**
 * The text card's work in the engine worker: the reader's text tokenized with GPT-2's tokenizer,
 * the model downloaded once (or read from a file), run with onnxruntime-web here in the worker,
 * and every norm's input and onnxruntime's own output of it captured with layernorm-wasm/onnx.
 * The capture stays here; the page asks for one token explained, one norm checked, by run id.
 * This module, onnxruntime-web and its WebAssembly load only when the reader asks for a run.
 */
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';
import type { LayerNormRuntime } from 'layernorm-wasm';
import type { Explanation } from 'layernorm-wasm/explainer';
import { explainRow } from 'bundled:layernorm-wasm';
import { writeNpy } from 'layernorm-wasm/io';
import {
  createNormCapture,
  readOnnxModel,
  type Capture,
  type NormCapture,
  type OnnxRuntime,
} from 'layernorm-wasm/onnx';
import type { Job } from '../compute';
import type { DownloadResult, TextNorm, TextRunRequest, TextRunResult, TextStagesRequest } from '../protocol';
import { readTokenizer, type Tokenizer } from './bpe';
import { download } from './download';
import { HUB_MODEL, HUB_TOKENIZER } from './hub';

/** The tokenizer beside a model at the Hub's layout (…/resolve/<revision>/[onnx/]x.onnx), else GPT-2's. */
export function tokenizerUrlFor(modelUrl: string): string {
  const m = /^(.*\/resolve\/[^/]+\/)(?:onnx\/)?[^/]+$/.exec(modelUrl);
  return m ? `${m[1]}tokenizer.json` : HUB_TOKENIZER;
}

/** Text the card cannot run: said to the reader as it is. */
export class TextInputError extends Error {
  override name = 'TextInputError';
}

type Ort = typeof import('onnxruntime-web/wasm');
let ortModule: Promise<Ort> | null = null;
async function loadOrt(): Promise<Ort> {
  const ort = await import('onnxruntime-web/wasm');
  // One thread: the page is not cross-origin isolated, so there is no SharedArrayBuffer.
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = { wasm: ortWasmUrl };
  return ort;
}

const tokenizers = new Map<string, Tokenizer>();
/** The open session of the last model run, reused while the reader keeps the same model. */
let open: { key: string; capture: NormCapture; bytes: number; source: string; cached: boolean } | null = null;
let held: { runId: number; capture: Capture } | null = null;
let runs = 0;

function modelKey(req: TextRunRequest): string {
  const m = req.model;
  if (m.kind === 'file') return `file:${m.file.name}:${m.file.size}:${m.file.lastModified}`;
  return m.kind === 'hub' ? HUB_MODEL : m.url;
}

async function tokenizerFor(url: string, job: Job): Promise<{ tokenizer: Tokenizer; cached: boolean }> {
  const known = tokenizers.get(url);
  if (known) return { tokenizer: known, cached: true };
  const got = await download(url, 'the tokenizer', job.signal, (done, total) =>
    job.progress({ phase: 'tokenizer', done, total }),
  );
  const tokenizer = readTokenizer(new TextDecoder().decode(got.bytes), url);
  tokenizers.set(url, tokenizer);
  return { tokenizer, cached: got.cached };
}

async function sessionFor(req: TextRunRequest, job: Job): Promise<NonNullable<typeof open>> {
  const key = modelKey(req);
  if (open?.key === key) return open;
  // A load that failed (a network error fetching its wasm) is tried again with the next run.
  const ort = (ortModule ??= loadOrt().catch((e: unknown) => {
    ortModule = null;
    throw e;
  }));
  // It loads while the model downloads; a failure is reported where it is awaited, below.
  ort.catch(() => undefined);
  let bytes: Uint8Array | Blob;
  let cached = false;
  let source: string;
  if (req.model.kind === 'file') {
    bytes = req.model.file;
    source = req.model.file.name;
  } else {
    source = req.model.kind === 'hub' ? HUB_MODEL : req.model.url;
    const got = await download(source, 'the model', job.signal, (done, total) =>
      job.progress({ phase: 'model', done, total }),
    );
    ({ bytes, cached } = got);
  }
  job.signal.throwIfAborted();
  job.progress({ phase: 'session', done: 0, total: 0 });
  const model = await readOnnxModel(bytes);
  const capture = await createNormCapture((await ort) as unknown as OnnxRuntime, model, {
    sessionOptions: { executionProviders: ['wasm'] },
  });
  await open?.capture.release();
  open = { key, capture, bytes: model.bytes.length, source, cached };
  return open;
}

/** σ (population) and max|x| of each row of a norm's input, in float64. */
function rowStats(x: Float32Array, d: number): { sigma: Float64Array; maxAbs: Float64Array } {
  const rows = x.length / d;
  const sigma = new Float64Array(rows);
  const maxAbs = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    let sum = 0;
    let peak = 0;
    for (let i = r * d; i < (r + 1) * d; i++) {
      sum += x[i]!;
      peak = Math.max(peak, Math.abs(x[i]!));
    }
    const mean = sum / d;
    let sq = 0;
    for (let i = r * d; i < (r + 1) * d; i++) sq += (x[i]! - mean) ** 2;
    sigma[r] = Math.sqrt(sq / d);
    maxAbs[r] = peak;
  }
  return { sigma, maxAbs };
}

export async function runText(req: TextRunRequest, job: Job): Promise<TextRunResult> {
  if (typeof req.text !== 'string' || req.text.length === 0) {
    throw new TextInputError('Type some text first: an empty text has no tokens to run.');
  }
  const tokenizerUrl = req.model.kind === 'url' ? tokenizerUrlFor(req.model.url) : HUB_TOKENIZER;
  const { tokenizer, cached: tokenizerCached } = await tokenizerFor(tokenizerUrl, job);
  const { ids, tokens } = tokenizer.encode(req.text);
  const session = await sessionFor(req, job);
  job.signal.throwIfAborted();
  job.progress({ phase: 'run', done: 0, total: ids.length });
  const capture = await session.capture.run(ids);
  const runId = ++runs;
  held = { runId, capture };
  const norms: TextNorm[] = capture.norms.map((n) => ({
    name: n.name,
    index: n.index,
    norm: n.norm,
    form: n.form,
    d: n.d,
    eps: n.eps,
    // Copies: results move to the page, and the capture keeps its own.
    gamma: n.gamma.slice(),
    beta: n.beta?.slice() ?? null,
    ...rowStats(n.input.data, n.d),
  }));
  return {
    runId,
    ids,
    tokens,
    norms,
    model: { source: session.source, bytes: session.bytes, cached: session.cached, tokenizerCached },
  };
}

/** The run a request names, if it is still the one held. */
export function heldRun(runId: number): Capture {
  if (!held || held.runId !== runId) throw new TextInputError('This run has been replaced by a newer one.');
  return held.capture;
}

export function normOf(capture: Capture, index: number): Capture['norms'][number] {
  const n = capture.norms[index];
  if (!n) throw new RangeError(`Norm ${index} does not exist: this model has ${capture.norms.length} norms.`);
  return n;
}

export function explainText(rt: LayerNormRuntime, req: TextStagesRequest): Explanation {
  const n = normOf(heldRun(req.runId), req.norm);
  return explainRow(rt, n.input.data, n.d, req.row, req.weights, req.eps);
}

/** A norm's captured input as .npy, one row of d per token, named after the norm. */
export function inputNpy(args: { runId: number; norm: number }): DownloadResult {
  const n = normOf(heldRun(args.runId), args.norm);
  const npy = writeNpy(n.input.data, [n.rows, n.d]);
  return {
    blob: new Blob([npy as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }),
    name: `${n.name}.input.npy`,
  };
}
