/**
 * Finds the normalizations of a graph: the operators that are one (ONNX's LayerNormalization,
 * onnxruntime's SkipLayerNormalization, SimplifiedLayerNormalization and
 * SkipSimplifiedLayerNormalization), and the subgraphs exporters write for one below opset 17:
 *
 *   LayerNorm  x → ReduceMean → Sub(x, μ) → Pow(·, 2) → ReduceMean → Add(·, ε) → Sqrt
 *                → Div(x − μ, ·) → Mul(·, γ) [→ Add(·, β)]
 *   RMSNorm    x → Pow(x, 2) → ReduceMean → Add(·, ε) → Sqrt
 *                → (Reciprocal(·) or Div(1, ·)) → Mul(x, ·) → Mul(·, γ), or → Div(x, ·) → Mul(·, γ)
 *
 * (a square may also be Mul(v, v); Mul and Add take their operands in either order). What a match
 * holds is where the norm's values are; norms.ts reads them.
 */
import type { ConstantRef, GraphIndex } from './graph-index.js';
import type { NodeRef } from './model.js';
import { elementCount, tensorValues } from './tensors.js';

/** How a graph writes a norm: the operator, or its decomposed arithmetic. */
export type NormOp =
  | 'LayerNormalization'
  | 'SimplifiedLayerNormalization'
  | 'SkipLayerNormalization'
  | 'SkipSimplifiedLayerNormalization'
  | 'decomposed';

export interface NormMatch {
  readonly op: NormOp;
  /** Subtracts the row's mean (a LayerNorm) or not (an RMSNorm): NORMS' `centred`. */
  readonly centred: boolean;
  /** Its nodes in graph order. */
  readonly nodes: readonly NodeRef[];
  /**
   * The value normalized. For a Skip operator, its input_skip_bias_sum output (input + skip +
   * bias), or null when the node does not write it (the exposer then adds that output).
   */
  readonly input: string | null;
  readonly output: string;
  /** γ's and β's values (β null: none). */
  readonly gamma: string;
  readonly beta: string | null;
  /** ε: an operator's attribute (or its default), or the constant the decomposed Add adds. */
  readonly eps: number | string;
  /** An operator's axis attribute (−1 by default); the decomposed forms reduce over the last axis. */
  readonly axis: number;
}

/**
 * The norm operators, by what they compute. Inputs are positional, as their schemas give them;
 * ε when the node has no epsilon attribute is the schema's default.
 */
const OPERATORS: Record<
  Exclude<NormOp, 'decomposed'>,
  { centred: boolean; gamma: number; beta: number | null; skip: boolean; eps: number }
> = {
  LayerNormalization: { centred: true, gamma: 1, beta: 2, skip: false, eps: 1e-5 },
  SimplifiedLayerNormalization: { centred: false, gamma: 1, beta: null, skip: false, eps: 1e-5 },
  // onnxruntime's contrib_defs: kDefaultSkipLayerNormEpsilon = 1e-12.
  SkipLayerNormalization: { centred: true, gamma: 2, beta: 3, skip: true, eps: 1e-12 },
  SkipSimplifiedLayerNormalization: { centred: false, gamma: 2, beta: null, skip: true, eps: 1e-12 },
};

/** The domains these operators live in: ONNX's own and onnxruntime's. */
const DOMAINS = new Set(['', 'ai.onnx', 'com.microsoft']);

/** The output of a Skip operator that holds input + skip + bias. */
export const SKIP_SUM_OUTPUT = 3;

/** Whether the norm is a Skip operator: one that normalizes its input + skip + bias, and can output that sum. */
export const addsSkip = (op: NormOp): boolean => op !== 'decomposed' && OPERATORS[op].skip;

const isOperator = (node: NodeRef): node is NodeRef & { opType: keyof typeof OPERATORS } =>
  Object.hasOwn(OPERATORS, node.opType) && DOMAINS.has(node.domain);

