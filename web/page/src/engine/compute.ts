/**
 * Normalizing the activations: every row, in slices, with the statistics of the sampled rows and
 * the check against the float64 reference accumulated on the way.
 */
import { layerNormReference, type LayerNormRuntime } from 'layernorm-wasm';
import { accumulateReference, emptyReferenceCheck, finiteClass } from './checks';
import type { ComputeResult, LayerParams, Progress, StagesResult } from './protocol';
import type { Source } from './sources';

/** Rows drawn in the heatmap and listed in the statistics table. */
export const SAMPLE_ROWS = 256;

export interface Weights {
  id: number;
  gamma: Float32Array;
  beta: Float32Array | null;
  d: number;
}

export interface Job {
  cancelled: boolean;
  /** Aborted when the job is cancelled (for requests in flight). */
  signal: AbortSignal;
  progress(p: Progress): void;
}

export class CancelledError extends Error {
  override name = 'CancelledError';
  constructor() {
    super('Cancelled');
  }
}

export function layerOptions(w: Weights, p: LayerParams) {
  return { gamma: w.gamma, beta: p.variant === 'biasfree' ? null : w.beta, eps: p.eps };
}

/** What one run leaves behind for downloads and later checks. */
export interface Output {
  /** The whole output, when the input is held in memory; else the output .npy's data parts. */
  data: Float32Array | null;
  parts: Float32Array[] | null;
}

/** Evenly spaced rows, all of them when there are at most `n`. */
export function sampleRows(rows: number, n = SAMPLE_ROWS): Int32Array {
  const k = Math.min(rows, n);
  return Int32Array.from({ length: k }, (_, i) => Math.floor((i * rows) / k));
}

export async function compute(
  rt: LayerNormRuntime,
  src: Source,
  w: Weights,
  params: LayerParams,
  job: Job,
): Promise<{ result: ComputeResult; output: Output }> {
  const t0 = performance.now();
  const { rows, d, shape } = src.info;
  const opts = layerOptions(w, params);
  const picks = sampleRows(rows);
  const sampleIn = new Float32Array(picks.length * d);
  const sampleOut = new Float32Array(picks.length * d);
  const reference = emptyReferenceCheck();
  let min = Infinity;
  let max = -Infinity;
  let sumAbs = 0;
  let nonFinite = 0;
  let nonFiniteRowCount = 0;
  const nonFiniteRowFirst: number[] = [];
  let kernelMs = 0;
  const whole = src.data ? new Float32Array(rows * d) : null;
  const parts: Float32Array[] | null = src.data ? null : [];
  let si = 0;
  for (let first = 0; first < rows; first += src.sliceRows) {
    if (job.cancelled) throw new CancelledError();
    const n = Math.min(src.sliceRows, rows - first);
    const x = await src.readRows(first, n);
    const k0 = performance.now();
    const y = rt.layerNorm(x, d, { ...opts, out: whole ? whole.subarray(first * d, (first + n) * d) : undefined });
    kernelMs += performance.now() - k0;
    accumulateReference(reference, y, layerNormReference(x, d, opts), d, opts.beta, first * d);
    for (let i = 0; i < y.length; i++) {
      const v = y[i]!;
      if (Number.isFinite(v)) {
        if (v < min) min = v;
        if (v > max) max = v;
        sumAbs += Math.abs(v);
      } else nonFinite++;
    }
    for (let r = 0; r < n; r++) {
      for (let j = r * d, end = j + d; j < end; j++) {
        if (finiteClass(x[j]!) !== 0) {
          if (nonFiniteRowFirst.length < 100) nonFiniteRowFirst.push(first + r);
          nonFiniteRowCount++;
          break;
        }
      }
    }
    while (si < picks.length && picks[si]! < first + n) {
      const local = picks[si]! - first;
      sampleIn.set(x.subarray(local * d, local * d + d), si * d);
      sampleOut.set(y.subarray(local * d, local * d + d), si * d);
      si++;
    }
    if (parts) parts.push(y);
    job.progress({ phase: 'normalize', done: first + n, total: rows });
  }
  const s = rt.layerNormStats(sampleIn, d, { eps: params.eps });
  const result: ComputeResult = {
    actId: src.info.id,
    weightsId: w.id,
    params,
    shape,
    rows,
    d,
    sampleRows: picks,
    sampleIn,
    sampleOut,
    stats: {
      mean: Float64Array.from(s.mean),
      variance: Float64Array.from(s.variance),
      rstd: Float64Array.from(s.rstd),
    },
    output: { min, max, meanAbs: sumAbs / Math.max(1, rows * d - nonFinite), nonFinite },
    nonFiniteRows: { count: nonFiniteRowCount, first: nonFiniteRowFirst },
    reference,
    ms: performance.now() - t0,
    kernelMs,
  };
  return { result, output: { data: whole, parts } };
}

/** Every stage of one row, from the package, plus RMSNorm of the same row for comparison. */
export async function stages(
  rt: LayerNormRuntime,
  src: Source,
  w: Weights,
  params: LayerParams,
  row: number,
): Promise<StagesResult> {
  const { d, rows } = src.info;
  if (!Number.isInteger(row) || row < 0 || row >= rows) {
    throw new RangeError(`row must be a whole number from 0 to ${rows - 1}, got ${row}`);
  }
  const x = (await src.readRows(row, 1)).slice();
  const opts = layerOptions(w, params);
  const st = rt.layerNormStages(x, d, 0, opts);
  const withBeta = !w.beta
    ? null
    : opts.beta
      ? st.output
      : rt.layerNormStages(x, d, 0, { ...opts, beta: w.beta }).output;
  const rms = rmsNormRow(x, w.gamma, params.eps);
  const nonFinite = { nan: [] as number[], posInf: [] as number[], negInf: [] as number[] };
  for (let j = 0; j < d; j++) {
    const c = finiteClass(x[j]!);
    if (c === 1) nonFinite.nan.push(j);
    else if (c === 2) nonFinite.posInf.push(j);
    else if (c === 3) nonFinite.negInf.push(j);
  }
  return {
    actId: src.info.id,
    weightsId: w.id,
    params,
    row,
    d,
    mean: st.mean,
    variance: st.variance,
    rstd: st.rstd,
    input: st.input,
    centered: st.centered,
    normalized: st.normalized,
    scaled: st.scaled,
    output: st.output,
    nonFinite,
    variants: {
      layernorm: withBeta === st.output ? withBeta.slice() : withBeta,
      biasfree: st.scaled.slice(),
      rmsnorm: rms.output,
      rms: rms.value,
    },
  };
}

/**
 * RMSNorm of one row, y = γ ⊙ x / √(mean(x²) + ε), in float64 and rounded once: the explainer's
 * comparison only (the package's LayerNorm is what the page computes and checks).
 */
export function rmsNormRow(x: Float32Array, gamma: Float32Array, eps: number): { value: number; output: Float32Array } {
  const d = x.length;
  let squares = 0;
  for (let j = 0; j < d; j++) squares += x[j]! * x[j]!;
  const rms = Math.sqrt(squares / d + eps);
  const output = new Float32Array(d);
  for (let j = 0; j < d; j++) output[j] = (gamma[j]! * x[j]!) / rms;
  return { value: rms, output };
}
