/**
 * What the empty element says: what to set, with a two-line example. In the element's own chunk,
 * not a lazy one: a host whose data comes after the guide's delay (a page whose worker is slow to
 * start) would otherwise fetch a chunk for these three lines, and a first-load budget with it.
 */
export const EMPTY_GUIDE =
  'Nothing to explain yet: give the element hidden states (and weights), for example\n' +
  '<layernorm-explainer src="model.safetensors" activations-src="hidden.npy" tokens-src="tokens.json"></layernorm-explainer>\n' +
  'or from a script: el.activations = { data, shape: [tokens, d], tokens }; el.weights = { gamma, beta }.';
