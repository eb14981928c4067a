// The inputs every matrix app normalizes, made with integer arithmetic only, so the browser apps,
// the Node app and the runner's reference build bit-identical arrays.
export const D = 768;
export const ROWS = 4;

function generator(seed) {
  let s = seed >>> 0;
  return () => {
    // xorshift32, then 24 bits scaled to [-1, 1): exact in float32.
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return (s >>> 8) / 2 ** 23 - 1;
  };
}

/** Rows: plain values, a large common offset (1e4 + noise), a constant row, and one with a massive channel. */
export function inputs() {
  const next = generator(20240607);
  const x = new Float32Array(ROWS * D);
  const gamma = new Float32Array(D);
  const beta = new Float32Array(D);
  for (let i = 0; i < D; i++) {
    x[i] = 3 * next();
    x[D + i] = 1e4 + next();
    x[2 * D + i] = 0.25;
    x[3 * D + i] = i === 447 ? 3000 : next();
    gamma[i] = 1 + 0.5 * next();
    beta[i] = 0.125 * next();
  }
  return { x, gamma, beta };
}
