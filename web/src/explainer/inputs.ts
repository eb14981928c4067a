/**
 * The element's inputs, checked when they are set: a value of the wrong type is a TypeError, of
 * the right type but the wrong size or value a RangeError, each saying what was expected and what
 * came (as the package's functions do). The element catches them: a property never throws, it
 * shows the message and fires `error`.
 */
import { DEFAULT_NORM, isNormKind, NORM_KINDS, NORMS } from '../norms.js';
import { NO_OPTION_BECAUSE, RULES, oneOf } from '../checks/rules.js';
import { checkEps, numberError } from '../checks/validate.js';
import type { ExplainerActivations, ExplainerEngine, ExplainerWeights } from './types.js';

const WHERE = '<layernorm-explainer>';

/**
 * Numbers as float32, converted here once: what JSON gives (number[]) and other typed arrays are
 * taken as well as a Float32Array, which is kept as is (not copied).
 */
function float32(name: string, v: unknown): Float32Array {
  if (v instanceof Float32Array) return v;
  const numbers = Array.isArray(v)
    ? v.every((x) => typeof x === 'number')
    : ArrayBuffer.isView(v) && !(v instanceof DataView) && !(v instanceof BigInt64Array || v instanceof BigUint64Array);
  if (!numbers)
    throw new TypeError(RULES.mustBe(WHERE, name, 'a Float32Array, another typed array or an array of numbers', v));
  return Float32Array.from(v as ArrayLike<number>);
}

export function checkWeights(value: unknown): ExplainerWeights | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object')
    throw new TypeError(RULES.mustBe(WHERE, 'weights', 'an object { gamma, beta?, eps?, norm? } or null', value));
  const w = value as Record<string, unknown>;
  const gamma = float32('weights.gamma', w.gamma);
  if (gamma.length === 0) throw new RangeError(RULES.mustBe(WHERE, 'weights.gamma', 'd >= 1 values', gamma));
  const beta = w.beta === undefined || w.beta === null ? null : float32('weights.beta', w.beta);
  if (beta && beta.length !== gamma.length) {
    throw new RangeError(RULES.lengthD(WHERE, 'weights.beta', gamma.length, beta.length));
  }
  if (w.norm !== undefined && !isNormKind(w.norm)) {
    throw new TypeError(RULES.mustBe(WHERE, 'weights.norm', oneOf(NORM_KINDS), w.norm));
  }
  const norm = w.norm ?? DEFAULT_NORM;
  if (!NORMS[norm].bias && beta)
    throw new RangeError(RULES.noOption(WHERE, NO_OPTION_BECAUSE.noBias(NORMS[norm].name), 'weights.beta', beta));
  if (w.eps !== null) checkEps(WHERE, w.eps, 'weights.eps');
  if (w.architecture !== undefined && w.architecture !== null && typeof w.architecture !== 'string') {
    throw new TypeError(RULES.mustBe(WHERE, 'weights.architecture', 'a string or null', w.architecture));
  }
  return {
    gamma,
    beta,
    eps: (w.eps as number | null | undefined) ?? null,
    norm,
    architecture: (w.architecture as string | null | undefined) ?? null,
  };
}

function checkShape(name: string, value: unknown): number[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new TypeError(RULES.mustBe(WHERE, name, 'a non-empty array of positive integers', value));
  value.forEach((n: unknown, i) => {
    if (!(typeof n === 'number' && Number.isInteger(n) && n >= 1))
      throw numberError(WHERE, `${name}[${i}]`, 'a positive integer', n);
  });
  return [...value] as number[];
}

function checkTokens(name: string, value: unknown, rows: number): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.some((t) => typeof t !== 'string')) {
    throw new TypeError(RULES.mustBe(WHERE, name, 'an array of strings', value));
  }
  if (value.length !== rows)
    throw new RangeError(RULES.lengthAs(WHERE, name, rows, 'one string per row', value.length));
  return [...value] as string[];
}

const rowsOf = (shape: number[]) => shape.slice(0, -1).reduce((a, b) => a * b, 1);

export function checkActivations(value: unknown): ExplainerActivations | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object')
    throw new TypeError(RULES.mustBe(WHERE, 'activations', 'an object { data, shape, tokens? } or null', value));
  const a = value as Record<string, unknown>;
  const data = float32('activations.data', a.data);
  const shape = checkShape('activations.shape', a.shape);
  const size = shape.reduce((x, y) => x * y, 1);
  if (size !== data.length) {
    throw new RangeError(
      RULES.lengthAs(WHERE, 'activations.data', size, `the values of shape [${shape.join(', ')}]`, data.length),
    );
  }
  return { data, shape, tokens: checkTokens('activations.tokens', a.tokens, rowsOf(shape)) };
}

export function checkEngine(value: unknown): ExplainerEngine | null {
  if (value === null || value === undefined) return null;
  const e = value as Record<string, unknown>;
  if (typeof value !== 'object' || typeof e.explain !== 'function') {
    throw new TypeError(RULES.mustBe(WHERE, 'engine', 'an object { shape, tokens?, explain(request) } or null', value));
  }
  const shape = checkShape('engine.shape', e.shape);
  return {
    shape,
    tokens: checkTokens('engine.tokens', e.tokens, rowsOf(shape)),
    explain: (r) => (e.explain as ExplainerEngine['explain']).call(value, r),
  };
}

/** An integer >= 0 from a property (a TypeError or RangeError otherwise). */
export function checkIndex(name: string, value: unknown): number {
  if (!(typeof value === 'number' && Number.isInteger(value) && value >= 0))
    throw numberError(WHERE, name, 'an integer >= 0', value);
  return value;
}
