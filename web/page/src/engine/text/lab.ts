/**
 * One captured norm checked per token against the exact answer (the package's reference, each
 * value the float32 nearest it): this package's output, onnxruntime-web's own output of the norm
 * in the model, and PyTorch's when the reader gives it as .npy. Errors are in sULP, the float32
 * spacing of max(|γ·x̂|, |β|) as compareOutputs measures them; non-finite values match only their
 * own kind.
 */
import type { LayerNormRuntime } from 'layernorm-wasm';
import { readNpy } from 'layernorm-wasm/io';
import type { TextCheck, TextLabResult } from '../protocol';
import { heldRun, normOf, type TextKit } from './run';

/** Each row of y against the exact rows: its largest sULP and where, and non-finite mismatches. */
function checkRows(
  { ulp32 }: TextKit,
  y: Float32Array,
  exact: Float32Array,
  d: number,
  beta: Float32Array | null,
): TextCheck[] {
  const rows: TextCheck[] = [];
  for (let r = 0; r * d < y.length; r++) {
    const check: TextCheck = { maxSulp: 0, nonFiniteMismatches: 0, worst: null };
    for (let f = 0; f < d; f++) {
      const [a, e] = [y[r * d + f]!, exact[r * d + f]!];
      if (!Number.isFinite(a) || !Number.isFinite(e)) {
        if (!(a === e || (Number.isNaN(a) && Number.isNaN(e)))) check.nonFiniteMismatches++;
        continue;
      }
      const b = beta ? beta[f]! : 0;
      const sulp = Math.abs(a - e) / ulp32(Math.abs(e - b) + Math.abs(b));
      if (!check.worst || sulp > check.maxSulp) {
        check.maxSulp = sulp;
        check.worst = { row: r, feature: f, value: a, exact: e };
      }
    }
    rows.push(check);
  }
  return rows;
}

function overall(rows: TextCheck[]): TextCheck {
  const total: TextCheck = { maxSulp: 0, nonFiniteMismatches: 0, worst: null };
  for (const r of rows) {
    total.nonFiniteMismatches += r.nonFiniteMismatches;
    if (r.worst && (!total.worst || r.maxSulp > total.maxSulp)) [total.maxSulp, total.worst] = [r.maxSulp, r.worst];
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
  kit: TextKit,
  rt: LayerNormRuntime,
  args: { runId: number; norm: number; torch: File | null },
): Promise<TextLabResult> {
  const n = normOf(heldRun(args.runId), args.norm);
  const { d } = n;
  const x = n.input.data;
  const norm = { variant: n.form, gamma: n.gamma, beta: n.beta, eps: n.eps };
  const exact = kit.reference(norm, x, d);
  const ours = checkRows(kit, kit.normalize(rt, norm, x, d), exact, d, n.beta);
  const ort = checkRows(kit, n.output.data, exact, d, n.beta);
  const torch = args.torch ? checkRows(kit, await readTorch(args.torch, n.rows, d), exact, d, n.beta) : null;
  return {
    runId: args.runId,
    norm: args.norm,
    rows: ours.map((o, r) => ({ ours: o, ort: ort[r]!, torch: torch?.[r] ?? null })),
    total: { ours: overall(ours), ort: overall(ort), torch: torch ? overall(torch) : null },
    torchName: args.torch?.name ?? null,
  };
}
