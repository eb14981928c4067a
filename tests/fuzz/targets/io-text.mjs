// The `io-text` fuzz target: parseActivationsText on the same text inputs as io-json.
import fc from 'fast-check';
import { textInputs } from '../arbitraries.mjs';
import { checkSync } from '../checks.mjs';

export function ioTextTarget({ io }) {
  return {
    name: 'io-text',
    async: false,
    property: () =>
      fc.property(textInputs, (t) =>
        checkSync('parseActivationsText', () => io.parseActivationsText(t), { formats: ['text'], source: undefined }),
      ),
  };
}
