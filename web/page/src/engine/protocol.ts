/**
 * What the page asks of its engine worker and what comes back. Every computation on activations
 * (generating, parsing, normalizing, checking, timing) runs in the worker, so the page's main
 * thread only draws; these types are the whole contract between the two.
 */
import type { NormForm, NormKind } from 'layernorm-wasm';

/** Files above this are refused. */
export const MAX_FILE_BYTES = 1_000_000_000;
/** .npy files above this are read in slices instead of whole (and get the progress card). */
export const STREAM_BYTES = 16 << 20;

/**
 * The norm a result was made with: GPT-2's ln_f (γ and β), the bias-free variant (γ only, as
 * LDLM's final norm), or RMSNorm (γ only, no centring), which runs when the checkpoint holds one.
 */
export type Variant = NormForm;
/** What the visitor picks for a LayerNorm checkpoint; an RMSNorm checkpoint decides for itself. */
export type Preset = Exclude<Variant, 'rmsnorm'>;
/** The kind of norm a checkpoint holds, as the package's loader reports it. */
export type { NormKind };

export type WeightsRequest =
  { kind: 'url'; url: string } | { kind: 'file'; file: File } | { kind: 'synthetic'; seed: number; d: number };

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
  /** 'rmsnorm' when the checkpoint says its norms are RMSNorms (a Llama GGUF, config.json's rms_norm_eps). */
  norm: NormKind;
  /** The gain's tensor name in the checkpoint, e.g. "ln_f.weight" or "output_norm.weight" (null: synthetic). */
  tensor: string | null;
  /** ε as the checkpoint states it (GGUF metadata, config.json); null when it does not say. */
  eps: number | null;
  /** e.g. 'gpt2', when the checkpoint says. */
  architecture: string | null;
}

export interface LayerParams {
  eps: number;
  variant: Variant;
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
  /** Per sampled row, from the module in float64: LayerNorm's μ, σ², 1/√(σ² + ε) or RMSNorm's mean(x²), 1/√(mean(x²) + ε). */
  stats:
    | { norm: 'layernorm'; mean: Float64Array; variance: Float64Array; rstd: Float64Array }
    | { norm: 'rmsnorm'; meanSquare: Float64Array; rstd: Float64Array };
  output: { min: number; max: number; meanAbs: number; nonFinite: number };
  /** Rows whose input holds NaN or ±Inf: how many, and the first few. */
  nonFiniteRows: { count: number; first: number[] };
  reference: ReferenceCheck;
  ms: number;
  kernelMs: number;
}

interface StagesCommon {
  actId: number;
  weightsId: number;
  params: LayerParams;
  row: number;
  d: number;
  /** LayerNorm: 1/√(σ² + ε); RMSNorm: 1/√(mean(x²) + ε). */
  rstd: number;
  input: Float32Array;
  normalized: Float32Array;
  output: Float32Array;
  /** Features of the input that are NaN, +Inf or −Inf. */
  nonFinite: { nan: number[]; posInf: number[]; negInf: number[] };
  /** The same row under the three norms the explainer compares (same γ), all from the module. */
  variants: {
    /** The row's mean and variance (LayerNorm's statistics, whichever norm runs). */
    mean: number;
    variance: number;
    /** With β; null when the weights have none. */
    layernorm: Float32Array | null;
    biasfree: Float32Array;
    /** RMSNorm, and the root mean square √(mean(x²) + ε) it divides by. */
    rmsnorm: Float32Array;
    rms: number;
  };
}

/** One row through every stage of the norm in use, from the module's layerNormStages / rmsNormStages. */
export type StagesResult =
  | (StagesCommon & {
      norm: 'layernorm';
      mean: number;
      variance: number;
      centered: Float32Array;
      scaled: Float32Array;
    })
  | (StagesCommon & { norm: 'rmsnorm'; meanSquare: number });

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
  nonFiniteBoth: number;
  nonFiniteMismatches: number;
  worst: ElementView | null;
  /** The expected file against the float64 reference, like this library's own check. */
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

/** The engine's operations: argument and result of each. */
export interface EngineApi {
  init: { args: null; result: { backend: string; kernel: string } };
  /** Reads γ and β (a few KB of a checkpoint); they replace the engine's weights only if no newer load started. */
  loadWeights: { args: WeightsRequest; result: WeightsInfo };
  loadActivations: { args: ActivationSource; result: ActivationsInfo };
  /** Forgets activations read but not yet normalized (a cancelled large file). */
  discardPending: { args: null; result: null };
  compute: { args: LayerParams; result: ComputeResult };
  stages: { args: LayerParams & { row: number }; result: StagesResult };
  scalar: { args: LayerParams; result: ScalarResult };
  addExpected: { args: { file: File }; result: ExpectedInfo };
  removeExpected: { args: { id: number }; result: null };
  lab: { args: LayerParams & { tolerance: Tolerance }; result: LabResult };
  labRows: { args: LabRowsQuery; result: LabRowsPage };
  download: { args: { format: 'npy' | 'json' }; result: DownloadResult };
  timing: { args: LayerParams; result: TimingResult };
  bench: { args: LayerParams; result: BenchResult };
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
}

/** Histogram bins of sULP, as upper bounds, and their labels. */
export const ULP_BINS = [0, 0.5, 1, 2, 4, 8, Infinity] as const;
export const ULP_BIN_LABELS = ['0', '≤ ½', '≤ 1', '≤ 2', '≤ 4', '≤ 8', '> 8'];
