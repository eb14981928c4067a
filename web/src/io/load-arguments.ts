/**
 * The source and options of loadNormWeights / loadLayerNormWeights, checked before anything is
 * read (the rule and message shape of ./arguments.ts).
 */

import { RULES } from '../checks/rules.js';
import {
  BYTE_SOURCE,
  checkByteSourceInput,
  checkByteSourceOptions,
  checkLive,
  checkName,
  checkString,
  isByteSourceInput,
} from './arguments.js';
import type { NpyPairSource, LoadWeightsOptions, WeightsSource } from './load-types.js';

const FORMATS = ['safetensors', 'gguf', 'npy'] as const;

/** `{ gamma, beta }` of .npy sources, told apart from the byte sources (none of which has `gamma`). */
export function isNpyPair(value: unknown): value is NpyPairSource {
  return typeof value === 'object' && value !== null && !isByteSourceInput(value) && 'gamma' in value;
}

export function checkWeightsSource(fn: string, source: unknown): WeightsSource {
  if (isNpyPair(source)) {
    checkByteSourceInput(fn, 'source.gamma', source.gamma);
    if (source.beta !== undefined && source.beta !== null) checkByteSourceInput(fn, 'source.beta', source.beta);
    return source;
  }
  if (!isByteSourceInput(source)) {
    throw new TypeError(RULES.mustBe(fn, 'source', `${BYTE_SOURCE}, or { gamma, beta } of .npy sources`, source));
  }
  checkLive(fn, 'source', source);
  return source;
}

export function checkLoadOptions(fn: string, options: unknown): LoadWeightsOptions {
  const o = checkByteSourceOptions(fn, options);
  if (o.weight !== undefined) checkString(fn, 'weight', o.weight);
  if (o.bias !== undefined && o.bias !== null && typeof o.bias !== 'string') {
    throw new TypeError(RULES.mustBe(fn, 'bias', 'a string or null', o.bias));
  }
  if (o.format !== undefined) checkName(fn, 'format', o.format, FORMATS);
  const config = o.config;
  // A parsed config.json is any object that is not an array; the byte sources are objects too.
  const isConfig = isByteSourceInput(config) || (typeof config === 'object' && !Array.isArray(config));
  if (config !== undefined && !isConfig) {
    throw new TypeError(
      RULES.mustBe(fn, 'config', `${BYTE_SOURCE} of config.json, its parsed object, or null`, config),
    );
  }
  checkLive(fn, 'config', config);
  return o as LoadWeightsOptions;
}

/**
 * A .npy has no tensor names: naming the gain or the bias is a mistake to report, not to ignore.
 * `what` says which .npy source it is ("a .npy file", "a { gamma, beta } pair of .npy files").
 */
export function refuseTensorNames(fn: string, options: LoadWeightsOptions, what: string): void {
  if (options.weight !== undefined) {
    throw new RangeError(RULES.mustBe(fn, 'weight', `omitted for ${what} (it has no tensor names)`, options.weight));
  }
  if (typeof options.bias === 'string') {
    throw new RangeError(
      RULES.mustBe(
        fn,
        'bias',
        `null or omitted for ${what} (it has no tensor names; pass { gamma, beta } for a gain and a bias)`,
        options.bias,
      ),
    );
  }
}
