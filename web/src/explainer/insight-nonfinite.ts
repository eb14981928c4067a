/** What the explainer says about a token whose input holds NaN or ±Inf: loaded when one comes. */
import { normOfForm, type NormForm } from '../norms.js';
import type { ExplainerStages } from './types.js';

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

/** Why there is nothing to normalize this token by, and what its outputs are. */
export function nonFiniteInsight(st: ExplainerStages, form: NormForm): string {
  const { centred, moment } = normOfForm(form);
  const { nan, posInf, negInf } = nonFiniteFeatures(st.input);
  const list = (name: string, fs: number[]) =>
    fs.length
      ? `${name} at feature${fs.length > 1 ? 's' : ''} ${fs.slice(0, 5).join(', ')}${fs.length > 5 ? ', …' : ''}`
      : '';
  const what = [list('NaN', nan), list('+Inf', posInf), list('−Inf', negInf)].filter(Boolean).join(' and ');
  const allNaN = st.output.every((v) => Number.isNaN(v));
  return (
    `This token's input holds ${what}, so ${centred ? `μ and ${moment} are not numbers` : `${moment} is not a number`} and there is nothing to normalize by: ` +
    (allNaN
      ? 'every output of this row is NaN, as in PyTorch. Fix the input; no ε helps.'
      : 'its outputs are not finite.')
  );
}
