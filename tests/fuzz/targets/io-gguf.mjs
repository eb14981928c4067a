// The `io-gguf` fuzz target: loadLayerNormWeights on arbitrary and mutated GGUF bytes. (No deeply
// nested variant: GGUF's metadata is counted, not bracketed.)
import fc from 'fast-check';
import { bytesArbitrary } from '../arbitraries.mjs';
import { checkLoadWeights } from '../checks.mjs';
import { sampleGguf } from '../../kit/checkpoints/index.mjs';

export function ioGgufTarget({ io }) {
  const bytes = bytesArbitrary(sampleGguf());
  return {
    name: 'io-gguf',
    async: true,
    property: () => fc.asyncProperty(bytes, (b) => checkLoadWeights(io, 'gguf', b)),
  };
}
