/**
 * What the page asks of its engine worker and what comes back. Every computation on activations
 * (generating, parsing, normalizing, checking, timing) runs in the worker, so the page's main
 * thread only draws; these types are the whole contract between the two.
 */
import type { DEFAULT_NORM, FormOf, NormForm, NormKind } from 'layernorm-wasm';
import type { Explanation, ExplainerWeights } from 'layernorm-wasm/explainer';

/** Files above this are refused. */
export const MAX_FILE_BYTES = 1_000_000_000;
/** .npy files above this are read in slices instead of whole (and get the progress card). */
export const STREAM_BYTES = 16 << 20;

/**
 * What the visitor picks (β or not) for a checkpoint of the default norm, LayerNorm; a checkpoint
 * of another norm runs in that norm's form.
 */
export type Preset = FormOf<typeof DEFAULT_NORM>;
/** The kind of norm a checkpoint holds, as the package's loader reports it. */
export type { NormKind };

/** Where a checkpoint's config.json comes from, when the visitor gives it. */
export type ConfigRequest = { kind: 'url'; url: string } | { kind: 'file'; file: File };

/** `weight`: the gain tensor's name, when the visitor picked it among the checkpoint's norms. */
export type WeightsRequest =
  | { kind: 'gpt2' }
  | { kind: 'url'; url: string; config?: ConfigRequest; weight?: string }
  | { kind: 'file'; file: File; config?: ConfigRequest; weight?: string }
  | { kind: 'synthetic'; seed: number; d: number };

export interface WeightsInfo {
  /** Increases with every set of weights the engine accepts; results name the weights they used. */
  id: number;
  gamma: Float32Array;
  beta: Float32Array | null;
  d: number;
  /** Stored dtype, e.g. "F32", "F16", "BF16". */
  dtype: string;
  bytesRead: number;
  /** Size of the whole file, when known. */
  total: number | null;
  /** As the checkpoint says (a Llama GGUF, config.json's rms_norm_eps: RMSNorm); GPT-2's LayerNorm otherwise. */
  norm: NormKind;
  /** The gain's tensor name in the checkpoint, e.g. "ln_f.weight" or "output_norm.weight" (null: synthetic). */
  tensor: string | null;
  /** ε as the checkpoint states it (GGUF metadata, config.json); null when it does not say. */
  eps: number | null;
  /** e.g. 'gpt2', when the checkpoint says. */
  architecture: string | null;
  /** What the loader could not tell and assumed (a family outside its table), one sentence each. */
  warnings: string[];
}

export interface LayerParams {
  eps: number;
  /**
   * The norm's form: GPT-2's ln_f (γ and β), the bias-free LayerNorm (γ only, as LDLM's final
   * norm), or RMSNorm (γ only, no centring), which runs when the checkpoint holds one. Asked: the
   * form picked; in a result: the form that ran (engine/form.ts).
   */
  form: NormForm;
}

export type ActivationSource =
  | { kind: 'generate'; B: number; T: number; seed: number; d: number }
  | { kind: 'text'; text: string; name: string }
  | { kind: 'file'; file: File; tokens: File | null };

export interface ActivationsInfo {
  /** Increases with every set of activations the worker accepts. */
  id: number;
  shape: number[];
  rows: number;
  d: number;
  label: string;
  origin: 'generated' | 'pasted' | 'file';
  /** Too large to hold: read from the file in slices whenever it is needed. */
  streamed: boolean;
  bytes: number;
  dtype: string;
  /** One string per row, when the activations came with token strings. */
  tokens: string[] | null;
  /** Why given tokens were not used (e.g. a count that does not match the rows). */
  tokensNote: string | null;
  gen: { B: number; T: number; seed: number } | null;
}

export interface ReferenceCheck {
  /** Elements finite in both outputs, the ones the error figures are about. */
  compared: number;
  maxAbs: number;
  maxSulp: number;
  /** Flat index of the largest absolute error, −1 when nothing was compared. */
  worstIndex: number;
  /** Compared elements whose float32 bits equal the reference's. */
  bitIdentical: number;
  /** Non-finite in both, of the same class (NaN/NaN, +Inf/+Inf, −Inf/−Inf). */
  nonFiniteBoth: number;
  /** Finite on one side only, or non-finite of different classes. */
  nonFiniteMismatches: number;
  /** Counts of sULP in the bins of ULP_BIN_LABELS. */
  histogram: number[];
}

