/**
 * Running a model in the caller's onnxruntime and keeping what its norms saw: createNormCapture
 * exposes the chosen norms and opens one session, whose run(tokens) feeds every input the graph
 * declares and returns each norm's input and the runtime's own output of it; captureNorms does
 * the three steps once. Token ids are checked against the model before anything runs.
 */
import { DisposedError } from '../errors.js';
import { FormatError } from '../io/errors.js';
import { RULES } from '../checks/rules.js';
import { checkModel, exposeSelected } from './expose.js';
import { feedsFor } from './feeds.js';
import { PROBLEMS } from './problems.js';
import { checkTokens } from './tokens.js';
import type { OnnxRuntime, OrtSession, OrtTensor } from './runtime-types.js';
import type {
  Capture,
  CapturedNorm,
  CapturedTensor,
  ExposedModel,
  NormSelection,
  OnnxModel,
  OutputTensor,
} from './types.js';

export interface CaptureOptions {
  /** The norms to capture, by name or index; default all (ignored for a model exposeNorms returned). */
  norms?: NormSelection;
  /** Given to `InferenceSession.create` as they are: executionProviders, graphOptimizationLevel, … */
  sessionOptions?: object;
}

export interface CaptureRunOptions {
  /** Tensors for inputs capture cannot fill itself (e.g. inputs_embeds), or fills otherwise; by input name. */
  feeds?: Readonly<Record<string, OrtTensor>>;
}

/** An open session of an exposed model: one run per text. */
export interface NormCapture {
  readonly model: OnnxModel;
  /** The norms each run captures, in graph order. */
  readonly norms: ExposedModel['norms'];
  /** Runs the model on these token ids (an array or typed array of integers) and keeps what the norms saw. */
  run(tokens: ArrayLike<number | bigint>, options?: CaptureRunOptions): Promise<Capture>;
  /** Releases the runtime's session (idempotent). */
  release(): Promise<void>;
}

const MODEL_OR_EXPOSED = 'a model from readOnnxModel() or exposeNorms()';

const isExposed = (m: unknown): m is ExposedModel =>
  typeof m === 'object' && m !== null && 'model' in m && 'bytes' in m && 'norms' in m;

/** Checks `ort` is an onnxruntime module: a TypeError saying what to pass otherwise. */
function checkRuntime(fn: string, ort: unknown): OnnxRuntime {
  const o = ort as Partial<OnnxRuntime> | null;
  if (
    typeof o !== 'object' ||
    o === null ||
    typeof o.InferenceSession?.create !== 'function' ||
    typeof o.Tensor !== 'function'
  ) {
    throw new TypeError(
      RULES.mustBe(fn, 'ort', 'the onnxruntime-web or onnxruntime-node module, as import * as ort gives it', ort),
    );
  }
  return o as OnnxRuntime;
}

/**
 * Exposes the model's norms (a model from readOnnxModel, or one exposeNorms already returned) and
 * opens a session of it in `ort`.
 */
export async function createNormCapture(
  ort: OnnxRuntime,
  model: OnnxModel | ExposedModel,
  options?: CaptureOptions,
): Promise<NormCapture> {
  const fn = 'createNormCapture';
  const runtime = checkRuntime(fn, ort);
  const o = checkCaptureOptions(fn, options);
  const inner = checkModel(fn, isExposed(model) ? model.model : model, MODEL_OR_EXPOSED);
  const exposed = isExposed(model) ? model : exposeSelected(fn, model, inner, o.norms);
  if (!(exposed.bytes instanceof Uint8Array)) {
    throw new TypeError(RULES.mustBe(fn, 'model.bytes', 'the Uint8Array exposeNorms() made', exposed.bytes));
  }
  const session = await runtime.InferenceSession.create(exposed.bytes, o.sessionOptions);
  let released = false;
  return {
    model: exposed.model,
    norms: exposed.norms,
    run: async (tokens, runOptions) => {
      const run = 'NormCapture.run';
      if (released)
        throw new DisposedError(`${run}: this capture was released; create a new one with createNormCapture()`);
      const ids = checkTokens(run, tokens, exposed.model);
      const given = checkRunOptions(run, runOptions);
      const feeds = feedsFor(runtime, exposed.model, inner, ids, given);
      const out = await session.run(feeds);
      return collect(exposed, ids, out, feeds);
    },
    release: async () => {
      if (released) return;
      released = true;
      await session.release();
    },
  };
}

