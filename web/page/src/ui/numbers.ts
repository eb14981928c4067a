/**
 * Numbers as <layernorm-explainer> writes them (significant digits, counts, ε), so that a value
 * the page shows beside the explainer reads the same in both. From the package's explainer entry,
 * which the page loads anyway; kept apart from format.ts, which the engine's worker also imports.
 */
export { formatCount as fmtInt, formatEps as fmtEps, formatNumber as fmtNum } from 'layernorm-wasm/explainer';
