/**
 * web/src/checks/rules.ts words each rule's message once; web/docs/errors.md quotes them. Every rule,
 * rendered with the arguments of one of its cases, is a message the catalogue quotes (and
 * tests/errors/catalogue.test.ts holds each quoted message to a case that throws it), so a rule's
 * wording cannot change without the catalogue and its cases changing with it.
 */
import { describe, expect, it } from 'vitest';
import { NO_OPTION_BECAUSE, RULES, oneOf } from '../../dist/checks/rules.js';
import { NORM_KINDS, NORMS } from '../../dist/norms.js';
import { errorsRows, quotes } from '../kit/catalogue/index.mjs';

const f32 = (n: number) => new Float32Array(n);

/** Each rule with the arguments of a case of the row that quotes it. */
const EXAMPLES: { [K in keyof typeof RULES]: [row: string, ...args: Parameters<(typeof RULES)[K]>][] } = {
  mustBe: [
    ['7', 'layerNorm', 'd', 'a positive integer', 0],
    ['R3', 'layerNorm', 'dtype', oneOf(['float32', 'float16', 'bfloat16']), 'fp16'],
    ['R22', 'halfBitsToFloat32', 'dtype', oneOf(['float16', 'bfloat16']), 'float32'],
    ['15', 'layerNorm', 'gamma', 'a Float32Array', [1, 1, 1]],
    ['24', 'layerNorm', 'options', 'an object', 5],
    ['R28', 'normReference', 'norm', oneOf(NORM_KINDS), 'batchnorm'],
  ],
  lengthAs: [
    ['21', 'layerNorm', 'out', 12, 'the same as x', 11],
    ['R5', 'rmsNorm', 'sumOut', 12, 'the same as x', 24],
    ['R12', 'layerNorm', 'mean', 4, 'one entry per row', 3],
    ['A12', 'compareOutputs', 'expected', 4, 'the same as y', 2],
  ],
  lengthD: [
    ['14', 'layerNorm', 'gamma', 3, 4],
    ['33', 'createLayerNorm', 'gamma', 3, 5],
    ['R7', 'layerNorm', 'bias', 3, 2],
  ],
  widthAtMost: [['13', 'layerNorm', 2 ** 28, 2 ** 29]],
  noOption: [
    ['R9', 'rmsNorm', NO_OPTION_BECAUSE.noBias(NORMS.rmsnorm.name), 'beta', f32(3)],
    ['R10', 'rmsNorm', NO_OPTION_BECAUSE.noMean(NORMS.rmsnorm.name), 'mean', new Float64Array(4)],
    ['R27', 'layerNormStats', NO_OPTION_BECAUSE.statisticsOfX(), 'residual', f32(12)],
  ],
  needsResidual: [
    ['R6', 'layerNorm', 'bias', f32(3)],
    ['R6', 'rmsNorm', 'sumOut', f32(12)],
  ],
  apart: [
    ['R8', 'layerNorm', 'sumOut', 'out'],
    ['R13', 'layerNorm', 'mean', 'rstd'],
  ],
  coreOutOfMemory: [['46b', 'layerNorm']],
};

describe('web/src/checks/rules.ts and web/docs/errors.md', () => {
  const rows = new Map(errorsRows().map((r) => [r.id, r]));

  it('every rule has an example, and every reason for refusing an option is used by one', () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual(Object.keys(RULES).sort());
    const used = EXAMPLES.noOption.map(([, , why]) => why);
    expect(used.sort()).toEqual(
      Object.values(NO_OPTION_BECAUSE)
        .map((why) => why(NORMS.rmsnorm.name))
        .sort(),
    );
  });

  for (const [name, examples] of Object.entries(EXAMPLES)) {
    for (const [row, ...args] of examples) {
      it(`${name} is quoted by row ${row}`, () => {
        const message = (RULES[name as keyof typeof RULES] as (...a: unknown[]) => string)(...args);
        const quoted = rows.get(row)?.messages ?? [];
        expect(quoted.length, `errors.md row ${row}`).toBeGreaterThan(0);
        expect(
          quoted.filter((q) => quotes(q, message)),
          `${message}\nis not among row ${row}'s quotes:\n${quoted.join('\n')}`,
        ).not.toEqual([]);
      });
    }
  }
});
