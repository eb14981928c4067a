/**
 * The structure of an ONNX ModelProto, read as byte ranges: the graph's nodes (with their
 * attributes and subgraphs), initializers (name, dtype, dims and where their data lies, never the
 * data), inputs, outputs and value infos. The few tensors whose values are needed (a norm's γ, β
 * and ε) are decoded later by tensors.ts from the ranges kept here. Field numbers are onnx.proto's.
 */
import { FIXED32, LENGTH_DELIMITED, ProtoProblem, ProtoReader, VARINT, type Field } from './protobuf.js';

/** A TensorProto: an initializer, or a Constant node's or an attribute's value. */
export interface TensorRef {
  readonly name: string;
  readonly dims: readonly number[];
  /** TensorProto.DataType: 1 float, 10 float16, 16 bfloat16, 11 double, 7 int64, … */
  readonly dataType: number;
  /** The file named by external_data's `location` when data_location is EXTERNAL, else null. */
  readonly external: string | null;
  /** raw_data's bytes, when the values are stored there. */
  readonly raw: readonly [number, number] | null;
  /** float_data's fields (packed or one per value), when the values are stored there. */
  readonly floatData: readonly Field[];
  /** double_data's fields. */
  readonly doubleData: readonly Field[];
}

export interface AttributeRef {
  readonly name: string;
  readonly f: number | null;
  readonly i: number | null;
  readonly floats: readonly number[];
  readonly ints: readonly number[];
  readonly t: TensorRef | null;
  /** g and graphs: the subgraphs of If, Loop and Scan. */
  readonly graphs: readonly GraphRef[];
}

export interface NodeRef {
  /** Its place in its graph's node list. */
  readonly index: number;
  readonly name: string;
  readonly opType: string;
  /** '' for ONNX's own operators, 'com.microsoft' for onnxruntime's. */
  readonly domain: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attributes: ReadonlyMap<string, AttributeRef>;
  /** The byte of its field's tag in the graph, and its payload. */
  readonly start: number;
  readonly from: number;
  readonly to: number;
}

/** A dimension: a number, a symbolic name (dim_param), or null when the file says nothing. */
export type Dim = number | string | null;

export interface ValueRef {
  readonly name: string;
  /** The tensor's elem_type (a TensorProto.DataType), or null when it is not a tensor or not stated. */
  readonly elemType: number | null;
  /** Its dimensions, or null when the shape is not stated. */
  readonly shape: readonly Dim[] | null;
}

export interface GraphRef {
  /** For messages: "the main graph", "the then_branch of If node "…"". */
  readonly where: string;
  readonly nodes: readonly NodeRef[];
  readonly initializers: ReadonlyMap<string, TensorRef>;
  readonly inputs: readonly ValueRef[];
  readonly outputs: readonly ValueRef[];
  readonly valueInfo: ReadonlyMap<string, ValueRef>;
  /** The graph's payload in the file. */
  readonly from: number;
  readonly to: number;
}

export interface ModelRef {
  readonly bytes: Uint8Array;
  readonly irVersion: number;
  readonly producer: string;
  /** Each operator set's version, by domain ('' for ONNX's). */
  readonly opsets: ReadonlyMap<string, number>;
  readonly graph: GraphRef;
  /** ModelProto's graph field: its tag's byte (the exposer rewrites the field from there). */
  readonly graphStart: number;
}

/** Subgraphs nest If in Loop in If…; real models stop at a few levels. */
const MAX_DEPTH = 32;

/** A field that is not of the wire type onnx.proto gives it: the bytes are not this message. */
function wireProblem(f: Field, what: string): ProtoProblem {
  return new ProtoProblem('malformed', what, f.start, `field ${f.number} has wire type ${f.wire}`);
}

/** The structure of the model in `bytes`; a ProtoProblem or MissingModelFields when it is not one (reader.ts words them). */
export function readModelStructure(bytes: Uint8Array): ModelRef {
  const pb = new ProtoReader(bytes);
  let irVersion: number | null = null;
  let producer = '';
  const opsets = new Map<string, number>();
  let graphField: Field | null = null;
  const fields = pb.fields(0, bytes.length, 'the model');
  for (const f of guarded(fields, () => irVersion !== null)) {
    if (f.number === 1) irVersion = expect(f, VARINT, 'the model').int;
    else if (f.number === 2) producer = pb.text(expect(f, LENGTH_DELIMITED, 'the model'));
    else if (f.number === 7) graphField = expect(f, LENGTH_DELIMITED, 'the model');
    else if (f.number === 8) {
      let domain = '';
      let version = 0;
      for (const o of pb.fields(f.from, expect(f, LENGTH_DELIMITED, 'the model').to, 'an opset_import')) {
        if (o.number === 1) domain = pb.text(expect(o, LENGTH_DELIMITED, 'an opset_import'));
        else if (o.number === 2) version = expect(o, VARINT, 'an opset_import').int;
      }
      opsets.set(domain, version);
    }
  }
  if (irVersion === null || graphField === null || opsets.size === 0) {
    throw new MissingModelFields(
      irVersion === null
        ? 'an ir_version (field 1)'
        : graphField === null
          ? 'a graph (field 7)'
          : 'an opset_import (field 8)',
    );
  }
  const graph = readGraph(pb, graphField, 'the main graph', 0);
  return { bytes, irVersion, producer, opsets, graph, graphStart: graphField.start };
}

