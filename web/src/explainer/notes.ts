/**
 * What the explainer says about the weights and the three forms, in words: the features of the
 * weights worth pointing at, and how LayerNorm, its bias-free form and RMSNorm differ on this
 * token. Pure functions of the numbers the module computed.
 */
import { DEFAULT_NORM, NORMS, normOfForm, type NormForm, type NormSpec } from '../norms.js';
import { fmtNum } from './format.js';
import type { Callout } from './lines.js';
import type { ExplainerVariants } from './types.js';

export interface Notable extends Callout {
  sentence: string;
  /** Marked on the chart too (the rest are only listed). */
  chart: boolean;
}

/** GPT-2 small's residual-stream channels known for massive activations. */
const GPT2_MASSIVE = [447, 138, 378];

/**
 * The features worth pointing at: largest and smallest γ, largest |β|, and for GPT-2's own weights
 * its massive channels (another model's feature 447 is nothing special).
 */
export function notableFeatures(
  gamma: Float32Array,
  beta: Float32Array | null,
  norm: NormSpec,
  gpt2: boolean,
): Notable[] {
  const d = gamma.length;
  const idx = Array.from({ length: d }, (_, i) => i);
  const byGamma = [...idx].sort((a, b) => gamma[a]! - gamma[b]!);
  let mean = 0;
  for (const g of gamma) mean += g / d;
  const out: Notable[] = [];
  const seen = new Set<number>();
  const push = (j: number, series: number, text: string, sentence: string, chart: boolean) => {
    if (seen.has(j * 2 + series)) return;
    seen.add(j * 2 + series);
    out.push({ feature: j, series, text, sentence, chart });
  };
  const top = byGamma[d - 1]!;
  push(
    top,
    0,
    `γ${top} = ${fmtNum(gamma[top]!, 3)}`,
    `Feature ${top} has the largest gain, γ = ${fmtNum(gamma[top]!, 4)} (the mean γ is ${fmtNum(mean, 3)}).`,
    true,
  );
  if (beta) {
    const jb = idx.reduce((a, b) => (Math.abs(beta[b]!) > Math.abs(beta[a]!) ? b : a), 0);
    push(
      jb,
      1,
      `β${jb} = ${fmtNum(beta[jb]!, 3)}`,
      `Feature ${jb} has the largest bias, β = ${fmtNum(beta[jb]!, 4)}: it is shifted by that much whatever the token.`,
      true,
    );
  }
  const low = byGamma[0]!;
  push(
    low,
    0,
    `γ${low} = ${fmtNum(gamma[low]!, 2)}`,
    `Feature ${low} has the smallest gain, γ = ${fmtNum(gamma[low]!, 4)}: ${norm.name} all but silences it.`,
    true,
  );
  for (const j of gpt2 && norm.centred ? GPT2_MASSIVE : []) {
    if (j >= d) continue;
    push(
      j,
      0,
      `γ${j} = ${fmtNum(gamma[j]!, 3)}`,
      `Feature ${j}, one of GPT-2's massive channels, has γ = ${fmtNum(gamma[j]!, 4)}: after normalization its huge values are scaled by that.`,
      j === 447,
    );
  }
  return out;
}

function maxDiff(a: Float32Array, b: Float32Array): number {
  let m = 0;
  for (let j = 0; j < a.length; j++) {
    const e = Math.abs(a[j]! - b[j]!);
    if (e > m) m = e;
  }
  return m;
}

/** How LayerNorm, its bias-free form and RMSNorm differ on this token (same γ). */
export function variantsText(v: ExplainerVariants, form: NormForm, token: string): string {
  const sigma = Math.sqrt(v.variance);
  const parts: string[] = [];
  if (!normOfForm(form).centred)
    parts.push(
      `These weights run as ${normOfForm(form).name}; beside it, what ${NORMS[DEFAULT_NORM].name} would make of this token with the same γ.`,
    );
  if (!Number.isFinite(v.mean)) {
    parts.push('This token holds a non-finite value, so all three norms give NaN for it.');
    return parts.join(' ');
  }
  parts.push(
    `For ${token}: μ = ${fmtNum(v.mean, 4)}, σ = ${fmtNum(sigma, 6)} and the root mean square ` +
      `√(σ² + μ²) = ${fmtNum(v.rms, 6)} (with ε).`,
    `RMSNorm skips subtracting μ and divides by ${fmtNum(v.rms, 6)} instead of ${fmtNum(sigma, 6)}: its output differs from ` +
      `bias-free LayerNorm's by up to ${fmtNum(maxDiff(v.rmsnorm, v.biasfree), 3)} on this token, mostly the shift ` +
      `γᵢ·μ/σ that LayerNorm subtracts (μ/σ = ${fmtNum(v.mean / sigma, 3)} here).`,
    v.layernorm
      ? `Bias-free LayerNorm is LayerNorm minus β: here they differ by up to ${fmtNum(maxDiff(v.layernorm, v.biasfree), 3)} (the largest |β|).`
      : 'These weights have no β: LayerNorm and its bias-free form are the same layer.',
  );
  return parts.join(' ');
}
