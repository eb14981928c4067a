/**
 * The Layer card's radios, one per form in the norm table (NORM_FORMS, web/src/norms.ts), written
 * into parts/weights.html at `<!-- norm-forms -->` when the page is built: a new norm's form gets
 * its radio from its row. Read from the built package (dist/), as the page's code reads it.
 */
import { DEFAULT_FORM, DEFAULT_NORM, NORM_FORM_NAMES, NORM_FORMS, type NormForm } from '../../../dist/norms.js';

/** The page's own words for a form, where it says more than the table's label (its HTML). */
const WORDING: Partial<Record<NormForm, string>> = {
  layernorm: 'GPT-2 <code>ln_f</code> — gain γ and bias β',
  biasfree: 'Bias-free — gain γ only (as LDLM’s final norm)',
  rmsnorm: 'RMSNorm — gain γ only, no centring',
};

/** Where the weights of a norm other than the default one come from (its form is not a preset). */
const OTHER_NORM_HINT: Partial<Record<NormForm, string>> = {
  rmsnorm: 'a Llama-family GGUF, or a config.json with <code>rms_norm_eps</code>',
};

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The radios: the default form checked; another norm's forms disabled until its weights load. */
export function normFormRadios(): string {
  return NORM_FORM_NAMES.map((form) => {
    const preset = NORM_FORMS[form].norm === DEFAULT_NORM;
    const attrs = form === DEFAULT_FORM ? ' checked' : preset ? '' : ' disabled';
    const words = WORDING[form] ?? escapeHtml(NORM_FORMS[form].label);
    const hint = preset
      ? ''
      : ` <span class="hint">when the checkpoint holds one${OTHER_NORM_HINT[form] ? `: ${OTHER_NORM_HINT[form]}` : ''}</span>`;
    return `<label class="radio"><input type="radio" name="preset" value="${form}"${attrs} /> ${words}${hint}</label>`;
  }).join('\n      ');
}
