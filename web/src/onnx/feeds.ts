/**
 * The tensors a run feeds, one for every input the graph declares, as transformers.js feeds a
 * decoder's first step: the token ids as one sequence, an attention mask of ones, positions from 0,
 * past keys and values of the declared shapes holding nothing (a past length of 0), and
 * use_cache_branch false where a merged decoder declares it. A tensor the caller gives is used as is.
 */
import { FormatError } from '../io/errors.js';
import { PROBLEMS } from './problems.js';
import type { ModelInternals } from './reader.js';
import type { OnnxRuntime, OrtTensor } from './runtime-types.js';
import type { OnnxModel, OnnxValue } from './types.js';

/** Inputs that hold the keys and values of earlier tokens: empty on a first step. */
const PAST = /^past|(^|[._])(past|cache)[._]/i;

export function feedsFor(
  ort: OnnxRuntime,
  model: OnnxModel,
  inner: ModelInternals,
  ids: readonly number[],
  given: Readonly<Record<string, OrtTensor>>,
): Record<string, OrtTensor> {
  const feeds: Record<string, OrtTensor> = {};
  for (const input of model.inputs) {
    const made = given[input.name] ?? fill(ort, input, inner.tokenInput, ids);
    if (!made) {
      const type = input.type ?? 'of unstated type';
      throw new FormatError('onnx', PROBLEMS.unfillableInput(input.name, type, input.shape), { source: model.source });
    }
    feeds[input.name] = made;
  }
  return feeds;
}

/** A sequence's tensor: [1, count], or [count] where the input is declared of rank 1. */
function sequence(ort: OnnxRuntime, input: OnnxValue, values: (i: number) => number, count: number): OrtTensor | null {
  const dims = input.shape?.length === 1 ? [count] : [1, count];
  const at = Array.from({ length: count }, (_, i) => values(i));
  switch (input.type) {
    case 'int64':
      return new ort.Tensor('int64', BigInt64Array.from(at, BigInt), dims);
    case 'int32':
      return new ort.Tensor('int32', Int32Array.from(at), dims);
    case 'float32':
      return new ort.Tensor('float32', Float32Array.from(at), dims);
    case 'bool':
      return new ort.Tensor('bool', Uint8Array.from(at), dims);
    default:
      return null;
  }
}

function fill(ort: OnnxRuntime, input: OnnxValue, tokenInput: string | null, ids: readonly number[]): OrtTensor | null {
  const n = ids.length;
  if (input.name === tokenInput) return sequence(ort, input, (i) => ids[i]!, n);
  if (input.name === 'attention_mask') return sequence(ort, input, () => 1, n);
  if (input.name === 'position_ids') return sequence(ort, input, (i) => i, n);
  if (input.name === 'use_cache_branch' && input.type === 'bool') return new ort.Tensor('bool', Uint8Array.of(0), [1]);
  if (PAST.test(input.name) && input.shape) {
    // The batch (the first dimension) is 1; every other dimension the file leaves open is the past length, 0.
    const dims = input.shape.map((d, i) => (typeof d === 'number' ? d : i === 0 ? 1 : 0));
    const size = dims.reduce((a, b) => a * b, 1);
    // Dimensions the file fixes may be negative or too many to hold: such an input is not filled.
    if (!Number.isSafeInteger(size) || size < 0 || size > 2 ** 28) return null;
    if (input.type === 'float32') return new ort.Tensor('float32', new Float32Array(size), dims);
    if (input.type === 'float16') return new ort.Tensor('float16', new Uint16Array(size), dims);
  }
  return null;
}
