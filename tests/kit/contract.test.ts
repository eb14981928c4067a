// The contract check accepts what meets it and names the element that does not.
import { describe, expect, it } from 'vitest';
import { contractViolation } from './contract.mjs';

describe('contractViolation', () => {
  const exact = new Float32Array([1, -2, NaN, Infinity, 0]);

  it('accepts errors up to the bound and the exact NaN/±Infinity pattern', () => {
    const y = new Float32Array([1 + 4 * 2 ** -23, -2, NaN, Infinity, -0]);
    expect(contractViolation(y, exact, null, 5)).toBeNull();
    expect(contractViolation(y, exact, null, 5, { bound: 3 })).toBe(
      `row 0, column 0: ${y[0]} where the exact answer is 1 (β 0): 4.000 scaled ULP > 3`,
    );
    expect(contractViolation(y, exact, null, 5, { bound: 3, slack: (i) => (i === 0 ? 1 : 0) })).toBeNull();
  });

  it('names the worst element beyond the bound, measured beside β', () => {
    // 8 spacings at column 1; at column 4, 2^-149 is nothing beside β = 2^20.
    const y = new Float32Array([1 + 5 * 2 ** -23, -2 - 2 ** -19, NaN, Infinity, 2 ** -149]);
    const beta = new Float32Array([0, 0, 0, 0, 2 ** 20]);
    expect(contractViolation(y, exact, beta, 5)).toBe(
      `row 0, column 1: ${y[1]} where the exact answer is -2 (β 0): 8.000 scaled ULP > 6.5`,
    );
  });

  it('refuses Inf or NaN where the exact answer is finite, and a finite value where it overflows', () => {
    expect(contractViolation(new Float32Array([Infinity]), new Float32Array([3e38]), null, 1)).toBe(
      'row 0, column 0: Infinity where the exact answer is 3.0000000054977558e+38',
    );
    expect(contractViolation(new Float32Array([3.4028234663852886e38]), new Float32Array([Infinity]), null, 1)).toBe(
      'row 0, column 0: 3.4028234663852886e+38 where the exact answer is Infinity',
    );
    expect(contractViolation(new Float32Array([0, 5]), new Float32Array([0, NaN]), null, 1)).toBe(
      'row 1, column 0: 5 where the exact answer is NaN',
    );
  });
});
