/**
 * Activations typed or pasted as text: JSON (nested arrays, or { shape, data }) and plain rows of
 * numbers. Both parsers report line and column for every error, which is why JSON has its own
 * tokenizer here rather than JSON.parse (whose positions differ between engines and are missing
 * for several errors).
 */

import { FormatError } from './errors.js';

export interface Activations {
  data: Float32Array;
  shape: number[];
}

interface Positioned {
  pos: number;
}
interface ArrayNode extends Positioned {
  kind: 'array';
  items: Node[];
}
interface ObjectNode extends Positioned {
  kind: 'object';
  entries: Map<string, Node>;
}
interface OtherNode extends Positioned {
  kind: 'string' | 'literal';
  text: string;
}
/** Numbers stay bare to keep large arrays small; only containers and non-numbers carry positions. */
type Node = number | ArrayNode | ObjectNode | OtherNode;

function lineColumn(text: string, pos: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < pos; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: pos - start + 1 };
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WORD = /[A-Za-z_][A-Za-z_0-9]*|-Infinity/y;

function describeNode(node: Node): string {
  if (typeof node === 'number') return `the number ${node}`;
  if (node.kind === 'array') return `an array of ${node.items.length}`;
  if (node.kind === 'object') return 'an object';
  return node.kind === 'string' ? `the string ${JSON.stringify(node.text.slice(0, 20))}` : node.text;
}

class JsonReader {
  private i = 0;
  constructor(
    private readonly text: string,
    private readonly source: string | undefined,
  ) {}

  fail(problem: string, pos = this.i): FormatError {
    return new FormatError('json', problem, { source: this.source, ...lineColumn(this.text, pos) });
  }

  private skip(): void {
    const t = this.text;
    while (this.i < t.length) {
      const c = t.charCodeAt(this.i);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.i++;
      else break;
    }
  }

  private found(): string {
    if (this.i >= this.text.length) return 'the end of the input';
    return JSON.stringify(this.text.slice(this.i, this.i + 12).split('\n')[0]);
  }

  document(): Node {
    const node = this.value();
    this.skip();
    if (this.i < this.text.length) throw this.fail(`expected the end of the input, got ${this.found()}`);
    return node;
  }

  private value(): Node {
    this.skip();
    const t = this.text;
    const pos = this.i;
    const c = t[pos];
    if (c === '[') {
      this.i++;
      const items: Node[] = [];
      this.skip();
      if (t[this.i] === ']') {
        this.i++;
        return { kind: 'array', items, pos };
      }
      for (;;) {
        items.push(this.value());
        this.skip();
        if (t[this.i] === ',') this.i++;
        else if (t[this.i] === ']') {
          this.i++;
          return { kind: 'array', items, pos };
        } else throw this.fail(`expected "," or "]" in the array, got ${this.found()}`);
      }
    }
    if (c === '{') {
      this.i++;
      const entries = new Map<string, Node>();
      this.skip();
      if (t[this.i] === '}') {
        this.i++;
        return { kind: 'object', entries, pos };
      }
      for (;;) {
        this.skip();
        if (t[this.i] !== '"') throw this.fail(`expected a quoted property name, got ${this.found()}`);
        const key = this.string();
        this.skip();
        if (t[this.i] !== ':') throw this.fail(`expected ":" after the property name, got ${this.found()}`);
        this.i++;
        entries.set(key, this.value());
        this.skip();
        if (t[this.i] === ',') this.i++;
        else if (t[this.i] === '}') {
          this.i++;
          return { kind: 'object', entries, pos };
        } else throw this.fail(`expected "," or "}" in the object, got ${this.found()}`);
      }
    }
    if (c === '"') return { kind: 'string', text: this.string(), pos };
    NUMBER.lastIndex = pos;
    const num = NUMBER.exec(t);
    if (num) {
      this.i = pos + num[0].length;
      return Number(num[0]);
    }
    WORD.lastIndex = pos;
    const word = WORD.exec(t);
    if (word) {
      this.i = pos + word[0].length;
      // Python's json module writes these for non-finite floats; accept them.
      if (word[0] === 'NaN') return NaN;
      if (word[0] === 'Infinity') return Infinity;
      if (word[0] === '-Infinity') return -Infinity;
      if (word[0] === 'true' || word[0] === 'false' || word[0] === 'null')
        return { kind: 'literal', text: word[0], pos };
      this.i = pos;
    }
    throw this.fail(`expected a number, array or object, got ${this.found()}`);
  }

  private string(): string {
    const t = this.text;
    const start = this.i;
    let j = start + 1;
    while (j < t.length && t[j] !== '"') j += t[j] === '\\' ? 2 : 1;
    if (j >= t.length) throw this.fail('expected a closing quote for the string', start);
    this.i = j + 1;
    try {
      return JSON.parse(t.slice(start, j + 1)) as string;
    } catch {
      throw this.fail('expected a valid JSON string', start);
    }
  }
}

