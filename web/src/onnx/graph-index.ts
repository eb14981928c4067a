/**
 * A graph's values looked up both ways (which node makes a value, which nodes use it) and its
 * constants resolved: an initializer, a Constant node's value, or either through Identity nodes
 * (exporters route shared weights through Identity).
 */
import type { GraphRef, NodeRef, TensorRef } from './model.js';

/** A value the graph does not compute: where it comes from, and its tensor or its float list. */
export interface ConstantRef {
  /** The initializer's name, or the Constant node's. */
  readonly source: string;
  readonly tensor: TensorRef | null;
  /** A Constant node's value_float / value_floats, as the dims [] or [n] it stands for. */
  readonly floats: readonly number[] | null;
}

/** Identity chains longer than this are not followed (a cycle cannot loop the lookup). */
const MAX_IDENTITY = 16;

export class GraphIndex {
  private readonly producers = new Map<string, NodeRef>();
  private readonly users = new Map<string, NodeRef[]>();
  private readonly inputNames: ReadonlySet<string>;

  /** `outer`: the graph a subgraph sits in, whose values (and theirs) it may use. */
  constructor(
    readonly graph: GraphRef,
    private readonly outer: GraphIndex | null = null,
  ) {
    for (const node of graph.nodes) {
      for (const out of node.outputs) if (out) this.producers.set(out, node);
      for (const input of node.inputs) {
        if (!input) continue;
        const list = this.users.get(input);
        if (list) list.push(node);
        else this.users.set(input, [node]);
      }
    }
    this.inputNames = new Set(graph.inputs.map((v) => v.name));
  }

  producer(value: string): NodeRef | undefined {
    return this.producers.get(value);
  }

  consumers(value: string): readonly NodeRef[] {
    return this.users.get(value) ?? [];
  }

  /** A value the graph is fed (and not an initializer, which IR < 4 models also list as inputs). */
  isFed(value: string): boolean {
    return this.inputNames.has(value) && !this.graph.initializers.has(value);
  }

  /** The constant a value is, or null when the graph computes it (or is fed it). */
  constant(value: string): ConstantRef | null {
    let name = value;
    for (let hops = 0; hops <= MAX_IDENTITY; hops++) {
      const init = this.graph.initializers.get(name);
      if (init && !this.isFed(name)) return { source: name, tensor: init, floats: null };
      const node = this.producers.get(name);
      if (!node) return init || this.isFed(name) ? null : (this.outer?.constant(name) ?? null);
      if (node.opType === 'Identity' && node.domain === '' && node.inputs[0]) {
        name = node.inputs[0];
        continue;
      }
      if (node.opType !== 'Constant' || node.domain !== '') return null;
      const source = node.name || name;
      const value = node.attributes.get('value');
      if (value?.t) return { source, tensor: value.t, floats: null };
      const one = node.attributes.get('value_float');
      if (one?.f !== undefined && one?.f !== null) return { source, tensor: null, floats: [one.f] };
      const many = node.attributes.get('value_floats');
      if (many) return { source, tensor: null, floats: many.floats };
      return null;
    }
    return null;
  }
}