/**
 * The model's fields, where bytes that run past the end of the file are a truncated model only once
 * a field of one was read (every writer puts ir_version first): before that, they are not a model.
 */
function* guarded(fields: Generator<Field>, isModel: () => boolean): Generator<Field> {
  try {
    yield* fields;
  } catch (error) {
    if (error instanceof ProtoProblem && error.kind === 'truncated' && !isModel()) {
      throw new ProtoProblem('malformed', error.what, error.at, 'a field that runs past the end of the file');
    }
    throw error;
  }
}

/** A protobuf message that lacks what every ModelProto has: an ir_version, a graph, an opset_import. */
export class MissingModelFields extends Error {
  constructor(
    /** The first field it lacks, as messages name it: "a graph (field 7)". */
    readonly missing: string,
  ) {
    super(`not a ModelProto: no ${missing}`);
  }
}

function expect(f: Field, wire: number, what: string): Field {
  if (f.wire !== wire) throw wireProblem(f, what);
  return f;
}

function readGraph(pb: ProtoReader, field: Field, where: string, depth: number): GraphRef {
  if (depth > MAX_DEPTH)
    throw new ProtoProblem('malformed', where, field.start, `subgraphs nested more than ${MAX_DEPTH} deep`);
  const nodes: NodeRef[] = [];
  const initializers = new Map<string, TensorRef>();
  const inputs: ValueRef[] = [];
  const outputs: ValueRef[] = [];
  const valueInfo = new Map<string, ValueRef>();
  for (const f of pb.fields(field.from, field.to, where)) {
    if (f.number === 1) nodes.push(readNode(pb, expect(f, LENGTH_DELIMITED, where), nodes.length, where, depth));
    else if (f.number === 5) {
      const t = readTensor(pb, expect(f, LENGTH_DELIMITED, where), `an initializer of ${where}`);
      initializers.set(t.name, t);
    } else if (f.number === 11) inputs.push(readValue(pb, expect(f, LENGTH_DELIMITED, where), where));
    else if (f.number === 12) outputs.push(readValue(pb, expect(f, LENGTH_DELIMITED, where), where));
    else if (f.number === 13) {
      const v = readValue(pb, expect(f, LENGTH_DELIMITED, where), where);
      valueInfo.set(v.name, v);
    }
  }
  return { where, nodes, initializers, inputs, outputs, valueInfo, from: field.from, to: field.to };
}

function readNode(pb: ProtoReader, field: Field, index: number, graph: string, depth: number): NodeRef {
  const what = `node ${index} of ${graph}`;
  const inputs: string[] = [];
  const outputs: string[] = [];
  let name = '';
  let opType = '';
  let domain = '';
  const attributeFields: Field[] = [];
  for (const f of pb.fields(field.from, field.to, what)) {
    if (f.number === 1) inputs.push(pb.text(expect(f, LENGTH_DELIMITED, what)));
    else if (f.number === 2) outputs.push(pb.text(expect(f, LENGTH_DELIMITED, what)));
    else if (f.number === 3) name = pb.text(expect(f, LENGTH_DELIMITED, what));
    else if (f.number === 4) opType = pb.text(expect(f, LENGTH_DELIMITED, what));
    else if (f.number === 5) attributeFields.push(expect(f, LENGTH_DELIMITED, what));
    else if (f.number === 7) domain = pb.text(expect(f, LENGTH_DELIMITED, what));
  }
  // Attributes after the name and op type, whichever order the file has them in, so that a
  // subgraph is named after its node.
  const label = `${opType || 'an operator'} node "${name || `#${index}`}"`;
  const attributes = new Map<string, AttributeRef>();
  for (const f of attributeFields) {
    const a = readAttribute(pb, f, label, depth);
    attributes.set(a.name, a);
  }
  return {
    index,
    name,
    opType,
    domain,
    inputs,
    outputs,
    attributes,
    start: field.start,
    from: field.from,
    to: field.to,
  };
}

