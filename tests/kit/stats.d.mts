type Floats = ArrayLike<number>;

export interface ExactLayerNormStats {
  mean: Float64Array;
  variance: Float64Array;
  rstd: Float64Array;
}
export interface ExactRmsNormStats {
  meanSquare: Float64Array;
  rstd: Float64Array;
}
export function exactStats(h: Floats, d: number, options?: { norm?: 'layernorm'; eps?: number }): ExactLayerNormStats;
export function exactStats(h: Floats, d: number, options: { norm: 'rmsnorm'; eps?: number }): ExactRmsNormStats;
/** A norm given by its facts: its mean if it centres, its moment by the name its facts give it, rstd. */
export function exactStats(
  h: Floats,
  d: number,
  options: { norm: import('./exact.mjs').NormFacts; eps?: number },
): Record<string, Float64Array>;

export function exactReference(
  h: Floats,
  d: number,
  options?: { norm?: 'layernorm'; gamma?: Floats | null; beta?: Floats | null; eps?: number },
): ExactLayerNormStats & { y: Float32Array };
export function exactReference(
  h: Floats,
  d: number,
  options: { norm: 'rmsnorm'; gamma?: Floats | null; eps?: number },
): ExactRmsNormStats & { y: Float32Array };

export interface ExactLayerNormStages {
  mean: number;
  variance: number;
  rstd: number;
  centered: Float64Array;
  normalized: Float64Array;
  scaled: Float64Array;
}
export interface ExactRmsNormStages {
  meanSquare: number;
  rstd: number;
  normalized: Float64Array;
  scaled: Float64Array;
}
export function exactStages(
  h: Floats,
  d: number,
  row: number,
  options?: { norm?: 'layernorm'; gamma?: Floats | null; eps?: number },
): ExactLayerNormStages;
export function exactStages(
  h: Floats,
  d: number,
  row: number,
  options: { norm: 'rmsnorm'; gamma?: Floats | null; eps?: number },
): ExactRmsNormStages;
