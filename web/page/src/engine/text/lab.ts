/**
 * One captured norm checked per token against the exact answer (the package's reference, each
 * value the float32 nearest it): this package's output, onnxruntime-web's own output of the norm
 * in the model, and PyTorch's when the reader gives it as .npy. Each row is measured by the
 * package's compareOutputs (sULP, the worst element, non-finite mismatches), so the card reports
 * what the package's metric says.
 */
import type { LayerNormRuntime } from 'layernorm-wasm';
import { readNpy } from 'layernorm-wasm/io';
import { compareOutputs, NORMS, normReference } from 'bundled:layernorm-wasm';
import type { TextCheck, TextLabResult } from '../protocol';
import { heldRun, normOf } from './run';

/** Each row of y against the exact rows. */
function checkRows(y: Float32Array, exact: Float32Array, d: number, beta: Float32Array | null): TextCheck[] {
  const rows: TextCheck[] = [];
  for (let r = 0; r * d < y.length; r++) {
    const [a, e] = [y.subarray(r * d, (r + 1) * d), exact.subarray(r * d, (r + 1) * d)];
    const c = compareOutputs(a, e, d, beta);
    const at = c.worstIndex;
    rows.push({
      maxSulp: c.maxScaledUlp,
      maxAbs: c.maxAbs,
      nonFiniteMismatches: c.nonFiniteMismatches,
      worst: at < 0 ? null : { row: r, feature: at, value: a[at]!, exact: e[at]! },
    });
  }
  return rows;
}

/** Over all tokens: the largest sULP, the worst element of them all, every non-finite mismatch. */
function overall(rows: TextCheck[]): TextCheck {
  const total: TextCheck = { maxSulp: 0, maxAbs: 0, nonFiniteMismatches: 0, worst: null };
  for (const r of rows) {
    total.nonFiniteMismatches += r.nonFiniteMismatches;
    total.maxSulp = Math.max(total.maxSulp, r.maxSulp);
    if (r.worst && (!total.worst || r.maxAbs > total.maxAbs)) [total.maxAbs, total.worst] = [r.maxAbs, r.worst];
  }
  return total;
}

/** PyTorch's output from its .npy: float32, one row of d per token (leading axes of 1 allowed). */
async function readTorch(file: File, rows: number, d: number): Promise<Float32Array> {
  const { data, shape } = readNpy(new Uint8Array(await file.arrayBuffer()), file.name);
  const expected = `[${rows}, ${d}] (or [1, ${rows}, ${d}]): one row per token`;
  if (shape[shape.length - 1] !== d || data.length !== rows * d) {
    throw new RangeError(`${file.name} is [${shape.join(', ')}]; PyTorch's output of this norm must be ${expected}.`);
  }
  return data;
}

export async function checkText(
  rt: LayerNormRuntime,
  args: { runId: number; norm: number; torch: File | null },
): Promise<TextLabResult> {
  const n = normOf(heldRun(args.runId), args.norm);
  const { d } = n;
  const x = n.input.data;
  // The norm the model runs (LayerNorm with β or without, RMSNorm), with its own γ, β and ε.
  const options = { gamma: n.gamma, beta: n.beta, eps: n.eps };
  const exact = normReference(n.norm, x, d, options as never);
  const call = rt[NORMS[n.norm].api.call as 'layerNorm'] as (
    x: Float32Array,
    d: number,
    o: typeof options,
  ) => Float32Array;
  const ours = checkRows(call.call(rt, x, d, options), exact, d, n.beta);
  const ort = checkRows(n.output.data, exact, d, n.beta);
  const torch = args.torch ? checkRows(await readTorch(args.torch, n.rows, d), exact, d, n.beta) : null;
  return {
    runId: args.runId,
    norm: args.norm,
    rows: ours.map((o, r) => ({ ours: o, ort: ort[r]!, torch: torch?.[r] ?? null })),
    total: { ours: overall(ours), ort: overall(ort), torch: torch ? overall(torch) : null },
    torchName: args.torch?.name ?? null,
  };
}
