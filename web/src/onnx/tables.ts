/**
 * What limits the token ids a model takes: its vocabulary (the rows of the embedding its token ids
 * are looked up in) and its context (the rows of the table positions are looked up in: a learned
 * position embedding, or a rotary cache). Found by following the fed inputs to the Gather nodes
 * that read them; only shapes are read, so a quantized table counts as well as a float one.
 */
import type { GraphIndex } from './graph-index.js';
import type { NodeRef, TensorRef } from './model.js';
import type { TableSize } from './types.js';

/** Operators that pass indices through with their values unchanged. */
const PASS_THROUGH = new Set(['Reshape', 'Unsqueeze', 'Squeeze', 'Cast', 'Identity', 'Flatten', 'Expand']);
/** How far from the input a lookup may be. */
const MAX_HOPS = 8;

export interface Tables {
  /** The input that holds token ids, or null when there is none. */
  readonly tokenInput: string | null;
  readonly vocabulary: TableSize | null;
  readonly context: TableSize | null;
}

export function findTables(index: GraphIndex): Tables {
  const fed = index.graph.inputs.map((v) => v.name).filter((n) => index.isFed(n));
  const byName = (name: string) => (fed.includes(name) ? name : null);
  const lookups = new Map(fed.map((n) => [n, gathersOf(index, n)] as const));
  const tokenInput =
    byName('input_ids') ?? fed.find((n) => !/position/i.test(n) && (lookups.get(n)?.length ?? 0) > 0) ?? null;
  const vocabularyTable = tokenInput ? (lookups.get(tokenInput)?.[0] ?? null) : null;
  const vocabulary = vocabularyTable ? size(vocabularyTable) : null;
  const positionInput = byName('position_ids');
  const positionTables = positionInput
    ? (lookups.get(positionInput) ?? [])
    : rangeLookups(index).filter((t) => t !== vocabularyTable);
  const context = positionTables
    .map(size)
    .reduce<TableSize | null>((min, t) => (!min || t.size < min.size ? t : min), null);
  return { tokenInput, vocabulary, context };
}

const size = (t: TensorRef): TableSize => ({ size: t.dims[0]!, tensor: t.name });

/** The tables (constant, at least 2-D) that Gather nodes look `input`'s values up in, nearest first. */
function gathersOf(index: GraphIndex, input: string): TensorRef[] {
  const tables: TensorRef[] = [];
  let frontier = [input];
  const seen = new Set(frontier);
  for (let hop = 0; hop < MAX_HOPS && frontier.length; hop++) {
    const next: string[] = [];
    for (const value of frontier) {
      for (const n of index.consumers(value)) {
        const table = n.opType === 'Gather' && n.inputs[1] === value ? tableOf(index, n) : null;
        if (table) tables.push(table);
        else if (PASS_THROUGH.has(n.opType) && n.inputs[0] === value && n.outputs[0] && !seen.has(n.outputs[0])) {
          seen.add(n.outputs[0]);
          next.push(n.outputs[0]);
        }
      }
    }
    frontier = next;
  }
  return tables;
}

/** Gather's table: a constant of two or more dimensions, or one that a DequantizeLinear dequantizes. */
function tableOf(index: GraphIndex, gather: NodeRef): TensorRef | null {
  const data = gather.inputs[0];
  if (!data) return null;
  const made = index.producer(data);
  const source = made?.opType === 'DequantizeLinear' && made.inputs[0] ? made.inputs[0] : data;
  const t = index.constant(source)?.tensor ?? null;
  return t && t.dims.length >= 2 ? t : null;
}

/** Tables looked up at positions the graph counts itself (Range → … → Gather), as GPT-2 exported without position_ids does. */
function rangeLookups(index: GraphIndex): TensorRef[] {
  const tables: TensorRef[] = [];
  for (const node of index.graph.nodes) {
    if (node.opType !== 'Range' || !node.outputs[0]) continue;
    for (const t of gathersOf(index, node.outputs[0])) tables.push(t);
  }
  return tables;
}
