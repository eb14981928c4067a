/// <reference lib="webworker" />
/**
 * The page's engine: owns the runtime, the weights, the activations and every result, and answers
 * the requests in protocol.ts. Long jobs (a large file, the lab) walk the rows in slices and yield
 * between them, so a newer request can cancel them.
 */
import { init, type LayerNormRuntime } from 'layernorm-wasm';
import { median } from './checks';
import { CancelledError, compute, explainStages, type Job, type Output } from './compute';
import type { Lab } from './lab';
import { createNorm, normFor, type Weights } from './norm';
import type { EngineApi, EngineReply, EngineRequest, LayerParams, Operation } from './protocol';
import type { Source } from './held';
import { openSource } from './sources';
import { readWeights } from './weights';
import { WeightsError } from './weights-error';

declare const self: DedicatedWorkerGlobalScope;

let runtime: Promise<LayerNormRuntime> | null = null;
let scalarRuntime: Promise<LayerNormRuntime> | null = null;
let weights: Weights | null = null;
/** Only the newest weights request may replace the weights. */
let weightsLoads = 0;
/** The activations in use, and the last output computed from them. */
let current: { source: Source; output: Output | null; params: LayerParams | null; weightsId: number } | null = null;
/** Activations read but not yet normalized: they replace `current` once a compute finishes. */
let pending: Source | null = null;
/** The correctness lab, loaded with the first expected output. */
let labModule: Promise<typeof import('./lab')> | null = null;
let labInstance: Lab | null = null;
async function theLab(): Promise<{
  lab: Lab;
  openExpected: (f: File) => ReturnType<typeof import('./lab').openExpected>;
}> {
  const m = await (labModule ??= import('./lab'));
  labInstance ??= new m.Lab();
  return { lab: labInstance, openExpected: m.openExpected };
}
/** The text card's model runs, with onnxruntime-web: loaded with the first run the reader asks for. */
let textModule: Promise<typeof import('./text/operations')> | null = null;
type TextOperation = Extract<Operation, `text${string}`>;
/** A text operation: its handler is the module's function of the same name. */
const textOp =
  (op: TextOperation): Handler<TextOperation> =>
  async (args, job) =>
    (await (textModule ??= import('./text/operations')))[op](await rt(), args as never, job) as never;
const jobs = new Map<number, Job>();
const aborts = new Map<number, AbortController>();

const rt = () => (runtime ??= init());
/** What only a later click asks for (the scalar comparison, the benchmark, downloads): loaded then. */
let laterModule: Promise<typeof import('./later')> | null = null;
const later = () => (laterModule ??= import('./later'));

function needWeights(): Weights {
  if (!weights) throw new Error('No weights loaded yet.');
  return weights;
}

function needCurrent(): NonNullable<typeof current> {
  if (!current) throw new Error('No activations normalized yet.');
  return current;
}

function checkWidth(src: Source, w: Weights): void {
  const { d, shape, label } = src.info;
  if (d !== w.d) {
    throw new RangeError(
      `Shape mismatch: ${label} is [${shape.join(', ')}], with d = ${d} in the last axis, but the weights have d = ${w.d}. The last axis must equal d.`,
    );
  }
}

type Handler<K extends Operation> = (args: EngineApi[K]['args'], job: Job) => Promise<EngineApi[K]['result']>;

