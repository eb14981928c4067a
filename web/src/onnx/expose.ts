/**
 * exposeNorms: a copy of the model whose graph outputs also hold the chosen norms' inputs and
 * outputs, so that the runtime returns them. A graph's outputs are a repeated field, and
 * protobuf concatenates a repeated field's occurrences, so the new outputs are appended to the
 * graph's bytes; everything else is copied as byte ranges, initializers included, never decoded.
 * A fused Skip operator that does not write its sum (the values it normalizes) gets that output.
 */
import { RULES } from '../checks/rules.js';
import { internalsOf, type ModelInternals } from './reader.js';
import { SKIP_SUM_OUTPUT, addsSkip } from './match.js';
import type { ModelRef, NodeRef } from './model.js';
import { LENGTH_DELIMITED, ProtoReader, ProtoWriter, concatBytes, encodeVarint } from './protobuf.js';
import type { ExposeOptions, ExposedModel, NormSelection, OnnxModel, OnnxNorm } from './types.js';

const FN = 'exposeNorms';

/** The model's norms (all, or those `options.norms` names), exposed. */
export function exposeNorms(model: OnnxModel, options?: ExposeOptions): ExposedModel {
  const inner = checkModel(FN, model);
  const o = options === undefined || options === null ? {} : options;
  if (typeof o !== 'object') throw new TypeError(RULES.mustBe(FN, 'options', 'an object', o));
  return exposeSelected(FN, model, inner, o.norms);
}

/** exposeNorms for a caller that checked the model, naming its own function in a selection's errors. */
export function exposeSelected(
  fn: string,
  model: OnnxModel,
  inner: ModelInternals,
  selection: NormSelection | undefined,
): ExposedModel {
  const norms = selectNorms(fn, model, selection);
  return { model, bytes: exposedBytes(inner, norms), norms };
}

/** The internals of a model readOnnxModel returned; a TypeError (saying what `model` may be) for anything else. */
export function checkModel(fn: string, model: unknown, expected = 'a model from readOnnxModel()'): ModelInternals {
  const inner = internalsOf(model);
  if (!inner) throw new TypeError(RULES.mustBe(fn, 'model', expected, model));
  return inner;
}

/** The norms a selection names (by name or index), in graph order; all when it is undefined. */
function selectNorms(fn: string, model: OnnxModel, selection: NormSelection | undefined): OnnxNorm[] {
  if (selection === undefined) return [...model.norms];
  if (!Array.isArray(selection)) {
    throw new TypeError(RULES.mustBe(fn, 'norms', 'an array of norm names or indices', selection));
  }
  const chosen = new Set<OnnxNorm>();
  const last = model.norms.length - 1;
  const known = `${model.norms
    .slice(0, 3)
    .map((n) => `'${n.name}'`)
    .join(', ')}${model.norms.length > 3 ? ', …' : ''}, or an index from 0 to ${last}`;
  selection.forEach((s: unknown, i) => {
    const norm =
      typeof s === 'number'
        ? Number.isInteger(s)
          ? model.norms[s]
          : undefined
        : model.norms.find((n) => n.name === s);
    if (typeof s !== 'number' && typeof s !== 'string') {
      throw new TypeError(RULES.mustBe(fn, `norms[${i}]`, `a norm's name or index (${known})`, s));
    }
    if (!norm) throw new RangeError(RULES.mustBe(fn, `norms[${i}]`, `a norm's name or index (${known})`, s));
    chosen.add(norm);
  });
  return model.norms.filter((n) => chosen.has(n));
}

function exposedBytes(inner: ModelInternals, norms: readonly OnnxNorm[]): Uint8Array {
  const { structure } = inner;
  const graph = structure.graph;
  const declared = new Set(graph.outputs.map((v) => v.name));
  const fed = new Set(graph.inputs.map((v) => v.name));
  const added: string[] = [];
  for (const n of norms) {
    for (const value of [n.values.input, n.values.output]) {
      if (!declared.has(value) && !fed.has(value)) {
        declared.add(value);
        added.push(value);
      }
    }
  }
  // Skip operators that do not write their sum get it as output 3.
  const rewritten = new Map<NodeRef, Uint8Array>();
  for (const n of norms) {
    const node = inner.index.producer(n.values.output);
    if (!addsSkip(n.op) || !node || node.outputs[SKIP_SUM_OUTPUT] === n.values.input) continue;
    const outputs = [...node.outputs];
    while (outputs.length < SKIP_SUM_OUTPUT) outputs.push('');
    outputs[SKIP_SUM_OUTPUT] = n.values.input;
    rewritten.set(node, nodeWithOutputs(structure, node, outputs));
  }
  const parts: Uint8Array[] = [];
  let at = graph.from;
  for (const [node, payload] of [...rewritten].sort((a, b) => a[0].start - b[0].start)) {
    parts.push(structure.bytes.subarray(at, node.start), new ProtoWriter().bytes(1, payload).finish());
    at = node.to;
  }
  parts.push(structure.bytes.subarray(at, graph.to));
  for (const name of added)
    parts.push(new ProtoWriter().message(12, outputValue(name, graph.valueInfo.get(name)?.elemType ?? null)).finish());
  const payload = parts.reduce((sum, p) => sum + p.length, 0);
  const head = new ProtoWriter().tag(7, LENGTH_DELIMITED).raw(encodeVarint(payload)).finish();
  return concatBytes([
    structure.bytes.subarray(0, structure.graphStart),
    head,
    ...parts,
    structure.bytes.subarray(graph.to),
  ]);
}

/**
 * A graph output's ValueInfoProto: its name, and its tensor type where the model states it. A type
 * guessed would be wrong for float16 values under a float32 γ (the runtime then refuses the model);
 * left out, onnxruntime (node and web) infers it.
 */
function outputValue(name: string, elemType: number | null): ProtoWriter {
  const value = new ProtoWriter().string(1, name);
  if (elemType === null) return value;
  return value.message(2, new ProtoWriter().message(1, new ProtoWriter().int(1, elemType)));
}

/** A node's payload with its output list replaced: its other fields copied as they are. */
function nodeWithOutputs(structure: ModelRef, node: NodeRef, outputs: readonly string[]): Uint8Array {
  const pb = new ProtoReader(structure.bytes);
  const w = new ProtoWriter();
  let outputsWritten = false;
  for (const f of pb.fields(node.from, node.to, 'a node')) {
    if (f.number === 2) {
      if (!outputsWritten) for (const o of outputs) w.string(2, o);
      outputsWritten = true;
    } else w.raw(structure.bytes.subarray(f.start, f.to));
  }
  if (!outputsWritten) for (const o of outputs) w.string(2, o);
  return w.finish();
}
