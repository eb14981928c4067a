/**
 * readOnnxModel: an ONNX model from bytes, a URL, a Blob or a File, with every normalization of its
 * main graph found and described. What the package cannot use is refused here, before anything is
 * run: bytes that are not a model or are cut short, external data, norms inside subgraphs, and
 * weights of a type it does not read (problems.ts).
 */
import { looksLikeHtml, preview } from '../loading/bytes-preview.js';
import { checkByteSourceInput, checkByteSourceOptions } from '../io/arguments.js';
import { byteSourceFor, type ByteSource, type ByteSourceInput, type ByteSourceOptions } from '../io/byte-source.js';
import { FetchError, FormatError } from '../io/errors.js';
import { GraphIndex } from './graph-index.js';
import { matchNorms } from './match.js';
import { MissingModelFields, readModelStructure, type GraphRef, type ModelRef, type ValueRef } from './model.js';
import { normNames } from './names.js';
import { describeNorms } from './norms.js';
import { PROBLEMS, normText } from './problems.js';
import { ProtoProblem } from './protobuf.js';
import { findTables } from './tables.js';
import { dataTypeName } from './tensors.js';
import type { OnnxModel, OnnxValue } from './types.js';

const FN = 'readOnnxModel';

/** What a model read keeps for the exposer and capture, beside what it shows (OnnxModel). */
export interface ModelInternals {
  readonly structure: ModelRef;
  readonly index: GraphIndex;
  readonly tokenInput: string | null;
}

const internals = new WeakMap<OnnxModel, ModelInternals>();

/** The structure behind a model readOnnxModel returned; undefined for any other object. */
export const internalsOf = (model: unknown): ModelInternals | undefined =>
  typeof model === 'object' && model !== null ? internals.get(model as OnnxModel) : undefined;

/**
 * Reads an ONNX model (a URL by HTTP range requests, a Blob/File, or bytes in memory: the file is
 * read whole, since the runtime needs all of it) and finds the norms of its main graph.
 * `options` are the byte source's: `signal`, `onProgress`, `headers`, `fetch`, `maxWholeBodyBytes`.
 */
export async function readOnnxModel(source: ByteSourceInput, options?: ByteSourceOptions): Promise<OnnxModel> {
  const input = checkByteSourceInput(FN, 'source', source);
  const o = checkByteSourceOptions(FN, options);
  const bytes = await readWhole(byteSourceFor(input, o));
  return parse(bytes.bytes, bytes.describe);
}

/**
 * The whole file. Its first byte comes first, so that a URL's size is known and a file that cannot
 * be a model fails before it is downloaded (with its first 64 bytes, for the message).
 */
async function readWhole(source: ByteSource): Promise<{ bytes: Uint8Array; describe: string }> {
  const describe = source.describe;
  if (source.size === 0) return { bytes: new Uint8Array(0), describe };
  const first = await source.read(0, 1);
  const size = source.size;
  if (!isTagStart(first[0]!)) {
    // Not a model: its first bytes are all the message needs (as many as there are, up to 64).
    const head =
      size === undefined ? await source.read(0, 64).catch(() => first) : await source.read(0, Math.min(size, 64));
    return { bytes: head, describe };
  }
  if (size === undefined) {
    throw new FetchError('answered without the size of the file; expected one, to read the whole model', {
      url: describe,
    });
  }
  return { bytes: size === 1 ? first : await source.read(0, size), describe };
}

/** A byte that can begin a ModelProto field: field 1–31 (one-byte tag) of a wire type protobuf has. */
const isTagStart = (b: number) => [0, 1, 2, 5].includes(b & 7) && b >> 3 !== 0;

