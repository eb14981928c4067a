/**
 * A norm's name, saying where it sits in the model. Exporters name each node after the module that
 * made it (torch: `/transformer/h.3/ln_2/ReduceMean`), so the module's path is the name
 * (`transformer.h.3.ln_2`); where nodes are not named so (onnxruntime's fusions name theirs
 * `SkipLayerNorm_AddBias_3`), γ's initializer keeps the parameter's name (`transformer.h.3.ln_2.weight`).
 */

/** The module a node name's scope gives ('/a/b.1/c/Op' → 'a.b.1.c'), or null. */
function scopeOf(nodeName: string): string | null {
  if (!nodeName.startsWith('/')) return null;
  const parts = nodeName.split('/').slice(1, -1);
  return parts.length && parts.every((p) => p.length > 0) ? parts.join('.') : null;
}

/** The module a parameter's name gives ('model.norm.weight' → 'model.norm'), or null. */
function moduleOf(parameter: string): string | null {
  const m = /^(.+)\.(weight|gamma|scale)$/.exec(parameter);
  return m ? m[1]! : null;
}

/**
 * Names for norms, in graph order: each from its nodes' scope, unless another norm has the same
 * scope (then it is a module around them, not theirs: nodes made by a model's forward itself, as
 * fused operators are), else from its γ's parameter name, else `norm <index>`; a name already
 * taken gets ` #<index>`.
 */
export function normNames(norms: readonly { nodes: readonly string[]; gammaSource: string }[]): string[] {
  const scopes = norms.map((n) => n.nodes.map(scopeOf).find((s) => s !== null) ?? null);
  const shared = new Set(scopes.filter((s, i) => s !== null && scopes.indexOf(s) !== i));
  const taken = new Set<string>();
  return norms.map((n, index) => {
    const scope = scopes[index]!;
    let name = (scope !== null && !shared.has(scope) ? scope : null) ?? moduleOf(n.gammaSource) ?? `norm ${index}`;
    if (taken.has(name)) name = `${name} #${index}`;
    taken.add(name);
    return name;
  });
}
