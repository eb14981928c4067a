import { describe, expect, it } from 'vitest';
import { FormatError, parseActivationsJson, parseActivationsText } from '../../web/src/io/index.js';

function formatErrorOf(fn: () => unknown): FormatError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(FormatError);
    return error as FormatError;
  }
  throw new Error('expected a FormatError');
}

describe('parseActivationsJson', () => {
  it('reads nested arrays with the shape from the nesting', () => {
    const r = parseActivationsJson('[[[1, 2.5, -3e2], [4, 5, 6]]]');
    expect(r.shape).toEqual([1, 2, 3]);
    expect(Array.from(r.data)).toEqual([1, 2.5, -300, 4, 5, 6]);
  });

  it('reads { shape, data } with flat or nested data, and Python non-finite literals', () => {
    const flat = parseActivationsJson('{"shape": [2, 2], "data": [1, NaN, Infinity, -Infinity]}');
    expect(flat.shape).toEqual([2, 2]);
    expect(Array.from(flat.data)).toEqual([1, NaN, Infinity, -Infinity]);
    const nested = parseActivationsJson('{"data": [[1, 2], [3, 4]], "shape": [4]}');
    expect(nested.shape).toEqual([4]);
    expect(Array.from(nested.data)).toEqual([1, 2, 3, 4]);
  });

  it('rounds to float32', () => {
    expect(parseActivationsJson('[0.1]').data[0]).toBe(Math.fround(0.1));
  });

  it('reports line and column for syntax errors', () => {
    const e = formatErrorOf(() => parseActivationsJson('[[1, 2],\n [3, 4}\n]', 'x.json'));
    expect([e.line, e.column, e.format]).toEqual([2, 7, 'json']);
    expect(e.message).toBe('x.json: invalid json: expected "," or "]" in the array, got "}" (line 2, column 7)');
    const end = formatErrorOf(() => parseActivationsJson('[1, 2'));
    expect(end.message).toContain('got the end of the input');
    expect([end.line, end.column]).toEqual([1, 6]);
  });

  it('reports ragged rows at the offending row', () => {
    const e = formatErrorOf(() => parseActivationsJson('[\n  [1, 2, 3],\n  [4, 5]\n]'));
    expect([e.line, e.column]).toEqual([3, 3]);
    expect(e.message).toContain('ragged the activations: expected 3 elements like the first array at depth 1, got 2');
    const deeper = formatErrorOf(() => parseActivationsJson('[[1, 2], 3]'));
    expect(deeper.message).toContain('expected an array of 2 at depth 1, got the number 3');
  });

  it('rejects non-numbers, wrong shapes and bad documents with positions', () => {
    const s = formatErrorOf(() => parseActivationsJson('[[1, "2"]]'));
    expect([s.line, s.column]).toEqual([1, 6]);
    expect(s.message).toContain('expected a number at depth 2 of the activations, got the string "2"');
    const n = formatErrorOf(() => parseActivationsJson('[1, null]'));
    expect(n.message).toContain('got null');
    const shape = formatErrorOf(() => parseActivationsJson('{"shape": [2, 3],\n "data": [1, 2, 3]}'));
    expect(shape.message).toContain('"shape" [2, 3] needs 6 values, "data" has 3');
    expect([shape.line, shape.column]).toEqual([2, 10]);
    const keys = formatErrorOf(() => parseActivationsJson('{"values": [1]}'));
    expect(keys.message).toContain('expected an object with "shape" and "data", got keys ["values"]');
    const scalar = formatErrorOf(() => parseActivationsJson('  42'));
    expect(scalar.message).toContain('expected the activations to be an array of numbers, got the number 42');
    const trailing = formatErrorOf(() => parseActivationsJson('[1]\n  x'));
    expect([trailing.line, trailing.column]).toEqual([2, 3]);
  });
});

