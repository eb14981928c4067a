// The plain-JS LayerNorm competitor (candidate `js:out`), best effort: two passes, float64
// accumulation in JS numbers, 4 accumulators. Not an oracle: candidates are checked against the
// package's layerNormReference.

export function plainLayerNorm(x, rows, d, gamma, beta, eps, out) {
  // Separate monomorphic functions per variant keep V8's optimized code specialized.
  return beta ? plainLayerNormGB(x, rows, d, gamma, beta, eps, out) : plainLayerNormNB(x, rows, d, gamma, eps, out);
}

const rowMean = new Float64Array(1);

function rowStats(x, o, d, eps) {
  const d4 = d & ~3;
  let s0 = 0,
    s1 = 0,
    s2 = 0,
    s3 = 0;
  let i = 0;
  for (; i < d4; i += 4) {
    s0 += x[o + i];
    s1 += x[o + i + 1];
    s2 += x[o + i + 2];
    s3 += x[o + i + 3];
  }
  for (; i < d; i++) s0 += x[o + i];
  const mean = (s0 + s1 + s2 + s3) / d;
  let v0 = 0,
    v1 = 0,
    v2 = 0,
    v3 = 0;
  for (i = 0; i < d4; i += 4) {
    const c0 = x[o + i] - mean;
    const c1 = x[o + i + 1] - mean;
    const c2 = x[o + i + 2] - mean;
    const c3 = x[o + i + 3] - mean;
    v0 += c0 * c0;
    v1 += c1 * c1;
    v2 += c2 * c2;
    v3 += c3 * c3;
  }
  for (; i < d; i++) {
    const c = x[o + i] - mean;
    v0 += c * c;
  }
  rowMean[0] = mean;
  return 1 / Math.sqrt((v0 + v1 + v2 + v3) / d + eps);
}

function plainLayerNormGB(x, rows, d, gamma, beta, eps, out) {
  for (let r = 0, o = 0; r < rows; r++, o += d) {
    const rstd = rowStats(x, o, d, eps);
    const mean = rowMean[0];
    for (let i = 0; i < d; i++) out[o + i] = (x[o + i] - mean) * rstd * gamma[i] + beta[i];
  }
  return out;
}

function plainLayerNormNB(x, rows, d, gamma, eps, out) {
  for (let r = 0, o = 0; r < rows; r++, o += d) {
    const rstd = rowStats(x, o, d, eps);
    const mean = rowMean[0];
    for (let i = 0; i < d; i++) out[o + i] = (x[o + i] - mean) * rstd * gamma[i];
  }
  return out;
}
