// The `io-safetensors` fuzz target: loadLayerNormWeights on arbitrary, mutated and deeply nested
// safetensors bytes.
import fc from 'fast-check';
import { mutatedOrDeep } from '../arbitraries.mjs';
import { checkLoadWeights } from '../checks.mjs';
import { concat, le64, sampleSafetensors, utf8 } from '../../kit/checkpoints/index.mjs';

/** safetensors files whose header nests arrays n deep where a tensor's fields belong. */
export const deepSafetensorsArbitrary = fc
  .record({
    depth: fc.integer({ min: 1, max: 30_000 }),
    field: fc.constantFrom('dtype', 'shape', 'data_offsets', 'entry'),
  })
  .map(({ depth, field }) => {
    const nested = '['.repeat(depth) + ']'.repeat(depth);
    const entry = { dtype: '"F32"', shape: '[2]', data_offsets: '[0,8]' };
    const body =
      field === 'entry'
        ? nested
        : `{${Object.entries({ ...entry, [field]: nested })
            .map(([k, v]) => `"${k}":${v}`)
            .join(',')}}`;
    const header = utf8(`{"ln_f.weight":${body}}`);
    return concat([le64(header.length), header, new Uint8Array(8)]);
  });

export function ioSafetensorsTarget({ io }) {
  const bytes = mutatedOrDeep(sampleSafetensors(), deepSafetensorsArbitrary);
  return {
    name: 'io-safetensors',
    async: true,
    property: () => fc.asyncProperty(bytes, (b) => checkLoadWeights(io, 'safetensors', b)),
  };
}
