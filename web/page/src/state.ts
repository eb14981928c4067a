/** The page's state and the actions panels can ask for. */
import type {
  ActivationsInfo,
  BenchResult,
  ComputeResult,
  ConfigRequest,
  ExpectedInfo,
  LabResult,
  LabRowsPage,
  LabSort,
  NormKind,
  Preset,
  ScalarResult,
  TimingResult,
  Tolerance,
} from './engine/protocol';
import { DEFAULT_FORM, type NormForm } from 'layernorm-wasm';
import { formToRun } from './engine/form';
import { Store } from './store';

export type WeightsSource =
  { kind: 'hf' } | { kind: 'url'; url: string } | { kind: 'file'; name: string } | { kind: 'synthetic'; seed: number };

/** How the page names a weights source: e.g. "GPT-2 small ln_f from huggingface.co". */
export function describeSource(s: WeightsSource): string {
  switch (s.kind) {
    case 'hf':
      return 'GPT-2 small ln_f from huggingface.co';
    case 'url':
      return s.url;
    case 'file':
      return `${s.name} (local file)`;
    case 'synthetic':
      return `Synthetic demo weights (seed ${s.seed})`;
  }
}

export interface Weights {
  id: number;
  gamma: Float32Array;
  beta: Float32Array | null;
  d: number;
  source: WeightsSource;
  /** e.g. "GPT-2 small ln_f from huggingface.co". */
  label: string;
  /** How it was read, e.g. "6.7 KB of 548.1 MB fetched with range reads". */
  detail: string;
  synthetic: boolean;
  /** The norm the checkpoint holds: an RMSNorm's gain runs as RMSNorm. */
  norm: NormKind;
  /** The gain's tensor name, e.g. "output_norm.weight"; null for synthetic weights. */
  tensor: string | null;
  /** ε as the checkpoint states it; null when it does not say. */
  eps: number | null;
  architecture: string | null;
  /** What the loader could not tell from the checkpoint and assumed, one sentence each. */
  warnings: string[];
}

export interface WeightsLoad {
  status: 'loading' | 'failed';
  source: WeightsSource;
  label: string;
  bytesRead: number;
  message: string | null;
  /** The failure came from the network (offer to try again). */
  retry: boolean;
  /** The checkpoint does not say which norm is its final one: the gains to pick from. */
  candidates: string[];
}

export interface Message {
  kind: 'error' | 'warn' | 'info';
  text: string;
}

export interface LargeRun {
  name: string;
  bytes: number;
  status: 'running' | 'done' | 'cancelled' | 'failed';
  done: number;
  total: number;
  message: string;
}

export interface Job<T> {
  status: 'idle' | 'running' | 'done' | 'failed';
  result: T | null;
  message: string;
  done: number;
  total: number;
}

export const idle = <T>(): Job<T> => ({ status: 'idle', result: null, message: '', done: 0, total: 0 });

export type Scale = 'symlog' | 'linear' | 'own';

export interface PageState {
  /** A coarse pointer (touch): the page says "tap", not "hover". */
  touch: boolean;
  engine: { status: 'starting' | 'ready' | 'failed'; backend: string; kernel: string; message: string };

  /** The source picked in the weights card; the loaded weights may still come from another. */
  weightsSource: WeightsSource;
  weightsLoad: WeightsLoad | null;
  weights: Weights | null;
  /** The LayerNorm preset (with or without β); RMSNorm weights run as RMSNorm whatever it is. */
  form: Preset;
  epsText: string;
  /** ε parsed from epsText; null while the text is not a finite number ≥ 0. */
  eps: number | null;
  /** Where ε came from: GPT-2's default, the loaded checkpoint, or the visitor (typed or linked). */
  epsOrigin: 'default' | 'checkpoint' | 'typed';

  /** The generator's parameters (the permalink recreates this sample). */
  gen: { B: number; T: number; seed: number };
  activations: ActivationsInfo | null;
  actMessage: Message | null;
  large: LargeRun | null;

  computing: boolean;
  result: ComputeResult | null;
  /** Heatmap zoom on the features (1, 4 or 16) and the feature it centres on. */
  heatZoom: number;
  heatCenter: number;
  resultError: string | null;

  row: number;
  view: 'window' | 'all';
  windowStart: number;
  zoom: { from: number; to: number } | null;
  scale: Scale;

  scalar: Job<ScalarResult>;
  expected: ExpectedInfo[];
  expectedMessage: Message | null;
  tolerance: Tolerance;
  lab: Job<LabResult>;
  labView: { fileId: number; sort: LabSort; failingOnly: boolean; offset: number } | null;
  labRows: LabRowsPage | null;

  timing: Job<TimingResult>;
  bench: Job<BenchResult>;
}

export type Action =
  | { type: 'weights/load'; source: WeightsSource; file?: File; config?: ConfigRequest; weight?: string }
  | { type: 'act/generate'; B: number; T: number; seed: number }
  | { type: 'act/text'; text: string }
  | { type: 'act/file'; file: File; tokens: File | null }
  | { type: 'act/cancel' }
  | { type: 'out/download'; format: 'npy' | 'json' }
  | { type: 'check/scalar' }
  | { type: 'lab/add'; files: File[] }
  | { type: 'lab/remove'; id: number }
  | { type: 'speed/bench' };

export type PageStore = Store<PageState, Action>;

/** PyTorch's torch.testing.assert_close defaults for float32, and the package's accuracy contract. */
export const DEFAULT_TOLERANCE: Tolerance = { mode: 'allclose', atol: 1e-5, rtol: 1.3e-6, ulp: 4 };

export function initialState(): PageState {
  return {
    touch: false,
    engine: { status: 'starting', backend: '', kernel: '', message: '' },
    weightsSource: { kind: 'hf' },
    weightsLoad: null,
    weights: null,
    form: DEFAULT_FORM,
    epsText: '1e-5',
    eps: 1e-5,
    epsOrigin: 'default',
    gen: { B: 1, T: 16, seed: 7 },
    activations: null,
    actMessage: null,
    large: null,
    computing: false,
    result: null,
    heatZoom: 1,
    heatCenter: 447,
    resultError: null,
    row: 0,
    view: 'window',
    windowStart: 444,
    zoom: null,
    scale: 'symlog',
    scalar: idle(),
    expected: [],
    expectedMessage: null,
    tolerance: DEFAULT_TOLERANCE,
    lab: idle(),
    labView: null,
    labRows: null,
    timing: idle(),
    bench: idle(),
  };
}

export function createStore(): PageStore {
  return new Store<PageState, Action>(initialState());
}

/** Parses ε as typed (1e-5, 0.00001, 1E-5): a finite number ≥ 0, else null. */
export function parseEps(text: string): number | null {
  const t = text.trim();
  if (!/^[+]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return null;
  const v = Number(t);
  // 1e-400 is no double: Number() would make it 0 without a word.
  if (v === 0 && /[1-9]/.test(t.split(/e/i)[0]!)) return null;
  return Number.isFinite(v) && v >= 0 ? v : null;
}

/** Whether a result (or stage, or check) was made from exactly what the page holds now. */
export function isCurrent(
  s: Pick<PageState, 'activations' | 'weights' | 'eps' | 'form'>,
  r: { actId: number; weightsId: number; params: { eps: number; form: NormForm } } | null,
): boolean {
  if (!r || !s.activations || !s.weights) return false;
  return (
    r.actId === s.activations.id &&
    r.weightsId === s.weights.id &&
    r.params.eps === s.eps &&
    r.params.form === formToRun(s.weights, s.form)
  );
}
