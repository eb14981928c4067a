/**
 * Token ids, checked against the model before it runs: integers, at least one, no more than its
 * context (the rows of its position table) and each within its vocabulary (the rows of its token
 * embedding), where the model has those tables. A wrong id would otherwise be the runtime's
 * out-of-range Gather, or silently another token.
 */
import { describe } from '../checks/describe.js';
import { RULES } from '../checks/rules.js';
import type { OnnxModel } from './types.js';

export function checkTokens(fn: string, tokens: unknown, model: OnnxModel): number[] {
  const isList = Array.isArray(tokens) || (ArrayBuffer.isView(tokens) && !(tokens instanceof DataView));
  if (!isList) throw new TypeError(RULES.mustBe(fn, 'tokens', 'an array or typed array of token ids', tokens));
  const list = tokens as ArrayLike<unknown>;
  if (list.length === 0) throw new RangeError(`${fn}: tokens must hold at least one token id, got length 0`);
  const context = model.context;
  if (context && list.length > context.size) {
    const why = `at most ${context.size} token ids (the model's context: the rows of ${context.tensor})`;
    throw new RangeError(`${fn}: tokens must hold ${why}, got length ${list.length}`);
  }
  const vocabulary = model.vocabulary;
  const expected = vocabulary
    ? `an integer in [0, ${vocabulary.size}) (the vocabulary: the rows of ${vocabulary.tensor})`
    : 'an integer >= 0';
  const ids: number[] = [];
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    const n = typeof v === 'bigint' ? Number(v) : v;
    if (typeof n !== 'number') throw new TypeError(RULES.mustBe(fn, `tokens[${i}]`, expected, v));
    const limit = vocabulary ? vocabulary.size : Number.MAX_SAFE_INTEGER;
    if (!Number.isInteger(n) || n < 0 || n >= limit || (typeof v === 'bigint' && BigInt(n) !== v)) {
      throw new RangeError(`${fn}: tokens[${i}] must be ${expected}, got ${describe(v)}`);
    }
    ids.push(n);
  }
  return ids;
}
