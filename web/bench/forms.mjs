// The forms the benchmark runs a norm in, by the codes its candidate ids and tables use: the
// package's NORM_FORMS (web/src/norms.ts), read from this checkout's build, also when another build
// is measured (LAYERNORM_WASM_ENTRY, --against), so that every run spells its ids one way.
let forms;
try {
  ({ NORM_FORMS: forms } = await import('../../dist/norms.js'));
} catch (e) {
  throw new Error(`the benchmark needs the built package (npm run build): dist/norms.js ${e?.message ?? e}`);
}

/** γ and β: GPT-2's ln_f. */
export const BIAS = forms.layernorm.bench;
/** γ only: the bias-free LayerNorm, and the RMSNorm candidates (measured beside it). */
export const NO_BIAS = forms.biasfree.bench;
/** The RMSNorm call, in the ids of its candidates and of its reference. */
export const RMS = forms.rmsnorm.bench;

/** The variants every LayerNorm candidate runs in, and their names in the tables. */
export const VARIANTS = [BIAS, NO_BIAS];
export const VARIANT_LABEL = { [BIAS]: 'gain+bias', [NO_BIAS]: forms.biasfree.short, '-': '—' };