/** A constant's single value; 'unreadable' when it is of a type tensors.ts does not read; null when not one value. */
export function scalarOf(bytes: Uint8Array, c: ConstantRef | null): number | 'unreadable' | null {
  if (!c) return null;
  if (c.floats) return c.floats.length === 1 ? c.floats[0]! : null;
  if (!c.tensor || elementCount(c.tensor.dims) !== 1) return null;
  const values = tensorValues(bytes, c.tensor);
  return values ? values[0]! : 'unreadable';
}

/** Every norm of the graph, in graph order (by its first node). */
export function matchNorms(index: GraphIndex, bytes: Uint8Array): NormMatch[] {
  const found: NormMatch[] = [];
  const claimed = new Set<NodeRef>();
  const claim = (m: NormMatch | null) => {
    if (!m) return;
    found.push(m);
    for (const n of m.nodes) claimed.add(n);
  };
  const m = new Matcher(index, bytes);
  for (const node of index.graph.nodes) if (isOperator(node)) claim(m.operator(node));
  // LayerNorm's tail is an RMSNorm of x − μ: LayerNorms are found first, and their nodes are theirs.
  for (const node of index.graph.nodes)
    if (node.opType === 'ReduceMean' && !claimed.has(node)) claim(m.layerNorm(node));
  for (const node of index.graph.nodes) if (!claimed.has(node)) claim(m.rmsNorm(node));
  return found.sort((a, b) => a.nodes[0]!.index - b.nodes[0]!.index);
}

class Matcher {
  constructor(
    private readonly index: GraphIndex,
    private readonly bytes: Uint8Array,
  ) {}

  operator(node: NodeRef & { opType: keyof typeof OPERATORS }): NormMatch | null {
    const spec = OPERATORS[node.opType];
    const gamma = node.inputs[spec.gamma];
    if (!node.inputs[0] || !gamma || !node.outputs[0]) return null;
    const beta = spec.beta === null ? null : node.inputs[spec.beta] || null;
    const eps = node.attributes.get('epsilon')?.f ?? spec.eps;
    const axis = node.attributes.get('axis')?.i ?? -1;
    const input = spec.skip ? node.outputs[SKIP_SUM_OUTPUT] || null : node.inputs[0];
    return {
      op: node.opType,
      centred: spec.centred,
      nodes: [node],
      input,
      output: node.outputs[0],
      gamma,
      beta,
      eps,
      axis,
    };
  }

  /** From the first ReduceMean of x − μ. */
  layerNorm(r1: NodeRef): NormMatch | null {
    const x = r1.inputs[0];
    if (!x || !this.reducesLastAxis(r1)) return null;
    const mean = r1.outputs[0]!;
    const sub = this.user(mean, 'Sub', (n) => n.inputs[0] === x && n.inputs[1] === mean);
    if (!sub) return null;
    const centred = sub.outputs[0]!;
    const tail = this.rmsTail(centred);
    return tail && { ...tail, centred: true, nodes: [r1, sub, ...tail.nodes], input: x };
  }

  /** From the square of x. */
  rmsNorm(square: NodeRef): NormMatch | null {
    const x = square.inputs[0];
    if (!x || !this.isSquare(square)) return null;
    return this.rmsTail(x, square);
  }