const handlers: { [K in Exclude<Operation, TextOperation>]: Handler<K> } = {
  async init() {
    const r = await rt();
    return { backend: r.backend, kernel: r.kernel };
  },

  async loadWeights(args, job) {
    const mine = ++weightsLoads;
    const info = await readWeights(args, job.signal, (read) =>
      job.progress({ phase: 'weights', done: read, total: 0 }),
    );
    if (job.cancelled || mine !== weightsLoads) throw new CancelledError();
    weights = { id: info.id, gamma: info.gamma, beta: info.beta, d: info.d, norm: info.norm };
    // The page gets its own copy: the engine keeps these.
    return { ...info, gamma: info.gamma.slice(), beta: info.beta?.slice() ?? null };
  },

  async loadActivations(args, job) {
    const source = await openSource(args);
    if (weights) checkWidth(source, weights);
    if (job.cancelled) throw new CancelledError();
    pending = source;
    return source.info;
  },

  async discardPending() {
    pending = null;
    return null;
  },

  async compute(params, job) {
    const w = needWeights();
    const source = pending ?? current?.source;
    if (!source) throw new Error('No activations yet.');
    try {
      checkWidth(source, w);
      const { result, output } = await compute(await rt(), source, w, params, job);
      if (source === pending) pending = null;
      current = { source, output, params, weightsId: w.id };
      return result;
    } catch (e) {
      // A cancelled run keeps everything for the next request; a failed one drops what it read.
      if (!(e instanceof CancelledError)) {
        if (source === pending) pending = null;
        else if (current) current.output = null;
      }
      throw e;
    }
  },

  async stages(args) {
    // The activations the explainer shows: normalized already, or read and waiting for weights.
    const source = [current?.source, pending].find((s) => s?.info.id === args.actId);
    if (!source) throw new Error('These activations have been replaced.');
    return { actId: args.actId, explanation: await explainStages(await rt(), source, args) };
  },

  async scalar(params, job) {
    const c = needCurrent();
    const w = needWeights();
    const [ours, scalar, { compareScalar }] = await Promise.all([
      rt(),
      (scalarRuntime ??= init({ backend: 'scalar' })),
      later(),
    ]);
    return compareScalar(ours, scalar, c.source, w, params, job);
  },

  async addExpected(args) {
    const { lab, openExpected } = await theLab();
    const f = await openExpected(args.file);
    lab.add(f);
    return f.info;
  },

  async removeExpected(args) {
    (await theLab()).lab.remove(args.id);
    return null;
  },

  async lab(args, job) {
    const c = needCurrent();
    const { tolerance, ...params } = args;
    return (await theLab()).lab.run(await rt(), c.source, needWeights(), params, tolerance, job);
  },

  async labRows(args) {
    return (await theLab()).lab.rowsPage(args);
  },

  async download(args) {
    const c = needCurrent();
    if (!c.output) throw new Error('No output yet.');
    return (await later()).download(c.source.info, c.output, args.format);
  },

  async timing(params) {
    const c = needCurrent();
    const x = c.source.data;
    if (!x || x.length > 4_000_000) throw new Error('Timing is skipped for inputs this large.');
    const r = await rt();
    const layer = createNorm(r, c.source.info.d, normFor(needWeights(), params));
    const y = new Float32Array(x.length);
    try {
      return { shape: c.source.info.shape, msPerCall: timeCall(() => layer.forward(x, y)), bytes: x.length * 8 };
    } finally {
      layer.dispose();
    }
  },

  async bench(params, job) {
    return (await later()).bench(await rt(), weights, params, job);
  },
};

/** Median time of one call, over batches long enough for the timer's resolution. */
function timeCall(fn: () => void, budgetMs = 120): number {
  fn();
  let reps = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) fn();
    if (performance.now() - t0 >= 4 || reps >= 1 << 16) break;
    reps *= 4;
  }
  const samples: number[] = [];
  const start = performance.now();
  while (samples.length < 3 || (samples.length < 15 && performance.now() - start < budgetMs)) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) fn();
    samples.push((performance.now() - t0) / reps);
  }
  return median(samples);
}

/** Typed arrays in a result move to the page instead of being copied. */
function transferables(value: unknown, out: Transferable[] = [], depth = 0): Transferable[] {
  if (value === null || typeof value !== 'object' || depth > 3) return out;
  if (ArrayBuffer.isView(value)) {
    const buf = value.buffer;
    if (buf instanceof ArrayBuffer && !out.includes(buf)) out.push(buf);
    return out;
  }
  for (const v of Object.values(value)) transferables(v, out, depth + 1);
  return out;
}

const post = (reply: EngineReply, transfer: Transferable[] = []) => self.postMessage(reply, transfer);

self.onmessage = (e: MessageEvent<EngineRequest>) => {
  const req = e.data;
  if (req.type === 'cancel') {
    const job = jobs.get(req.id);
    if (job) {
      job.cancelled = true;
      aborts.get(req.id)?.abort(new CancelledError());
    }
    return;
  }
  const controller = new AbortController();
  aborts.set(req.id, controller);
  const job: Job = {
    cancelled: false,
    signal: controller.signal,
    progress: (p) => post({ id: req.id, progress: p }),
  };
  jobs.set(req.id, job);
  const handler = (
    req.type.startsWith('text') ? textOp(req.type as TextOperation) : handlers[req.type as keyof typeof handlers]
  ) as Handler<Operation>;
  handler(req.args as never, job)
    .then((value) => {
      // Results hold fresh arrays only (never the weights or a held input): move them, don't copy.
      post({ id: req.id, ok: true, value }, transferables(value));
    })
    .catch((err: unknown) => {
      const error =
        err instanceof WeightsError
          ? { name: err.name, message: err.message, network: err.network, candidates: err.candidates }
          : err instanceof Error
            ? { name: err.name, message: err.message }
            : { name: 'Error', message: String(err) };
      post({ id: req.id, ok: false, error });
    })
    .finally(() => {
      jobs.delete(req.id);
      aborts.delete(req.id);
    });
};