function parse(bytes: Uint8Array, source: string): OnnxModel {
  const fail = (problem: string) => new FormatError('onnx', problem, { source });
  let structure: ModelRef;
  try {
    structure = readModelStructure(bytes);
  } catch (error) {
    throw wordProblem(error, bytes, fail);
  }
  const index = new GraphIndex(structure.graph);
  refuseExternalData(structure.graph, fail);
  const matches = matchNorms(index, bytes);
  refuseSubgraphNorms(structure.graph, index, bytes, fail);
  if (matches.length === 0) {
    const ops = [...new Set(structure.graph.nodes.map((n) => n.opType))];
    throw fail(PROBLEMS.noNorm(structure.graph.nodes.length, ops));
  }
  const norms = describeNorms(structure, index, matches, fail);
  const tables = findTables(index);
  const model: OnnxModel = {
    bytes,
    source,
    irVersion: structure.irVersion,
    opset: structure.opsets.get('') ?? structure.opsets.get('ai.onnx') ?? null,
    producer: structure.producer,
    norms,
    inputs: structure.graph.inputs.filter((v) => index.isFed(v.name)).map(valueOf),
    outputs: structure.graph.outputs.map(valueOf),
    vocabulary: tables.vocabulary,
    context: tables.context,
  };
  internals.set(model, { structure, index, tokenInput: tables.tokenInput });
  return model;
}

const valueOf = (v: ValueRef): OnnxValue => ({
  name: v.name,
  type: v.elemType === null ? null : dataTypeName(v.elemType),
  shape: v.shape,
});

/** The names of ModelProto's fields, for a message about the one the file ends in. */
const MODEL_FIELDS: Record<number, string> = {
  1: 'ir_version',
  2: 'producer_name',
  3: 'producer_version',
  4: 'domain',
  5: 'model_version',
  6: 'doc_string',
  7: 'the graph',
  8: 'an opset_import',
  14: 'metadata_props',
  20: 'training_info',
  25: 'the functions',
};

function wordProblem(error: unknown, bytes: Uint8Array, fail: (p: string) => FormatError): unknown {
  if (bytes.length === 0) return fail(PROBLEMS.notOnnx(preview(bytes), null));
  const html = looksLikeHtml(bytes)
    ? '; it looks like an HTML page, which is what many servers answer for a file they do not have'
    : '';
  if (error instanceof MissingModelFields) {
    return fail(PROBLEMS.notOnnx(preview(bytes), `a protobuf message without ${error.missing}${html}`));
  }
  if (!(error instanceof ProtoProblem)) return error;
  const topLevel = error.what === 'the model';
  if (topLevel && error.kind === 'truncated') {
    // model.ts reports bytes that end before an ir_version as malformed: these began as a model.
    const field = error.field === null ? 'a field' : (MODEL_FIELDS[error.field] ?? `field ${error.field}`);
    return fail(PROBLEMS.truncated(bytes.length, `${field} of the ModelProto`, error.at));
  }
  if (topLevel) return fail(PROBLEMS.notOnnx(preview(bytes), `${error.detail} at byte ${error.at}${html}`));
  if (error.kind === 'truncated')
    return fail(
      PROBLEMS.malformed(error.at, error.what, `a field that runs past its message's end at byte ${error.detail}`),
    );
  return fail(PROBLEMS.malformed(error.at, error.what, error.detail));
}

/** Any tensor with external data: the exposed model could not be run without the file it names. */
function refuseExternalData(graph: GraphRef, fail: (p: string) => FormatError): void {
  for (const t of graph.initializers.values())
    if (t.external !== null) throw fail(PROBLEMS.externalData(t.name, t.external));
  for (const node of graph.nodes) {
    for (const a of node.attributes.values()) {
      if (a.t?.external !== null && a.t?.external !== undefined)
        throw fail(PROBLEMS.externalData(a.t.name || node.name, a.t.external));
      for (const g of a.graphs) refuseExternalData(g, fail);
    }
  }
}

/** A norm inside an If, Loop or Scan body, where no graph output can reach it. */
function refuseSubgraphNorms(
  graph: GraphRef,
  index: GraphIndex,
  bytes: Uint8Array,
  fail: (p: string) => FormatError,
): void {
  for (const node of graph.nodes) {
    for (const a of node.attributes.values()) {
      for (const sub of a.graphs) {
        const inner = new GraphIndex(sub, index);
        const found = matchNorms(inner, bytes)[0];
        if (found) {
          const [name] = normNames([
            { nodes: found.nodes.map((n) => n.name), gammaSource: inner.constant(found.gamma)?.source ?? '' },
          ]);
          throw fail(PROBLEMS.inSubgraph(normText(name!, found.op), sub.where));
        }
        refuseSubgraphNorms(sub, inner, bytes, fail);
      }
    }
  }
}
