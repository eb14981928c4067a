/**
 * Activations typed or pasted as text: JSON (nested arrays, or { shape, data }) and plain rows of
 * numbers. Both parsers report line and column for every error, which is why JSON has its own
 * tokenizer here rather than JSON.parse (whose positions differ between engines and are missing
 * for several errors).
 */

import { checkString } from './arguments.js';
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

  /**
   * The whole input as one value. Containers are opened and closed on an explicit stack, so the
   * nesting depth is bounded by memory, never by the call stack.
   */
  document(): Node {
    const t = this.text;
    const open: Array<ArrayNode | (ObjectNode & { key: string })> = [];
    for (;;) {
      // Read one value, or open a container and go read its first element.
      this.skip();
      const pos = this.i;
      const c = t[pos];
      let node: Node;
      if (c === '[' || c === '{') {
        this.i++;
        this.skip();
        if (c === '[') {
          const array: ArrayNode = { kind: 'array', items: [], pos };
          if (t[this.i] !== ']') {
            open.push(array);
            continue;
          }
          node = array;
        } else {
          const object = { kind: 'object' as const, entries: new Map<string, Node>(), pos, key: '' };
          if (t[this.i] !== '}') {
            object.key = this.propertyName();
            open.push(object);
            continue;
          }
          node = { kind: 'object', entries: object.entries, pos };
        }
        this.i++;
      } else {
        node = this.scalar(pos);
      }
      // Hand the value to the innermost open container, closing every container that ends here.
      for (;;) {
        const top = open[open.length - 1];
        if (!top) {
          this.skip();
          if (this.i < t.length) throw this.fail(`expected the end of the input, got ${this.found()}`);
          return node;
        }
        if (top.kind === 'array') top.items.push(node);
        else top.entries.set(top.key, node);
        this.skip();
        const close = top.kind === 'array' ? ']' : '}';
        if (t[this.i] === ',') {
          this.i++;
          if (top.kind === 'object') top.key = this.propertyName();
          break;
        }
        if (t[this.i] !== close) {
          throw this.fail(
            `expected "," or "${close}" in the ${top.kind === 'array' ? 'array' : 'object'}, got ${this.found()}`,
          );
        }
        this.i++;
        open.pop();
        node = top.kind === 'array' ? top : { kind: 'object', entries: top.entries, pos: top.pos };
      }
    }
  }

  /** `"name":` inside an object, leaving the reader at the value. */
  private propertyName(): string {
    const t = this.text;
    this.skip();
    if (t[this.i] !== '"') throw this.fail(`expected a quoted property name, got ${this.found()}`);
    const key = this.string();
    this.skip();
    if (t[this.i] !== ':') throw this.fail(`expected ":" after the property name, got ${this.found()}`);
    this.i++;
    return key;
  }

  /** A number, a string or a literal starting at `pos`. */
  private scalar(pos: number): Node {
    const t = this.text;
    if (t[pos] === '"') return { kind: 'string', text: this.string(), pos };
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

/** The text to parse, and the optional name of where it came from (for messages). */
function checkText(fn: string, text: unknown, source: unknown): void {
  checkString(fn, 'text', text);
  if (source !== undefined) checkString(fn, 'source', source);
}

/** NumPy's limit on the number of dimensions (NPY_MAXDIMS in NumPy 2). */
const MAX_DIMS = 64;

/** Flattens regular nested arrays; the first element at each depth fixes the shape. */
function flatten(reader: JsonReader, root: Node, what: string): Activations {
  const shape: number[] = [];
  for (let node: Node | undefined = root; typeof node === 'object' && node.kind === 'array'; node = node.items[0]) {
    if (shape.length === MAX_DIMS) {
      throw reader.fail(`expected ${what} to have at most ${MAX_DIMS} dimensions, got arrays nested deeper`, node.pos);
    }
    shape.push(node.items.length);
    if (node.items.length === 0) break;
  }
  if (shape.length === 0) {
    const pos = typeof root === 'number' ? 0 : root.pos;
    throw reader.fail(`expected ${what} to be an array of numbers, got ${describeNode(root)}`, pos);
  }
  // Depth-first over an explicit stack, checking every array against the shape before any
  // storage is sized from it (a ragged document may claim far more values than it holds).
  const values: number[] = [];
  const pending: Array<{ node: ArrayNode; depth: number; next: number }> = [];
  const visit = (node: Node, depth: number, parent: ArrayNode): void => {
    if (depth === shape.length) {
      if (typeof node !== 'number') {
        throw reader.fail(`expected a number at depth ${depth} of ${what}, got ${describeNode(node)}`, node.pos);
      }
      values.push(node);
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
    pending.push({ node, depth, next: 0 });
  };
  visit(root, 0, root as ArrayNode);
  while (pending.length > 0) {
    const top = pending[pending.length - 1]!;
    if (top.next === top.node.items.length) pending.pop();
    else visit(top.node.items[top.next++]!, top.depth + 1, top.node);
  }
  return { data: Float32Array.from(values), shape };
}

/**
 * Reads activations from JSON: nested arrays (`[[1, 2], [3, 4]]`, shape from the nesting) or
 * `{ "shape": [2, 2], "data": [1, 2, 3, 4] }` (data flat or nested). NaN, Infinity and -Infinity
 * are accepted as Python writes them.
 */
export function parseActivationsJson(text: string, source?: string): Activations {
  checkText('parseActivationsJson', text, source);
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
    if (shape.length > MAX_DIMS) {
      throw reader.fail(`expected "shape" to have at most ${MAX_DIMS} dimensions, got ${shape.length}`, shapeNode.pos);
    }
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
  checkText('parseActivationsText', text, source);
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
