// The `io-weights-npy` fuzz target: loadLayerNormWeights on arbitrary, mutated and deeply nested
// .npy vectors (the weights path, unlike io-npy's readNpy).
import fc from 'fast-check';
import { deepNpyArbitrary, mutatedOrDeep } from '../arbitraries.mjs';
import { checkLoadWeights } from '../checks.mjs';
import { sampleNpy } from '../../kit/checkpoints/index.mjs';

export function ioWeightsNpyTarget({ io }) {
  const bytes = mutatedOrDeep(sampleNpy([4]), deepNpyArbitrary());
  return {
    name: 'io-weights-npy',
    async: true,
    property: () => fc.asyncProperty(bytes, (b) => checkLoadWeights(io, 'npy', b)),
  };
}