  /**
   * v → Pow(v, 2) → ReduceMean → Add(·, ε) → Sqrt → (Div(v, ·) | Reciprocal or Div(1, ·) → Mul(v, ·))
   * → Mul(·, γ) [→ Add(·, β)]: the part LayerNorm and RMSNorm share, v being x − μ or x.
   */
  private rmsTail(v: string, given?: NodeRef): NormMatch | null {
    const square = given ?? this.user(v, null, (n) => n.inputs[0] === v && this.isSquare(n));
    if (!square) return null;
    const r = this.user(square.outputs[0]!, 'ReduceMean', (n) => this.reducesLastAxis(n));
    if (!r) return null;
    const addEps = this.user(r.outputs[0]!, 'Add', () => true);
    const eps = addEps && this.other(addEps, r.outputs[0]!);
    if (!addEps || !eps || scalarOf(this.bytes, this.index.constant(eps)) === null) return null;
    const sqrt = this.user(addEps.outputs[0]!, 'Sqrt', () => true);
    if (!sqrt) return null;
    const root = sqrt.outputs[0]!;
    const nodes = [square, r, addEps, sqrt];
    let scaled: string;
    const div = this.user(root, 'Div', (n) => n.inputs[0] === v && n.inputs[1] === root);
    if (div) {
      nodes.push(div);
      scaled = div.outputs[0]!;
    } else {
      const inverse =
        this.user(root, 'Reciprocal', () => true) ??
        this.user(
          root,
          'Div',
          (n) => n.inputs[1] === root && scalarOf(this.bytes, this.index.constant(n.inputs[0]!)) === 1,
        );
      const times = inverse && this.user(inverse.outputs[0]!, 'Mul', (n) => this.other(n, inverse.outputs[0]!) === v);
      if (!inverse || !times) return null;
      nodes.push(inverse, times);
      scaled = times.outputs[0]!;
    }
    const mulGamma = this.user(scaled, 'Mul', (n) => this.isVector(this.other(n, scaled)));
    if (!mulGamma) return null;
    nodes.push(mulGamma);
    const gamma = this.other(mulGamma, scaled)!;
    let output = mulGamma.outputs[0]!;
    let beta: string | null = null;
    const users = this.index.consumers(output);
    const addBeta = users.length === 1 && users[0]!.opType === 'Add' ? users[0]! : null;
    if (addBeta && this.isVector(this.other(addBeta, output))) {
      beta = this.other(addBeta, output)!;
      nodes.push(addBeta);
      output = addBeta.outputs[0]!;
    }
    return { op: 'decomposed', centred: false, nodes, input: v, output, gamma, beta, eps, axis: -1 };
  }

  /** The one user of `value` of this op type that `test` accepts (ONNX domain). */
  private user(value: string, op: string | null, test: (n: NodeRef) => boolean): NodeRef | null {
    for (const n of this.index.consumers(value)) {
      if ((op === null || n.opType === op) && n.domain === '' && n.outputs[0] && test(n)) return n;
    }
    return null;
  }

  /** A binary node's operand that is not `value` (null when both are, or it has not two). */
  private other(node: NodeRef, value: string): string | null {
    if (node.inputs.length !== 2) return null;
    const [a, b] = node.inputs;
    if (a === value && b !== value) return b ?? null;
    if (b === value && a !== value) return a ?? null;
    return null;
  }

  /** Pow(v, 2), or Mul(v, v). A 2 of a type tensors.ts does not read counts: norms.ts refuses its dtype. */
  private isSquare(n: NodeRef): boolean {
    if (n.domain !== '' || !n.outputs[0]) return false;
    if (n.opType === 'Mul') return n.inputs.length === 2 && n.inputs[0] === n.inputs[1];
    if (n.opType !== 'Pow' || !n.inputs[1]) return false;
    const e = scalarOf(this.bytes, this.index.constant(n.inputs[1]));
    return e === 2 || e === 'unreadable';
  }

  /** A constant with more than one value, or one of a single value (a vector of d = 1). */
  private isVector(value: string | null): boolean {
    if (!value) return false;
    const c = this.index.constant(value);
    if (!c) return false;
    return c.floats !== null || (c.tensor !== null && c.tensor.dims.length <= 1);
  }

  /** ReduceMean over the last axis only, keeping it (axes an attribute below opset 18, an input from 18). */
  private reducesLastAxis(n: NodeRef): boolean {
    if (n.attributes.get('keepdims')?.i === 0) return false;
    const attribute = n.attributes.get('axes');
    if (attribute) return attribute.ints.length === 1 && attribute.ints[0] === -1;
    if (!n.inputs[1]) return false;
    const axes = this.index.constant(n.inputs[1]);
    return scalarOfInt(this.bytes, axes) === -1;
  }
}

/** An int64 constant's single value (ReduceMean's axes input), or null. */
function scalarOfInt(bytes: Uint8Array, c: ConstantRef | null): number | null {
  const t = c?.tensor;
  if (!t || elementCount(t.dims) !== 1 || t.dataType !== 7 || !t.raw) return null;
  const [from, to] = t.raw;
  if (to - from !== 8) return null;
  return Number(new DataView(bytes.buffer, bytes.byteOffset + from, 8).getBigInt64(0, true));
}
