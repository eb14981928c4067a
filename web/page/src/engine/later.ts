/**
 * What the engine does only when the visitor asks for it later (the scalar comparison, the
 * benchmark against plain JavaScript, a download), in a module the engine loads on the first
 * such request: none of it is in the page's first load.
 */
import { DEFAULT_NORM, type LayerNormRuntime } from 'layernorm-wasm';
import { countBitDifferences, median } from './checks';
import { CancelledError, type Job, type Output } from './compute';
import type { Source } from './held';
import { createNorm, normalize, normFor, paramsOf, reference, type Weights } from './norm';
import type { ActivationsInfo, BenchResult, DownloadResult, LayerParams, ScalarResult, TimingResult } from './protocol';
import { gpt2LikeActivations } from './sample';

/** Every output value of the SIMD build against the scalar build's, bit for bit. */
export async function compareScalar(
  ours: LayerNormRuntime,
  scalar: LayerNormRuntime,
  source: Source,
  w: Weights,
  params: LayerParams,
  job: Job,
): Promise<ScalarResult> {
  const { rows, d } = source.info;
  const norm = normFor(w, params);
  let differing = 0;
  let first: { index: number; ours: number; scalar: number } | null = null;
  for (let r0 = 0; r0 < rows; r0 += source.sliceRows) {
    if (job.cancelled) throw new CancelledError();
    const n = Math.min(source.sliceRows, rows - r0);
    const x = await source.readRows(r0, n);
    const a = normalize(ours, norm, x, d);
    const b = normalize(scalar, norm, x, d);
    const diff = countBitDifferences(a, b);
    if (diff.count && !first) first = { index: r0 * d + diff.first, ours: a[diff.first]!, scalar: b[diff.first]! };
    differing += diff.count;
    job.progress({ phase: 'scalar', done: r0 + n, total: rows });
  }
  return {
    actId: source.info.id,
    weightsId: w.id,
    params: paramsOf(norm),
    kernel: ours.kernel,
    otherKernel: scalar.kernel,
    total: rows * d,
    differing,
    first,
  };
}

/** The output as .npy or as JSON. */
export async function download(info: ActivationsInfo, out: Output, format: 'npy' | 'json'): Promise<DownloadResult> {
  const { shape } = info;
  if (format === 'npy') {
    const { npyBlob } = await import('./npy-out');
    const blob = npyBlob(shape, out.data ?? null, out.parts ?? null);
    const name = out.data ? 'layernorm-output.npy' : `${info.label.replace(/\.npy$/i, '')}-layernorm.npy`;
    return { blob, name };
  }
  if (!out.data) throw new Error('This output is too large for JSON; download the .npy.');
  return {
    blob: new Blob([toNestedJson(out.data, shape)], { type: 'application/json' }),
    name: 'layernorm-output.json',
  };
}

/** The module against the package's plain-JavaScript reference, on a GPT-2-like batch of 1024 tokens. */
export async function bench(
  r: LayerNormRuntime,
  weights: Weights | null,
  params: LayerParams,
  job: Job,
): Promise<BenchResult> {
  const d = 768;
  // The weights in use when they are d = 768 wide, else unit gains (no β) of the same kind.
  const norm = normFor(
    weights?.d === d
      ? weights
      : { id: 0, gamma: new Float32Array(d).fill(1), beta: null, d, norm: weights?.norm ?? DEFAULT_NORM },
    params,
  );
  const x = gpt2LikeActivations(1, 1024, d, 42);
  const y = new Float32Array(x.length);
  const layer = createNorm(r, d, norm);
  const runs = 9;
  const tw: number[] = [];
  const tj: number[] = [];
  try {
    // Plain JavaScript: the package's reference, each output the float32 nearest the exact answer.
    layer.forward(x, y);
    reference(norm, x, d);
    // Interleaved, so both see the same machine load.
    for (let i = 0; i < runs; i++) {
      if (job.cancelled) throw new CancelledError();
      let t0 = performance.now();
      layer.forward(x, y);
      tw.push(performance.now() - t0);
      t0 = performance.now();
      reference(norm, x, d);
      tj.push(performance.now() - t0);
      job.progress({ phase: 'bench', done: i + 1, total: runs });
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  } finally {
    layer.dispose();
  }
  return { runs, wasmMs: median(tw), jsMs: median(tj), values: x.length };
}
/** Nested arrays in the input's shape. JSON has no NaN or ±Inf: those become null (the page says so). */
function toNestedJson(data: Float32Array, shape: number[]): string {
  const parts: string[] = [];
  let i = 0;
  const walk = (axis: number) => {
    const n = shape[axis]!;
    parts.push('[');
    for (let k = 0; k < n; k++) {
      if (k) parts.push(',');
      if (axis === shape.length - 1) {
        const v = data[i++]!;
        parts.push(Number.isFinite(v) ? String(v) : 'null');
      } else walk(axis + 1);
    }
    parts.push(']');
  };
  walk(0);
  return parts.join('');
}
