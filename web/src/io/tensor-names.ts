/**
 * Which tensors of a checkpoint hold the norm: the names asked for, the final norm's names of the
 * checkpoint's family, the names GPT-2 exports and llama.cpp use, or the one 1-D *norm* weight.
 */

import type { FileFormat } from './errors.js';
import { ELEMENT_SIZE, type TensorIndex, type TensorInfo } from './tensors.js';

/** Tried in order when no names are given: Hub GPT-2, PyTorch-prefixed GPT-2, llama.cpp GGUF. */
export const KNOWN_LAYERNORM_NAMES: ReadonlyArray<readonly [string, string]> = [
  ['ln_f.weight', 'ln_f.bias'],
  ['transformer.ln_f.weight', 'transformer.ln_f.bias'],
  ['output_norm.weight', 'output_norm.bias'],
];

/** The final norm of Hugging Face Llama-family checkpoints, looked for when the checkpoint says RMSNorm. */
const KNOWN_RMSNORM_NAMES = ['model.norm.weight'];

/** The bias that goes with a gain: `x.weight` → `x.bias`, `x.gamma` → `x.beta`. */
function siblingBias(weight: string): string[] {
  const out: string[] = [];
  if (/weight$/.test(weight)) out.push(weight.replace(/weight$/, 'bias'));
  if (/gamma$/.test(weight)) out.push(weight.replace(/gamma$/, 'beta'));
  return out;
}

function listNames(names: string[], max = 20): string {
  const shown = names
    .slice(0, max)
    .map((n) => `"${n}"`)
    .join(', ');
  return names.length > max ? `${shown}, … (${names.length} in all)` : shown || '(none)';
}

/**
 * The gain and bias tensors to load. `familyNames` (the family's final norm, architectures.ts)
 * come first; `rmsOnly` adds Llama's `model.norm.weight` when the checkpoint says RMSNorm.
 */
export function resolveNormNames(
  index: TensorIndex,
  options: { weight?: string; bias?: string | null },
  fail: (problem: string) => Error,
  rmsOnly: boolean,
  familyNames: readonly string[],
): { weight: string; bias: string | null } {
  const all = [...index.tensors.keys()];
  const candidates = all.filter((n) => /norm|(^|\.)ln_f\./i.test(n) && /(weight|gamma|scale)$/.test(n));
  const pickBias = (weight: string): string | null => {
    if (options.bias === null) return null;
    if (typeof options.bias === 'string') {
      if (!index.tensors.has(options.bias)) {
        throw fail(
          `no tensor named "${options.bias}" (bias); candidates: ${listNames(all.filter((n) => /bias|beta/.test(n)))}`,
        );
      }
      return options.bias;
    }
    return siblingBias(weight).find((n) => index.tensors.has(n)) ?? null;
  };
  if (options.weight !== undefined) {
    if (!index.tensors.has(options.weight)) {
      throw fail(
        `no tensor named "${options.weight}" (weight); candidates: ${listNames(candidates.length ? candidates : all)}`,
      );
    }
    return { weight: options.weight, bias: pickBias(options.weight) };
  }
  for (const weight of [...familyNames, ...KNOWN_LAYERNORM_NAMES.map(([w]) => w)]) {
    if (index.tensors.has(weight)) return { weight, bias: pickBias(weight) };
  }
  if (rmsOnly) {
    for (const weight of KNOWN_RMSNORM_NAMES) if (index.tensors.has(weight)) return { weight, bias: null };
  }
  const oneDim = candidates.filter((n) => index.tensors.get(n)!.shape.length === 1);
  if (oneDim.length === 1) return { weight: oneDim[0]!, bias: pickBias(oneDim[0]!) };
  throw fail(
    oneDim.length > 1
      ? `cannot tell which LayerNorm to load; candidates: ${listNames(oneDim)}; pass { weight, bias } to choose`
      : `no LayerNorm tensors found (looked for ${KNOWN_LAYERNORM_NAMES.map(([w]) => w).join(', ')} or a single *norm*/ln_f weight); tensors: ${listNames(all)}`,
  );
}

/** The length of a gain or bias vector, after checking it is one of a dtype we decode. */
export function checkVector(info: TensorInfo, format: FileFormat, fail: (p: string) => Error): number {
  if (!ELEMENT_SIZE.has(info.dtype)) {
    throw fail(`tensor "${info.name}" has dtype ${info.dtype}; expected F32, F16 or BF16`);
  }
  if (info.shape.length !== 1) {
    throw fail(`tensor "${info.name}" has shape [${info.shape.join(', ')}]; expected a vector [d]`);
  }
  if (format === 'gguf' && info.dtype === 'F64')
    throw fail(`tensor "${info.name}" has dtype F64; expected F32, F16 or BF16`);
  return info.shape[0]!;
}
