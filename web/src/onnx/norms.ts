/**
 * The norms of the main graph as the package describes them (OnnxNorm): their kind and form from
 * NORMS' facts, their γ, β and ε read from the model, their names. Everything a norm needs that the
 * model does not give as float32 constants is refused here, naming the norm.
 */
import { NORMS, NORM_KINDS, normFormOf, type NormFacts } from '../norms.js';
import type { ConstantRef, GraphIndex } from './graph-index.js';
import type { NormMatch } from './match.js';
import { scalarOf } from './match.js';
import type { ModelRef, TensorRef } from './model.js';
import { normNames } from './names.js';
import { PROBLEMS, normText } from './problems.js';
import { FLOAT32, FLOAT64, dataTypeName, elementCount, tensorValues } from './tensors.js';
import type { OnnxNorm } from './types.js';

type Fail = (problem: string) => Error;

/** The kind of norm that centres or not, its moment over d as ONNX's are: NORMS' own facts, not a name. */
const kindOf = (centred: boolean) =>
  NORM_KINDS.find((k) => NORMS[k].centred === centred && (NORMS[k] as NormFacts).divisor === 'width')!;

/** The name the exposed model gives a Skip operator's sum when the model does not write it. */
export const sumOutputName = (output: string): string => `${output}/input_skip_bias_sum`;

export function describeNorms(
  model: ModelRef,
  index: GraphIndex,
  matches: readonly NormMatch[],
  fail: Fail,
): OnnxNorm[] {
  const names = normNames(
    matches.map((m) => ({ nodes: m.nodes.map((n) => n.name), gammaSource: index.constant(m.gamma)?.source ?? '' })),
  );
  return matches.map((m, i) => {
    const name = names[i]!;
    const what = normText(name, m.op);
    if (m.axis !== -1 && m.axis !== rankOf(model, m.nodes[0]!.inputs[0]) - 1) throw fail(PROBLEMS.axis(what, m.axis));
    const gamma = vector('γ', what, m.gamma, index, model.bytes, fail);
    const beta = m.beta === null ? null : vector('β', what, m.beta, index, model.bytes, fail);
    if (beta && beta.length !== gamma.length) throw fail(PROBLEMS.betaLength(what, beta.length, gamma.length));
    const eps = typeof m.eps === 'number' ? m.eps : scalar('ε', what, m.eps, index, model.bytes, fail);
    if (!Number.isFinite(eps) || eps < 0) throw fail(PROBLEMS.epsRange(what, eps));
    checkActivations(model, m, what, fail);
    const norm = kindOf(m.centred);
    const input = m.input ?? sumOutputName(m.output);
    return {
      name,
      index: i,
      norm,
      form: normFormOf(norm, beta !== null),
      op: m.op,
      d: gamma.length,
      eps,
      gamma,
      beta,
      values: { input, output: m.output },
      nodes: m.nodes.map((n) => n.name),
    };
  });
}

/** γ or β: a float32 vector (a Constant's value_floats included). */
function vector(
  role: string,
  what: string,
  value: string,
  index: GraphIndex,
  bytes: Uint8Array,
  fail: Fail,
): Float32Array {
  const c = constantOf(role, what, value, index, fail);
  if (c.floats) return Float32Array.from(c.floats);
  const t = c.tensor!;
  if (t.dims.length > 1 && t.dims.slice(0, -1).some((n) => n !== 1))
    throw fail(PROBLEMS.notVector(role, what, c.source, t.dims));
  if (t.dataType !== FLOAT32) throw fail(PROBLEMS.dtype(role, what, c.source, dataTypeName(t.dataType)));
  return Float32Array.from(values(t, bytes, fail));
}

/** ε: float32, or float64 (the matcher took it for one value, or one of a type tensors.ts does not read). */
function scalar(role: string, what: string, value: string, index: GraphIndex, bytes: Uint8Array, fail: Fail): number {
  const c = constantOf(role, what, value, index, fail);
  const v = scalarOf(bytes, c);
  if (typeof v !== 'number') throw fail(PROBLEMS.dtype(role, what, c.source, dataTypeName(c.tensor?.dataType ?? 0)));
  return v;
}

function constantOf(role: string, what: string, value: string, index: GraphIndex, fail: Fail): ConstantRef {
  const c = index.constant(value);
  if (!c || (!c.tensor && !c.floats)) throw fail(PROBLEMS.notConstant(role, what, value));
  if (c.tensor?.external !== null && c.tensor?.external !== undefined)
    throw fail(PROBLEMS.externalData(c.source, c.tensor.external));
  return c;
}

function values(t: TensorRef, bytes: Uint8Array, fail: Fail): Float64Array {
  const v = t.dataType === FLOAT32 || t.dataType === FLOAT64 ? tensorValues(bytes, t) : null;
  if (!v || v.length !== elementCount(t.dims))
    throw fail(PROBLEMS.tensorSize(t.name, dataTypeName(t.dataType), t.dims));
  return v;
}

/** A value's rank where the model states its shape (an axis counted from the front names the last one then); else NaN. */
function rankOf(model: ModelRef, value: string | undefined): number {
  const g = model.graph;
  const v = value === undefined ? undefined : (g.valueInfo.get(value) ?? g.inputs.find((i) => i.name === value));
  return v?.shape?.length ?? NaN;
}

/** The norm's input and output, where the model states their type, must be float32 (what capture returns). */
function checkActivations(model: ModelRef, m: NormMatch, what: string, fail: Fail): void {
  const graph = model.graph;
  const typeOf = (value: string | null) =>
    value === null
      ? null
      : ((
          graph.valueInfo.get(value) ??
          graph.outputs.find((o) => o.name === value) ??
          graph.inputs.find((o) => o.name === value)
        )?.elemType ?? null);
  for (const [label, value] of [
    ['input', m.input ?? (m.nodes[0]!.inputs[0] || null)],
    ['output', m.output],
  ] as const) {
    const type = typeOf(value);
    if (type !== null && type !== FLOAT32) throw fail(PROBLEMS.activationType(what, label, dataTypeName(type)));
  }
}