/** createNormCapture, one run, release: a model's norms on one text. */
export async function captureNorms(
  ort: OnnxRuntime,
  model: OnnxModel | ExposedModel,
  tokens: ArrayLike<number | bigint>,
  options?: CaptureOptions & CaptureRunOptions,
): Promise<Capture> {
  const fn = 'captureNorms';
  checkRuntime(fn, ort);
  const o = checkCaptureOptions(fn, options);
  checkModel(fn, isExposed(model) ? model.model : model, MODEL_OR_EXPOSED);
  // The ids are checked before a session is made, so that a wrong id costs no model load.
  checkTokens(fn, tokens, isExposed(model) ? model.model : model);
  checkRunOptions(fn, options);
  const capture = await createNormCapture(ort, model, o);
  try {
    return await capture.run(tokens, { feeds: o.feeds as CaptureRunOptions['feeds'] });
  } finally {
    await capture.release();
  }
}

function checkCaptureOptions(fn: string, options: unknown): CaptureOptions & Record<string, unknown> {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') throw new TypeError(RULES.mustBe(fn, 'options', 'an object', options));
  const o = options as CaptureOptions & Record<string, unknown>;
  if (o.sessionOptions !== undefined && (typeof o.sessionOptions !== 'object' || o.sessionOptions === null)) {
    throw new TypeError(
      RULES.mustBe(fn, 'sessionOptions', "an object (InferenceSession.create's options)", o.sessionOptions),
    );
  }
  return o;
}

function checkRunOptions(fn: string, options: unknown): Readonly<Record<string, OrtTensor>> {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') throw new TypeError(RULES.mustBe(fn, 'options', 'an object', options));
  const feeds = (options as CaptureRunOptions).feeds;
  if (feeds === undefined) return {};
  if (typeof feeds !== 'object' || feeds === null) {
    throw new TypeError(RULES.mustBe(fn, 'feeds', "an object of the runtime's tensors by input name", feeds));
  }
  return feeds;
}

/** The norms' tensors and the model's own outputs out of a run's results. */
function collect(
  exposed: ExposedModel,
  ids: readonly number[],
  out: { readonly [name: string]: unknown },
  feeds: Readonly<Record<string, OrtTensor>>,
): Capture {
  const source = exposed.model.source;
  const tensor = (name: string): CapturedTensor => {
    const t = (out[name] ?? feeds[name]) as OrtTensor | undefined;
    if (!t || !(t.data instanceof Float32Array)) {
      // The values are float32 where the model states their type (norms.ts): only a runtime that
      // answers otherwise gets here.
      throw new FormatError('onnx', PROBLEMS.runtimeOutput(name, t ? `a ${t.type} tensor` : 'no tensor'), { source });
    }
    return { data: t.data, shape: [...t.dims] };
  };
  const norms: CapturedNorm[] = exposed.norms.map((n) => {
    const input = tensor(n.values.input);
    return { ...n, input, output: tensor(n.values.output), rows: input.data.length / n.d };
  });
  const outputs: Record<string, OutputTensor> = {};
  for (const o of exposed.model.outputs) {
    const t = out[o.name] as OrtTensor | undefined;
    if (t) outputs[o.name] = { type: t.type, data: t.data as OutputTensor['data'], shape: [...t.dims] };
  }
  return { ids, tokens: ids.length, norms, outputs };
}
