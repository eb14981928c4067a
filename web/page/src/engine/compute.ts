/**
 * Normalizing the activations: every row, in slices, with the statistics of the sampled rows and
 * the check against the correctly rounded reference accumulated on the way.
 */
import { momentKey, NORM_FORMS, NORMS, type LayerNormRuntime } from 'layernorm-wasm';
import type { Explanation } from 'layernorm-wasm/explainer';
import { explainRow } from 'layernorm-wasm/explainer/compute';
import { accumulateReference, emptyReferenceCheck, finiteClass } from './checks';
import { normalize, normFor, paramsOf, reference as referenceOf, type Norm, type Weights } from './norm';
import type { ComputeResult, LayerParams, Progress, StagesRequest } from './protocol';
import type { Source } from './held';

/** Rows drawn in the heatmap and listed in the statistics table. */
export const SAMPLE_ROWS = 256;

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
  const norm = normFor(w, params);
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
    const y = normalize(rt, norm, x, d, whole ? whole.subarray(first * d, (first + n) * d) : undefined);
    kernelMs += performance.now() - k0;
    accumulateReference(reference, y, referenceOf(norm, x, d), d, norm.beta, first * d);
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
  const result: ComputeResult = {
    actId: src.info.id,
    weightsId: w.id,
    params: paramsOf(norm),
    shape,
    rows,
    d,
    sampleRows: picks,
    sampleIn,
    sampleOut,
    stats: sampleStats(rt, norm, sampleIn, d),
    output: { min, max, meanAbs: sumAbs / Math.max(1, rows * d - nonFinite), nonFinite },
    nonFiniteRows: { count: nonFiniteRowCount, first: nonFiniteRowFirst },
    reference,
    ms: performance.now() - t0,
    kernelMs,
  };
  return { result, output: { data: whole, parts } };
}

/**
 * The statistics the output card lists for the sampled rows, as the module computes them: a
 * centred norm over d's μ, σ² and 1/√(σ² + ε) in one call (layerNormStats), any other norm's
 * moment (its facts name it) and 1/√(moment + ε), and its μ if it centres, row by row.
 */
function sampleStats(rt: LayerNormRuntime, n: Norm, x: Float32Array, d: number): ComputeResult['stats'] {
  const norm = NORM_FORMS[n.form].norm;
  const spec = NORMS[norm];
  if (spec.centred && spec.divisor === 'width') {
    const s = rt.layerNormStats(x, d, { eps: n.eps });
    return { norm, mean: s.mean, moment: s.variance, rstd: s.rstd };
  }
  const rows = x.length / d;
  const mean = new Float64Array(rows);
  const moment = new Float64Array(rows);
  const rstd = new Float64Array(rows);
  const stages = (rt as unknown as Record<string, (...a: unknown[]) => Record<string, number>>)[spec.api.stages]!;
  for (let r = 0; r < rows; r++) {
    const st = stages.call(rt, x, d, r, { eps: n.eps });
    mean[r] = st.mean ?? 0;
    moment[r] = st[momentKey(spec)]!;
    rstd[r] = st.rstd!;
  }
  return { norm, mean: spec.centred ? mean : null, moment, rstd };
}

/**
 * One row explained for the page's <layernorm-explainer>, with the weights it sent: the same
 * numbers the element computes on its own (the package's explainRow), here in the worker that
 * holds the activations. Held activations are explained in place (so `row` is the row's own);
 * a streamed file's row is read first.
 */
export async function explainStages(rt: LayerNormRuntime, src: Source, req: StagesRequest): Promise<Explanation> {
  const { d, rows } = src.info;
  if (!Number.isInteger(req.row) || req.row < 0 || req.row >= rows) {
    throw new RangeError(`row must be a whole number from 0 to ${rows - 1}, got ${req.row}`);
  }
  const w = req.gamma ? { gamma: req.gamma, beta: req.beta, norm: req.norm } : null;
  if (src.data) return explainRow(rt, src.data, d, req.row, w, req.eps);
  const x = (await src.readRows(req.row, 1)).slice();
  const e = explainRow(rt, x, d, 0, w, req.eps);
  return { ...e, stages: { ...e.stages, row: req.row } };
}
