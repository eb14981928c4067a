#!/usr/bin/env node
// The code base's shape, checked by `npm run lint`: no source file over MAX_LINES lines (C++, TS,
// JS, CSS and HTML alike; Markdown and data are not source), and no import cycle among the
// JavaScript and TypeScript modules (type-only imports count: a cycle of types still means two
// files that cannot be read, or moved, one without the other).
// Usage: node web/scripts/structure.mjs   (exit 1 listing every problem)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { root } from './common.mjs';

export const MAX_LINES = 600;
const SOURCE = /\.(cc|h|inc|ts|tsx|mts|mjs|js|jsx|css|html|cmake)$|(^|\/)CMakeLists\.txt$/;
const MODULE = /\.(ts|tsx|mts|mjs|js|jsx)$/;

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => SOURCE.test(f) && !f.endsWith('.d.ts') && !f.endsWith('.d.mts'));

/** Files longer than the limit, as "path: N lines". */
export function longFiles(paths, read) {
  const out = [];
  for (const f of paths) {
    const lines = read(f).split('\n').length - 1;
    if (lines > MAX_LINES) out.push(`${f}: ${lines} lines (at most ${MAX_LINES})`);
  }
  return out;
}

// Relative specifiers in import / export … from, and import('…').
const SPECIFIER =
  /\b(?:import|export)\b[^'"`;]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\s*(?:\(\s*)?['"](\.{1,2}\/[^'"]+)['"]/g;

/** The module a relative specifier in `from` names, among `known` (TS files are imported as .js). */
function resolveSpecifier(from, spec, known) {
  const base = normalize(join(dirname(from), spec));
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.js$/, '.tsx'),
    base.replace(/\.mjs$/, '.mts'),
    `${base}.ts`,
    `${base}/index.ts`,
  ];
  return candidates.find((c) => known.has(c)) ?? null;
}

/** Every import cycle (strongly connected component of more than one module, or a self-import). */
export function importCycles(paths, read) {
  const known = new Set(paths);
  const edges = new Map();
  for (const f of paths) {
    const deps = new Set();
    for (const m of read(f).matchAll(SPECIFIER)) {
      const target = resolveSpecifier(f, m[1] ?? m[2], known);
      if (target) deps.add(target);
    }
    edges.set(f, deps);
  }
  // Tarjan's algorithm, iterative so that a deep chain cannot overflow the stack.
  const index = new Map(),
    low = new Map(),
    onStack = new Set(),
    stack = [],
    cycles = [];
  let next = 0;
  for (const start of paths) {
    if (index.has(start)) continue;
    const work = [[start, [...edges.get(start)], 0]];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const [v, deps] = frame;
      if (frame[2] < deps.length) {
        const w = deps[frame[2]++];
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push([w, [...edges.get(w)], 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(v)));
      }
      if (low.get(v) === index.get(v)) {
        const component = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          component.push(w);
        } while (w !== v);
        if (component.length > 1 || edges.get(v).has(v)) cycles.push(component.sort());
      }
    }
  }
  return cycles;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const read = (f) => readFileSync(join(root, f), 'utf8');
  const problems = [
    ...longFiles(files, read),
    ...importCycles(
      files.filter((f) => MODULE.test(f)),
      read,
    ).map((c) => `import cycle: ${c.join(' ↔ ')}`),
  ];
  if (problems.length) {
    console.error(`The code base's shape (web/scripts/structure.mjs):\n- ${problems.join('\n- ')}`);
    process.exit(1);
  }
  console.log(`Structure is clean: no source file over ${MAX_LINES} lines, no import cycle.`);
}
