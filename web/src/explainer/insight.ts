/** What the explainer says about one token, in words: a pure function of the numbers the module computed. */
import { NORM_FORMS, normOfForm, type NormFacts, type NormForm } from '../norms.js';
import { fmtNum } from './format.js';
import type { ExplainerStages } from './types.js';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** What x̂'s own moment comes to, by the measure a norm with these facts divides by. */
export const unitMoment = ({ centred, divisor }: NormFacts): string =>
  divisor === 'width' ? (centred ? 'variance 1' : 'mean square 1') : 'sum of squares 1';

/**
 * One or two sentences about this token: what dominates σ² (or mean(x²)), or why there is nothing
 * to normalize; null for a token holding NaN or ±Inf (nonFiniteInsight says why there).
 */
export function insight(st: ExplainerStages, form: NormForm): string | null {
  const spec = normOfForm(form);
  const rms = !('centered' in st);
  // A token with NaN or ±Inf gets its own sentence (insight-nonfinite.ts, loaded when one comes).
  if (st.input.some((v) => !Number.isFinite(v))) return null;
  // What each feature adds to the statistic the norm divides by: (x − μ)² to σ², x² to mean(x²).
  const spread = 'centered' in st ? st.centered : st.input;
  const stat = spec.moment;
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
      ? `Every feature of this token is 0, so ${stat} = 0 and the output is all zeros.`
      : `Every feature of this token equals the mean, so x − μ is all zeros and the output is ${NORM_FORMS[form].bias ? 'just β' : 'all zeros'}.`;
  }
  const share = (spread[jMax]! ** 2 / total) * 100;
  if (share >= 25) {
    const others: number[] = [];
    for (let j = 0; j < d; j++) if (j !== jMax) others.push(Math.abs(st.normalized[j]!));
    const where = rms ? `is ${fmtNum(spread[jMax]!, 4)}` : `sits ${fmtNum(spread[jMax]!, 4)} from the mean`;
    const unit = unitMoment(spec);
    const squeeze = `${spec.centred && spec.divisor === 'width' ? '1/σ' : 'rstd'} = ${fmtNum(st.rstd, 3)}`;
    return (
      `Feature ${jMax} ${where} and alone makes up ${share.toFixed(1)}% of ${stat}. ` +
      `x̂ always has ${unit} in total, so that one massive activation takes ${share.toFixed(0)}% of it and a typical ` +
      `(median) feature is left with |x̂| ≈ ${fmtNum(others.length ? median(others) : 0, 2)}: x̂ is x squeezed by ${squeeze}.`
    );
  }
  return (
    `No single feature dominates this token: the largest share of ${stat} is ${share.toFixed(1)}% (feature ${jMax}), ` +
    (rms
      ? `so x̂ spreads evenly with ${unitMoment(spec)}; ${spec.name} does not centre it, so x̂ keeps the mean of x, scaled by rstd.`
      : `so x̂ spreads evenly around 0 with ${spec.divisor === 'width' ? 'unit variance' : unitMoment(spec)}.`)
  );
}
