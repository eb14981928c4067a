type Floats = ArrayLike<number>;

export interface ExactOptions {
  gamma?: Floats | null;
  beta?: Floats | null;
  /** Default 1e-5. */
  eps?: number;
  /** Decide every element by exact comparisons alone (to test the oracle's first guess). */
  guessless?: boolean;
}

export function exactLayerNorm(h: Floats, d: number, options?: ExactOptions): Float32Array;
export function exactRmsNorm(h: Floats, d: number, options?: Omit<ExactOptions, 'beta'>): Float32Array;

/** A norm's facts: whether it subtracts the row's mean, and what its moment divides Σc² by (d or 1). */
export interface NormFacts {
  centred: boolean;
  divisor: 'width' | 'one';
  /** Whether β applies (absent: as given). */
  bias?: boolean;
}
export function factsOf(norm: 'layernorm' | 'rmsnorm' | NormFacts): NormFacts;
export function exactNormOf(facts: NormFacts, h: Floats, d: number, options?: ExactOptions): Float32Array;

export function ulp32(s: number): number;

export interface ExactComparison {
  maxSulp: number;
  worst: number;
  lost: number;
  nonFinite: number;
  differing: number;
}
export function compareToExact(y: Floats, exact: Floats, beta: Floats | null, d: number): ExactComparison;
export function sulp(y: Floats, exact: Floats, beta: Floats | null, d: number): number;
export function residualSum(x: Floats, r: Floats, bias: Floats | null, d: number): Float32Array;
export const F32_MAX: number;
