// The package's layers, checked by `npm run lint` (through structure.mjs): every folder of web/src
// says in its README.md, and every file at the top of web/src says in its opening comment, one
// line "May import: a/, b.ts, …" naming the folders and top-level files it may import from; an
// import that crosses to a layer not on that line is a problem. The line is the rule, so the
// comment a reader sees and the check cannot drift apart. Imports within one folder are free.
import { dirname, join, normalize } from 'node:path';

export const LAYERED = 'web/src';
const SPECIFIER =
  /\b(?:import|export)\b[^'"`;]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\s*(?:\(\s*)?['"](\.{1,2}\/[^'"]+)['"]/g;
const MAY_IMPORT = /May import:\s*([^\n]*?)\.?\s*(?:\*\/)?$/m;

/** The layer of a path under web/src: its folder ("io/") or, at the top, its file ("norms.ts"). */
export function layerOf(path) {
  const rel = path.slice(LAYERED.length + 1);
  const slash = rel.indexOf('/');
  return slash < 0 ? rel : rel.slice(0, slash + 1);
}

/** The opening comment of a module (its first block or line comments), or a README's first lines. */
function opening(text) {
  const block = /^\s*(?:#![^\n]*\n)?\s*(\/\*[\s\S]*?\*\/|(?:\s*\/\/[^\n]*\n)+)/.exec(text);
  return block ? block[1] : '';
}

/**
 * The allowed layers of each layer, read from the README.md of each folder and the opening
 * comment of each top-level module: a map from layer to its set, and the problems of a layer
 * that states none. "nothing" means no other layer.
 */
export function layerRules(paths, read) {
  const rules = new Map();
  const problems = [];
  const layers = new Set(paths.filter((p) => p.startsWith(`${LAYERED}/`)).map(layerOf));
  for (const layer of [...layers].sort()) {
    const where = layer.endsWith('/') ? `${LAYERED}/${layer}README.md` : `${LAYERED}/${layer}`;
    const text = paths.includes(where) ? read(where) : null;
    const m = text === null ? null : MAY_IMPORT.exec(layer.endsWith('/') ? text : opening(text));
    if (!m) {
      problems.push(
        `${where}: ${text === null ? 'missing' : 'does not say'} what ${layer} may import (a line "May import: a/, b.ts" or "May import: nothing")`,
      );
      continue;
    }
    const names = m[1].trim() === 'nothing' ? [] : m[1].split(',').map((s) => s.trim().replace(/`/g, ''));
    for (const n of names) {
      if (!layers.has(n)) problems.push(`${where}: "May import" names ${n}, which is not a layer of ${LAYERED}`);
    }
    rules.set(layer, new Set(names));
  }
  return { rules, problems };
}

/** Every import under web/src that crosses to a layer its importer may not import. */
export function layerProblems(paths, read) {
  const known = new Set(paths);
  const { rules, problems } = layerRules(paths, read);
  const modules = paths.filter((p) => p.startsWith(`${LAYERED}/`) && /\.(ts|mts|js|mjs)$/.test(p));
  for (const f of modules) {
    const from = layerOf(f);
    const allowed = rules.get(from);
    if (!allowed) continue;
    for (const m of read(f).matchAll(SPECIFIER)) {
      const base = normalize(join(dirname(f), m[1] ?? m[2]));
      const target = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.d.ts')].find((c) => known.has(c));
      if (!target || !target.startsWith(`${LAYERED}/`)) continue;
      const to = layerOf(target);
      if (to === from || allowed.has(to)) continue;
      const line = read(f).slice(0, m.index).split('\n').length;
      problems.push(`${f}:${line}: ${from} imports ${to}, which its "May import" line does not allow`);
    }
  }
  return problems;
}