export interface ComputeResult {
  actId: number;
  weightsId: number;
  params: LayerParams;
  shape: number[];
  rows: number;
  d: number;
  /** The rows drawn in the heatmap and listed in the statistics table (all rows up to 256). */
  sampleRows: Int32Array;
  sampleIn: Float32Array;
  sampleOut: Float32Array;
  /**
   * Per sampled row, from the module in float64: the mean μ (a centred norm's only, NORMS[norm].centred),
   * the norm's moment (LayerNorm's σ², RMSNorm's mean(x²)) and 1/√(moment + ε).
   */
  stats: { norm: NormKind; mean: Float64Array | null; moment: Float64Array; rstd: Float64Array };
  output: { min: number; max: number; meanAbs: number; nonFinite: number };
  /** Rows whose input holds NaN or ±Inf: how many, and the first few. */
  nonFiniteRows: { count: number; first: number[] };
  reference: ReferenceCheck;
  ms: number;
  kernelMs: number;
}

/** One row explained for the page's <layernorm-explainer>, with the weights it sent (γ = 1 without). */
export interface StagesRequest {
  /** The activations it is about (the engine may hold newer ones by then). */
  actId: number;
  row: number;
  gamma: Float32Array | null;
  beta: Float32Array | null;
  eps: number;
  norm: NormKind;
}

export interface StagesResult {
  actId: number;
  explanation: Explanation;
}

export interface ScalarResult {
  actId: number;
  weightsId: number;
  params: LayerParams;
  kernel: string;
  otherKernel: string;
  total: number;
  differing: number;
  first: { index: number; ours: number; scalar: number } | null;
}

export interface ExpectedInfo {
  id: number;
  name: string;
  shape: number[];
  dtype: string;
  bytes: number;
}

export type ToleranceMode = 'allclose' | 'ulp';

export interface Tolerance {
  /** allclose: |y − e| ≤ atol + rtol·|e|; ulp: sULP ≤ ulp. */
  mode: ToleranceMode;
  atol: number;
  rtol: number;
  ulp: number;
}

/** The values at one element, for the side-by-side view. */
export interface ElementView {
  row: number;
  feature: number;
  x: number;
  ours: number;
  expected: number;
  exact: number;
  /** this library against the expected value */
  abs: number;
  sulp: number;
  /** sULP of each output from the exact value (NaN when not both finite). */
  oursFromExact: number;
  expectedFromExact: number;
}

export interface ExactCheck {
  compared: number;
  maxAbs: number;
  maxSulp: number;
  bitIdentical: number;
  nonFiniteMismatches: number;
}

export interface LabFileResult {
  id: number;
  name: string;
  shape: number[];
  /** Set when the shapes differ: how they differ; then nothing else is compared. */
  shapeError: string | null;
  /** Set when the shapes are equal only after dropping axes of size 1. */
  shapeNote: string | null;
  rows: number;
  values: number;
  failingValues: number;
  failingRows: number;
  maxAbs: number;
  maxSulp: number;
  /** Where the largest sULP is: often not the worst element by the pass rule (one near 0). */
  maxSulpAt: { row: number; feature: number; ours: number; expected: number; abs: number } | null;
  nonFiniteBoth: number;
  nonFiniteMismatches: number;
  worst: ElementView | null;
  /** The expected file against the correctly rounded reference, like this library's own check. */
  vsExact: ExactCheck;
  pass: boolean;
}

export interface LabResult {
  actId: number;
  weightsId: number;
  params: LayerParams;
  tolerance: Tolerance;
  ours: ExactCheck;
  files: LabFileResult[];
}

export type LabSort = 'row' | 'abs' | 'ulp';

export interface LabRowsQuery {
  fileId: number;
  sort: LabSort;
  failingOnly: boolean;
  offset: number;
  limit: number;
}

export interface LabRow {
  row: number;
  feature: number;
  abs: number;
  sulp: number;
  pass: boolean;
  ours: number;
  expected: number;
}

export interface LabRowsPage {
  fileId: number;
  total: number;
  offset: number;
  rows: LabRow[];
}

export interface DownloadResult {
  blob: Blob;
  name: string;
}

export interface TimingResult {
  shape: number[];
  msPerCall: number;
  bytes: number;
}

export interface BenchResult {
  runs: number;
  wasmMs: number;
  jsMs: number;
  values: number;
}

export interface Progress {
  phase: string;
  done: number;
  total: number;
}

/** Where the text card's model comes from: GPT-2 small from the Hub, another URL, or a local file. */
export type TextModelSource = { kind: 'hub' } | { kind: 'url'; url: string } | { kind: 'file'; file: File };

