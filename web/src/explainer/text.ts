/**
 * What the explainer says in words: the insight about one token, the features of the weights worth
 * pointing at, and how the three forms of the norm differ on this token. Pure functions of the
 * numbers the module computed.
 */
import type { NormForm } from '../norms.js';
import type { Callout } from './lines.js';
import { fmtNum } from './format.js';
import type { ExplainerStages, ExplainerVariants } from './types.js';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Features of the input that are NaN, +Inf or −Inf. */
export function nonFiniteFeatures(x: Float32Array): { nan: number[]; posInf: number[]; negInf: number[] } {
  const out = { nan: [] as number[], posInf: [] as number[], negInf: [] as number[] };
  x.forEach((v, j) => {
    if (Number.isNaN(v)) out.nan.push(j);
    else if (v === Infinity) out.posInf.push(j);
    else if (v === -Infinity) out.negInf.push(j);
  });
  return out;
}

/** One or two sentences about this token: what dominates σ² (or mean(x²)), or why there is nothing to normalize. */
export function insight(st: ExplainerStages, form: NormForm): string {
  const rms = !('centered' in st);
  const { nan, posInf, negInf } = nonFiniteFeatures(st.input);
  if (nan.length || posInf.length || negInf.length) {
    const list = (name: string, fs: number[]) =>
      fs.length
        ? `${name} at feature${fs.length > 1 ? 's' : ''} ${fs.slice(0, 5).join(', ')}${fs.length > 5 ? ', …' : ''}`
        : '';
    const what = [list('NaN', nan), list('+Inf', posInf), list('−Inf', negInf)].filter(Boolean).join(' and ');
    const allNaN = st.output.every((v) => Number.isNaN(v));
    return (
      `This token's input holds ${what}, so ${rms ? 'mean(x²) is not a number' : 'μ and σ² are not numbers'} and there is nothing to normalize by: ` +
      (allNaN
        ? 'every output of this row is NaN, as in PyTorch. Fix the input; no ε helps.'
        : 'its outputs are not finite.')
    );
  }
  // What each feature adds to the statistic the norm divides by: (x − μ)² to σ², x² to mean(x²).
  const spread = 'centered' in st ? st.centered : st.input;
  const stat = rms ? 'mean(x²)' : 'σ²';
  const d = st.d;
  let total = 0;
  let jMax = 0;
  for (let j = 0; j < d; j++) {
    const c2 = spread[j]! ** 2;
    total += c2;
    if (c2 > spread[jMax]! ** 2) jMax = j;
  }
  if (!(total > 0)) {
    return rms
      ? 'Every feature of this token is 0, so mean(x²) = 0 and the output is all zeros.'
      : `Every feature of this token equals the mean, so x − μ is all zeros and the output is ${form === 'layernorm' ? 'just β' : 'all zeros'}.`;
  }
  const share = (spread[jMax]! ** 2 / total) * 100;
  if (share >= 25) {
    const others: number[] = [];
    for (let j = 0; j < d; j++) if (j !== jMax) others.push(Math.abs(st.normalized[j]!));
    const where = rms ? `is ${fmtNum(spread[jMax]!, 4)}` : `sits ${fmtNum(spread[jMax]!, 4)} from the mean`;
    const unit = rms ? 'mean square 1' : 'variance 1';
    const squeeze = rms ? `rstd = ${fmtNum(st.rstd, 3)}` : `1/σ = ${fmtNum(st.rstd, 3)}`;
    return (
      `Feature ${jMax} ${where} and alone makes up ${share.toFixed(1)}% of ${stat}. ` +
      `x̂ always has ${unit} in total, so that one massive activation takes ${share.toFixed(0)}% of it and a typical ` +
      `(median) feature is left with |x̂| ≈ ${fmtNum(others.length ? median(others) : 0, 2)}: x̂ is x squeezed by ${squeeze}.`
    );
  }
  return (
    `No single feature dominates this token: the largest share of ${stat} is ${share.toFixed(1)}% (feature ${jMax}), ` +
    (rms
      ? 'so x̂ spreads evenly with mean square 1; RMSNorm does not centre it, so x̂ keeps the mean of x, scaled by rstd.'
      : 'so x̂ spreads evenly around 0 with unit variance.')
  );
}

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
  rms: boolean,
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
    `Feature ${low} has the smallest gain, γ = ${fmtNum(gamma[low]!, 4)}: ${rms ? 'RMSNorm' : 'LayerNorm'} all but silences it.`,
    true,
  );
  for (const j of gpt2 && !rms ? GPT2_MASSIVE : []) {
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
  if (form === 'rmsnorm')
    parts.push('These weights run as RMSNorm; beside it, what LayerNorm would make of this token with the same γ.');
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