/** Flattens regular nested arrays; the first element at each depth fixes the shape. */
function flatten(reader: JsonReader, root: Node, what: string): Activations {
  const shape: number[] = [];
  for (let node: Node | undefined = root; typeof node === 'object' && node.kind === 'array'; node = node.items[0]) {
    shape.push(node.items.length);
    if (node.items.length === 0) break;
  }
  if (shape.length === 0) {
    const pos = typeof root === 'number' ? 0 : root.pos;
    throw reader.fail(`expected ${what} to be an array of numbers, got ${describeNode(root)}`, pos);
  }
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  let k = 0;
  const walk = (node: Node, depth: number, parent: ArrayNode): void => {
    if (depth === shape.length) {
      if (typeof node !== 'number') {
        throw reader.fail(`expected a number at depth ${depth} of ${what}, got ${describeNode(node)}`, node.pos);
      }
      data[k++] = node;
      return;
    }
    if (typeof node !== 'object' || node.kind !== 'array') {
      const pos = typeof node === 'number' ? parent.pos : node.pos;
      throw reader.fail(
        `ragged ${what}: expected an array of ${shape[depth]} at depth ${depth}, got ${describeNode(node)}`,
        pos,
      );
    }
    if (node.items.length !== shape[depth]) {
      throw reader.fail(
        `ragged ${what}: expected ${shape[depth]} elements like the first array at depth ${depth}, got ${node.items.length}`,
        node.pos,
      );
    }
    for (const item of node.items) walk(item, depth + 1, node);
  };
  walk(root, 0, root as ArrayNode);
  return { data, shape };
}

/**
 * Reads activations from JSON: nested arrays (`[[1, 2], [3, 4]]`, shape from the nesting) or
 * `{ "shape": [2, 2], "data": [1, 2, 3, 4] }` (data flat or nested). NaN, Infinity and -Infinity
 * are accepted as Python writes them.
 */
export function parseActivationsJson(text: string, source?: string): Activations {
  if (typeof text !== 'string') throw new TypeError('parseActivationsJson: expected a string');
  const reader = new JsonReader(text, source);
  const root = reader.document();
  if (typeof root === 'object' && root.kind === 'object') {
    const shapeNode = root.entries.get('shape');
    const dataNode = root.entries.get('data');
    if (shapeNode === undefined || dataNode === undefined) {
      throw reader.fail(
        `expected an object with "shape" and "data", got keys ${JSON.stringify([...root.entries.keys()])}`,
        root.pos,
      );
    }
    if (
      typeof shapeNode !== 'object' ||
      shapeNode.kind !== 'array' ||
      !shapeNode.items.every((n) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0)
    ) {
      const pos = typeof shapeNode === 'number' ? root.pos : shapeNode.pos;
      throw reader.fail(
        `expected "shape" to be an array of non-negative integers, got ${describeNode(shapeNode)}`,
        pos,
      );
    }
    const shape = shapeNode.items as number[];
    const flat = flatten(reader, dataNode, '"data"');
    const count = shape.reduce((a, b) => a * b, 1);
    if (flat.data.length !== count) {
      throw reader.fail(
        `"shape" [${shape.join(', ')}] needs ${count} values, "data" has ${flat.data.length}`,
        (dataNode as ArrayNode).pos,
      );
    }
    return { data: flat.data, shape: [...shape] };
  }
  return flatten(reader, root, 'the activations');
}

const TEXT_NUMBER = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|inf|infinity)$/i;

/**
 * Reads activations from plain text: one row per line, numbers separated by whitespace or a
 * comma (as np.savetxt and CSV write them). Blank lines and `#` comments are skipped.
 * The result has shape [rows, d]; every row must have the same length.
 */
export function parseActivationsText(text: string, source?: string): Activations {
  if (typeof text !== 'string') throw new TypeError('parseActivationsText: expected a string');
  const fail = (problem: string, line: number, column: number) =>
    new FormatError('text', problem, { source, line, column });
  const values: number[] = [];
  let d = -1;
  let firstRowLine = 0;
  let rows = 0;
  const lines = text.split('\n');
  for (let ln = 0; ln < lines.length; ln++) {
    let line = lines[ln]!;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const hash = line.indexOf('#');
    if (hash >= 0) line = line.slice(0, hash);
    let count = 0;
    let i = 0;
    let commas = 0;
    while (i < line.length) {
      const c = line[i]!;
      if (c === ',') {
        commas++;
        if (count === 0 || commas > 1) throw fail('expected a number before ","', ln + 1, i + 1);
        i++;
        continue;
      }
      if (c === ' ' || c === '\t') {
        i++;
        continue;
      }
      let j = i;
      while (j < line.length && line[j] !== ',' && line[j] !== ' ' && line[j] !== '\t') j++;
      const token = line.slice(i, j);
      if (!TEXT_NUMBER.test(token)) {
        throw fail(`expected a number, got ${JSON.stringify(token.slice(0, 20))}`, ln + 1, i + 1);
      }
      const lower = token.toLowerCase().replace(/^\+/, '');
      values.push(
        lower.endsWith('nan')
          ? NaN
          : lower.endsWith('inf') || lower.endsWith('infinity')
            ? lower[0] === '-'
              ? -Infinity
              : Infinity
            : Number(token),
      );
      count++;
      commas = 0;
      if (d >= 0 && count > d) {
        throw fail(`ragged rows: expected ${d} numbers per row like line ${firstRowLine}, got more`, ln + 1, i + 1);
      }
      i = j;
    }
    if (count === 0) continue;
    if (d < 0) {
      d = count;
      firstRowLine = ln + 1;
    } else if (count !== d) {
      throw fail(
        `ragged rows: expected ${d} numbers per row like line ${firstRowLine}, got ${count}`,
        ln + 1,
        line.length + 1,
      );
    }
    rows++;
  }
  if (rows === 0) throw fail('expected at least one row of numbers, got none', lines.length, 1);
  return { data: Float32Array.from(values), shape: [rows, d] };
}
