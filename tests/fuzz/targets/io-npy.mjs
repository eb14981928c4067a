// The `io-npy` fuzz target: readNpy on arbitrary, mutated and deeply nested .npy bytes.
import fc from 'fast-check';
import { deepNpyArbitrary, mutatedOrDeep } from '../arbitraries.mjs';
import { checkSync } from '../checks.mjs';
import { sampleNpy } from '../../kit/checkpoints/index.mjs';

export function ioNpyTarget({ io }) {
  const npy = sampleNpy();
  return {
    name: 'io-npy',
    async: false,
    property: () =>
      fc.property(mutatedOrDeep(npy, deepNpyArbitrary()), (b) =>
        checkSync('readNpy', () => io.readNpy(b), { formats: ['npy'], source: 'npy data' }),
      ),
  };
}
