// The `io-json` fuzz target: parseActivationsJson on arbitrary, JSON-like and deeply nested text.
import fc from 'fast-check';
import { textInputs } from '../arbitraries.mjs';
import { checkSync } from '../checks.mjs';

export function ioJsonTarget({ io }) {
  return {
    name: 'io-json',
    async: false,
    property: () =>
      fc.property(textInputs, (t) =>
        checkSync('parseActivationsJson', () => io.parseActivationsJson(t), { formats: ['json'], source: undefined }),
      ),
  };
}
