// A module worker that loads weights with the package's default fetch (no fetch option) and posts
// back what it got: { url, loader } in, { ok, weights } or { ok: false, error } out.
import { loadLayerNormWeights, loadNormWeights } from '/dist/io/index.js';

const LOADERS = { loadLayerNormWeights, loadNormWeights };

self.onmessage = async ({ data }) => {
  try {
    const w = await LOADERS[data.loader](data.url);
    self.postMessage({ ok: true, weights: w });
  } catch (error) {
    self.postMessage({ ok: false, error: { name: error.name, message: error.message, cause: String(error.cause) } });
  }
};
