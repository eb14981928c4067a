// The package's worker script, plus a way to make it fail on cue: a layerNormStats call with
// d = 17 throws outside any call. This listener is added before the script's, so the fatal call
// never reaches the script.
self.addEventListener('message', (e) => {
  const m = e.data;
  if (m?.type === 'call' && m.method === 'layerNormStats' && m.args[1] === 17) {
    e.stopImmediatePropagation();
    throw new Error('worker fault');
  }
});
await import('/dist/worker/script.js');
