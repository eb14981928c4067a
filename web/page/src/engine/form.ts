/**
 * The form a norm runs in, decided here alone: the page's settings (state.ts) say which form the
 * Layer card shows and every result is checked against, and the engine (norm.ts) runs that form, so
 * the two cannot disagree.
 */
import { NORM_FORMS, normFormOf, type NormForm, type NormKind } from 'layernorm-wasm';

/**
 * The form that runs: the checkpoint's norm, with β when it has one and the picked form keeps it
 * (an RMSNorm has none; a LayerNorm without β runs bias-free). Before any weights, the picked form.
 */
export function formToRun(weights: { norm: NormKind; beta: Float32Array | null } | null, picked: NormForm): NormForm {
  return weights ? normFormOf(weights.norm, weights.beta !== null && NORM_FORMS[picked].bias) : picked;
}
