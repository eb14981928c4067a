// The worker's own rows of web/docs/errors.md (W1–W3): the options only a call through
// initWorker() takes. Cases as in numeric.mjs; they run in the worker driver alone.
const WORKER = { on: 'worker' };

// prettier-ignore
export const WORKER_CASES = [
  ['W1', 'signal not an AbortSignal', (c) => c.t.layerNorm(c.x(), 3, { signal: 5 }), 'TypeError', 'layerNorm: signal must be an AbortSignal, got number 5', WORKER],
  ['W2', 'onProgress not a function', (c) => c.t.layerNorm(c.x(), 3, { onProgress: 'log' }), 'TypeError', 'layerNorm: onProgress must be a function, got string "log"', WORKER],
  ['W3', 'transfer not a boolean', (c) => c.t.layerNorm(c.x(), 3, { transfer: 'yes' }), 'TypeError', 'layerNorm: transfer must be true or false, got string "yes"', WORKER],
];