export interface TextRunRequest {
  text: string;
  model: TextModelSource;
}

/** One captured norm as the text card shows it: its weights, and σ and max|x| of its input per token. */
export interface TextNorm {
  name: string;
  index: number;
  norm: NormKind;
  form: NormForm;
  d: number;
  eps: number;
  gamma: Float32Array;
  beta: Float32Array | null;
  /** Per token: the input row's standard deviation and its largest |x| (float64). */
  sigma: Float64Array;
  maxAbs: Float64Array;
}

export interface TextRunResult {
  /** Increases with every run; explain and lab requests name the run they are about. */
  runId: number;
  ids: number[];
  tokens: string[];
  norms: TextNorm[];
  model: { source: string; bytes: number; cached: boolean; tokenizerCached: boolean };
}

export interface TextStagesRequest {
  runId: number;
  norm: number;
  row: number;
  weights: ExplainerWeights | null;
  eps: number;
}

/** How one output compares with the exact answer on one token (or all of them). */
export interface TextCheck {
  maxSulp: number;
  maxAbs: number;
  nonFiniteMismatches: number;
  /** Where the largest absolute error is (compareOutputs' worstIndex), with both values; null when nothing was compared. */
  worst: { row: number; feature: number; value: number; exact: number } | null;
}

export interface TextLabResult {
  runId: number;
  norm: number;
  /** This package's output, onnxruntime-web's own norm output, and PyTorch's .npy when given: per token, then over all. */
  rows: { ours: TextCheck; ort: TextCheck; torch: TextCheck | null }[];
  total: { ours: TextCheck; ort: TextCheck; torch: TextCheck | null };
  torchName: string | null;
}

/** The engine's operations: argument and result of each. */
export interface EngineApi {
  init: { args: null; result: { backend: string; kernel: string } };
  /** Reads γ and β (a few KB of a checkpoint); they replace the engine's weights only if no newer load started. */
  loadWeights: { args: WeightsRequest; result: WeightsInfo };
  loadActivations: { args: ActivationSource; result: ActivationsInfo };
  /** Forgets activations read but not yet normalized (a cancelled large file). */
  discardPending: { args: null; result: null };
  compute: { args: LayerParams; result: ComputeResult };
  stages: { args: StagesRequest; result: StagesResult };
  scalar: { args: LayerParams; result: ScalarResult };
  addExpected: { args: { file: File }; result: ExpectedInfo };
  removeExpected: { args: { id: number }; result: null };
  lab: { args: LayerParams & { tolerance: Tolerance }; result: LabResult };
  labRows: { args: LabRowsQuery; result: LabRowsPage };
  download: { args: { format: 'npy' | 'json' }; result: DownloadResult };
  timing: { args: LayerParams; result: TimingResult };
  bench: { args: LayerParams; result: BenchResult };
  /** Tokenizes the text, runs the model on it (downloading it once) and keeps what each norm saw. */
  textRun: { args: TextRunRequest; result: TextRunResult };
  textStages: { args: TextStagesRequest; result: Explanation };
  /** One norm of the run against the exact answer, per token; `torch`: PyTorch's output of it as .npy. */
  textLab: { args: { runId: number; norm: number; torch: File | null }; result: TextLabResult };
  /** One norm's captured input as .npy ([tokens, d]), for the reader to run PyTorch's norm on. */
  textInput: { args: { runId: number; norm: number }; result: DownloadResult };
}

export type Operation = keyof EngineApi;

export type EngineRequest =
  { [K in Operation]: { type: K; id: number; args: EngineApi[K]['args'] } }[Operation] | { type: 'cancel'; id: number };

export type EngineReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: EngineErrorInfo }
  | { id: number; progress: Progress };

export interface EngineErrorInfo {
  name: string;
  message: string;
  /** A network failure without an HTTP answer: trying again may help. */
  network?: boolean;
  /** A checkpoint that does not say which of its norms is the final one: their gains, to pick from. */
  candidates?: string[];
}

/** The package's accuracy promise in sULP (README, "Numerics contract"; web/docs/numerics.md proves it). */
export const PROMISED_SULP = 6.5;

/** Histogram bins of sULP, as upper bounds, and their labels: the first six within the promise. */
export const ULP_BINS = [0, 0.5, 1, 2, 4, PROMISED_SULP, Infinity] as const;
export const ULP_BIN_LABELS = ['0', '≤ ½', '≤ 1', '≤ 2', '≤ 4', '≤ 6.5', '> 6.5'];