describe('parseActivationsJson: depth and size the input cannot turn against the parser', () => {
  it('20,000 nested arrays are a FormatError, not a stack overflow', () => {
    for (const text of ['['.repeat(20_000), `${'['.repeat(20_000)}1${']'.repeat(20_000)}`]) {
      const e = formatErrorOf(() => parseActivationsJson(text, 'deep.json'));
      expect(e.message).toMatch(/^deep\.json: invalid json: /);
    }
    const closed = formatErrorOf(() => parseActivationsJson(`${'['.repeat(20_000)}1${']'.repeat(20_000)}`));
    expect(closed.message).toBe(
      'invalid json: expected the activations to have at most 64 dimensions, got arrays nested deeper (line 1, column 65)',
    );
    const open = formatErrorOf(() => parseActivationsJson('['.repeat(20_000)));
    expect(open.message).toBe(
      'invalid json: expected a number, array or object, got the end of the input (line 1, column 20001)',
    );
  });

  it('20,000 nested objects are a FormatError too', () => {
    const text = `${'{"a": '.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const e = formatErrorOf(() => parseActivationsJson(text));
    expect(e.message).toBe(
      'invalid json: expected an object with "shape" and "data", got keys ["a"] (line 1, column 1)',
    );
  });

  it('64 dimensions are fine; "shape" with 65 is not', () => {
    const r = parseActivationsJson(`${'['.repeat(64)}7${']'.repeat(64)}`);
    expect(r.shape).toEqual(new Array(64).fill(1));
    expect(Array.from(r.data)).toEqual([7]);
    const e = formatErrorOf(() => parseActivationsJson(`{"shape": [${new Array(65).fill(1).join(',')}], "data": [7]}`));
    expect(e.message).toBe('invalid json: expected "shape" to have at most 64 dimensions, got 65 (line 1, column 11)');
  });

  it('a ragged document whose first arrays claim 10^20 values is refused before anything is sized from it', () => {
    // Ten levels of 100: only the first array at each level is full, the rest are single numbers.
    let text = '0';
    for (let k = 0; k < 10; k++) text = `[${text}${',0'.repeat(99)}]`;
    const e = formatErrorOf(() => parseActivationsJson(text));
    expect(e.message).toBe(
      'invalid json: ragged the activations: expected an array of 100 at depth 9, got the number 0 (line 1, column 9)',
    );
  });
});

describe('parseActivationsText', () => {
  it('reads rows separated by whitespace or commas, skipping blanks and comments', () => {
    const r = parseActivationsText('# x\n1 2 3\n\n4,5,  6\r\n-7e-1\t+8 nan # end\n');
    expect(r.shape).toEqual([3, 3]);
    expect(Array.from(r.data)).toEqual([1, 2, 3, 4, 5, 6, Math.fround(-0.7), 8, NaN]);
    expect(Array.from(parseActivationsText('inf -inf Infinity').data)).toEqual([Infinity, -Infinity, Infinity]);
  });

  it('reports the line and column of a bad number', () => {
    const e = formatErrorOf(() => parseActivationsText('1 2 3\n4 five 6', 'x.txt'));
    expect(e.message).toBe('x.txt: invalid text: expected a number, got "five" (line 2, column 3)');
    expect([e.line, e.column, e.format]).toEqual([2, 3, 'text']);
    const commas = formatErrorOf(() => parseActivationsText('1,,2'));
    expect([commas.line, commas.column]).toEqual([1, 3]);
  });

  it('rejects ragged rows', () => {
    const short = formatErrorOf(() => parseActivationsText('1 2 3\n4 5'));
    expect(short.message).toContain('ragged rows: expected 3 numbers per row like line 1, got 2');
    expect([short.line, short.column]).toEqual([2, 4]);
    const long = formatErrorOf(() => parseActivationsText('1 2\n\n3 4 5'));
    expect([long.line, long.column]).toEqual([3, 5]);
  });

  it('rejects empty input', () => {
    expect(formatErrorOf(() => parseActivationsText('# nothing\n')).message).toContain('expected at least one row');
  });
});