function readAttribute(pb: ProtoReader, field: Field, node: string, depth: number): AttributeRef {
  const what = `an attribute of ${node}`;
  let name = '';
  let f: number | null = null;
  let i: number | null = null;
  const floats: number[] = [];
  const ints: number[] = [];
  let t: TensorRef | null = null;
  const graphFields: Field[] = [];
  for (const a of pb.fields(field.from, field.to, what)) {
    if (a.number === 1) name = pb.text(expect(a, LENGTH_DELIMITED, what));
    else if (a.number === 2) f = pb.float(expect(a, FIXED32, what));
    else if (a.number === 3) i = expect(a, VARINT, what).int;
    else if (a.number === 5) t = readTensor(pb, expect(a, LENGTH_DELIMITED, what), `the value of ${node}`);
    else if (a.number === 6 || a.number === 11) graphFields.push(expect(a, LENGTH_DELIMITED, what));
    else if (a.number === 7) pb.packedFloats(repeated(a, FIXED32, what), floats);
    else if (a.number === 8) pb.packedVarints(repeated(a, VARINT, what), what, ints);
  }
  const graphs = graphFields.map((g) => readGraph(pb, g, `the ${name || 'subgraph'} of ${node}`, depth + 1));
  return { name, f, i, floats, ints, t, graphs };
}

/** A repeated scalar field: packed (length-delimited) or one field per value of its own wire type. */
function repeated(f: Field, wire: number, what: string): Field {
  if (f.wire !== wire && f.wire !== LENGTH_DELIMITED) throw wireProblem(f, what);
  return f;
}

function readTensor(pb: ProtoReader, field: Field, what: string): TensorRef {
  let name = '';
  const dims: number[] = [];
  let dataType = 0;
  let raw: [number, number] | null = null;
  const floatData: Field[] = [];
  const doubleData: Field[] = [];
  let externalLocation: string | null = null;
  let external = false;
  for (const f of pb.fields(field.from, field.to, what)) {
    if (f.number === 1) pb.packedVarints(repeated(f, VARINT, what), what, dims);
    else if (f.number === 2) dataType = expect(f, VARINT, what).int;
    else if (f.number === 4) floatData.push(repeated(f, FIXED32, what));
    else if (f.number === 8) name = pb.text(expect(f, LENGTH_DELIMITED, what));
    else if (f.number === 9) raw = [expect(f, LENGTH_DELIMITED, what).from, f.to];
    else if (f.number === 10) doubleData.push(repeated(f, 1, what));
    else if (f.number === 13) {
      let key = '';
      let value = '';
      for (const e of pb.fields(f.from, expect(f, LENGTH_DELIMITED, what).to, what)) {
        if (e.number === 1) key = pb.text(expect(e, LENGTH_DELIMITED, what));
        else if (e.number === 2) value = pb.text(expect(e, LENGTH_DELIMITED, what));
      }
      if (key === 'location') externalLocation = value;
    } else if (f.number === 14) external = expect(f, VARINT, what).int === 1;
  }
  return {
    name,
    dims,
    dataType,
    external: external ? (externalLocation ?? '') : null,
    raw,
    floatData,
    doubleData,
  };
}

function readValue(pb: ProtoReader, field: Field, graph: string): ValueRef {
  const what = `a value info of ${graph}`;
  let name = '';
  let elemType: number | null = null;
  let shape: Dim[] | null = null;
  for (const f of pb.fields(field.from, field.to, what)) {
    if (f.number === 1) name = pb.text(expect(f, LENGTH_DELIMITED, what));
    else if (f.number === 2) {
      for (const t of pb.fields(f.from, expect(f, LENGTH_DELIMITED, what).to, what)) {
        if (t.number !== 1) continue; // tensor_type; sequences, maps and the rest stay unread
        for (const tt of pb.fields(t.from, expect(t, LENGTH_DELIMITED, what).to, what)) {
          if (tt.number === 1) elemType = expect(tt, VARINT, what).int;
          else if (tt.number === 2) shape = readShape(pb, expect(tt, LENGTH_DELIMITED, what), what);
        }
      }
    }
  }
  return { name, elemType, shape };
}

function readShape(pb: ProtoReader, field: Field, what: string): Dim[] {
  const shape: Dim[] = [];
  for (const d of pb.fields(field.from, field.to, what)) {
    if (d.number !== 1) continue;
    let dim: Dim = null;
    for (const v of pb.fields(d.from, expect(d, LENGTH_DELIMITED, what).to, what)) {
      if (v.number === 1) dim = expect(v, VARINT, what).int;
      else if (v.number === 2) dim = pb.text(expect(v, LENGTH_DELIMITED, what));
    }
    shape.push(dim);
  }
  return shape;
}
