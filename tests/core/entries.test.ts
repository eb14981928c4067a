/**
 * 'layernorm-wasm/inline' is the default entry with its own init() (from the embedded build) and
 * embeddedWasm(): everything else it exports is the default entry's, the same objects.
 */
import { describe, expect, it } from 'vitest';
import * as main from '../../dist/index.js';
import * as inline from '../../dist/inline.js';

describe('the inline entry', () => {
  it("exports every name of 'layernorm-wasm', plus embeddedWasm", () => {
    expect(Object.keys(inline).sort()).toEqual([...Object.keys(main), 'embeddedWasm'].sort());
  });

  it('shares every export but init, which is its own', () => {
    for (const name of Object.keys(main)) {
      const own = inline[name as keyof typeof inline];
      if (name === 'init') expect(own).not.toBe(main.init);
      else expect(own, name).toBe(main[name as keyof typeof main]);
    }
  });
});
