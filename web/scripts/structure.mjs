#!/usr/bin/env node
// The code base's shape, checked by `npm run lint`: no source file over MAX_LINES lines (C++, TS,
// JS, CSS and HTML alike; Markdown and data are not source), no import cycle among the
// JavaScript and TypeScript modules (type-only imports count: a cycle of types still means two
// files that cannot be read, or moved, one without the other), and no norm spelled out under web/
// beside its one specification (NORM_SPEC: see normNameProblems), no id the page looks up
// that its markup does not define (pageIdProblems), no import under web/src in a direction its
// layer does not allow (layers.mjs), and no function in the page's source over
// MAX_FUNCTION_LINES lines (longFunctions).
// Usage: node web/scripts/structure.mjs [DIR]   (DIR: a git checkout, default this repository;
// exit 1 listing every problem)
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { root } from './common.mjs';
import { layerProblems } from './layers.mjs';

export const MAX_LINES = 600;
const SOURCE = /\.(cc|h|inc|ts|tsx|mts|mjs|js|jsx|css|html|cmake)$|(^|\/)CMakeLists\.txt$/;
const MODULE = /\.(ts|tsx|mts|mjs|js|jsx)$/;

/** The source files of the checkout `dir` (tracked, or new and not ignored), relative to it. */
export function sourceFiles(dir) {
  return trackedFiles(dir).filter((f) => SOURCE.test(f) && !f.endsWith('.d.ts') && !f.endsWith('.d.mts'));
}

/** Every file of the checkout `dir` (tracked, or new and not ignored), relative to it. */
export function trackedFiles(dir) {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: dir,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);
}

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

/**
 * Every import cycle (strongly connected component of more than one module, or a self-import), as
 * one cycle through it (cyclePath).
 */
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
        if (component.length > 1 || edges.get(v).has(v)) cycles.push(cyclePath(component.sort(), edges));
      }
    }
  }
  return cycles;
}

/**
 * One cycle through a strongly connected component, in import order, as "a → b → … → a" (the
 * imports to cut are among its arrows), then the component's other modules.
 */
function cyclePath(component, edges) {
  const members = new Set(component);
  const start = component[0];
  const from = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of edges.get(v)) {
      if (w === start) {
        const path = [start];
        for (let u = v; u !== start; u = from.get(u)) path.splice(1, 0, u);
        const others = component.filter((m) => !path.includes(m));
        const rest = others.length ? `; also caught in it: ${others.join(', ')}` : '';
        return `${[...path, start].join(' → ')}${rest}`;
      }
      if (members.has(w) && !from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return component.join(' ↔ ');
}

/** The one specification of the norms: their kinds (NORMS) and forms (NORM_FORMS) are its rows. */
export const NORM_SPEC = 'web/src/norms.ts';

/**
 * Files under web/ that may still decide by a norm's name, each with why: what differs there is
 * not a fact of the norm but of the outside world, which names its norms itself.
 */
export const NORM_NAME_EXCEPTIONS = {
  'web/src/io/norm-kind.ts':
    'how a checkpoint says which norm it holds (GGUF keys, config.json fields) is each format’s own spelling',
  'web/src/io/gguf-norm.ts': 'how a GGUF says which norm it holds (its ε keys) is the format’s own spelling',
};

/** The row names of `const <table> = { … }` in the specification's text (its keys at two spaces). */
export function tableKeys(text, table) {
  const start = text.indexOf(`export const ${table} = {`);
  if (start < 0) return [];
  const end = text.indexOf('\n} as const', start);
  return [...text.slice(start, end < 0 ? undefined : end).matchAll(/^ {2}(\w+): \{/gm)].map((m) => m[1]);
}

/**
 * Places under web/ that decide by a norm's name instead of by the facts its row gives: a
 * comparison with, or a `case` of, a kind or form name in quotes, and a union of two of them
 * written out (the union of the kinds is NormKind, written once: NORMS' keys).
 * Naming a kind to pass it on (the runtime's layerNorm passes 'layernorm') is not deciding.
 */
export function normNameProblems(paths, read) {
  if (!paths.includes(NORM_SPEC)) return [];
  const spec = read(NORM_SPEC);
  const names = [...new Set([...tableKeys(spec, 'NORMS'), ...tableKeys(spec, 'NORM_FORMS')])];
  if (!names.length) return [`${NORM_SPEC}: no rows found in NORMS or NORM_FORMS`];
  const name = `['"\`](?:${names.join('|')})['"\`]`;
  const patterns = [
    [new RegExp(`[!=]==?\\s*${name}|${name}\\s*[!=]==?`, 'g'), 'compares with a norm name'],
    [new RegExp(`\\bcase\\s+${name}\\s*:`, 'g'), 'switches on a norm name'],
    [new RegExp(`${name}\\s*\\|\\s*${name}`, 'g'), 'writes out a union of norm names'],
  ];
  const out = [];
  for (const f of paths) {
    if (!f.startsWith('web/') || f === NORM_SPEC || !MODULE.test(f) || Object.hasOwn(NORM_NAME_EXCEPTIONS, f)) continue;
    const text = read(f);
    for (const [re, what] of patterns) {
      for (const m of text.matchAll(re)) {
        const line = text.slice(0, m.index).split('\n').length;
        out.push(`${f}:${line}: ${what} (${m[0].trim()}); take the fact from ${NORM_SPEC} instead`);
      }
    }
  }
  return out;
}

/**
 * The page's elements are looked up by id (`$('…')`, web/page/src/ui/dom.ts), which TypeScript
 * cannot check: every id looked up must be written in the page's markup (index.html, parts/, or
 * a build plugin's output), or the page fails where it mounts.
 */
export function pageIdProblems(paths, read) {
  const markup = paths.filter((f) => /^web\/page\/(index\.html|parts\/.+\.html|plugins\/.+)$/.test(f));
  const defined = new Set(markup.flatMap((f) => [...read(f).matchAll(/\bid="([^"$]+)"/g)].map((m) => m[1])));
  const out = [];
  for (const f of paths) {
    if (!f.startsWith('web/page/src/') || !MODULE.test(f)) continue;
    const text = read(f);
    for (const m of text.matchAll(/\$(?:<[^>()]*>)?\(\s*['"]([^'"]+)['"]\s*\)/g)) {
      if (defined.has(m[1])) continue;
      const line = text.slice(0, m.index).split('\n').length;
      out.push(`${f}:${line}: looks up #${m[1]}, which no page markup defines (web/page/index.html, parts/)`);
    }
  }
  return out;
}

/** The longest a function in the page's source may be, its body's lines counted. */
export const MAX_FUNCTION_LINES = 80;
/** Where MAX_FUNCTION_LINES holds. */
export const FUNCTION_SCOPE = 'web/page/src/';

/** What a function is called where it is written: its name, the variable or property it is, or what it is passed to. */
function functionName(node, source) {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name) {
    return parent.name.getText(source);
  }
  if (ts.isCallExpression(parent)) return `a function passed to ${parent.expression.getText(source)}`;
  return 'a function';
}

/**
 * Functions (declarations, methods, arrows, expressions) under FUNCTION_SCOPE whose body spans more
 * than MAX_FUNCTION_LINES lines, as "path:line: name is N lines". A nested function counts on its
 * own and inside the one that holds it.
 */
export function longFunctions(paths, read) {
  const out = [];
  for (const f of paths) {
    if (!f.startsWith(FUNCTION_SCOPE) || !MODULE.test(f)) continue;
    const source = ts.createSourceFile(f, read(f), ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      if (ts.isFunctionLike(node) && node.body) {
        const line = (pos) => source.getLineAndCharacterOfPosition(pos).line;
        const first = line(node.body.getStart(source));
        const lines = line(node.body.end) - first + 1;
        if (lines > MAX_FUNCTION_LINES) {
          out.push(
            `${f}:${first + 1}: ${functionName(node, source)} is ${lines} lines (at most ${MAX_FUNCTION_LINES})`,
          );
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

/** Every problem with the shape of the checkout `dir`, each one line; none when it is clean. */
export function structureProblems(dir = root) {
  const files = sourceFiles(dir);
  const read = (f) => readFileSync(join(dir, f), 'utf8');
  const modules = files.filter((f) => MODULE.test(f));
  return [
    ...longFiles(files, read).map((p) => `${p}: split it into files with one job each`),
    ...importCycles(modules, read).map((c) => `import cycle: ${c}`),
    ...normNameProblems(files, read),
    ...pageIdProblems(files, read),
    ...layerProblems(trackedFiles(dir), read),
    ...longFunctions(files, read).map((p) => `${p}: split it into functions with one job each`),
  ];
}

/**
 * Checks the checkout `dir`: prints what is wrong (to stderr) or that it is clean, and returns
 * whether it is clean.
 */
export function checkStructure(dir = root) {
  const problems = structureProblems(dir);
  if (problems.length) {
    console.error(
      `The code base's shape (web/scripts/structure.mjs) has ${problems.length} problem${problems.length > 1 ? 's' : ''}:\n- ${problems.join('\n- ')}\n` +
        `No source file may be over ${MAX_LINES} lines, and no module may import itself through others: ` +
        'move what both sides of a cycle need into a module they both import, or pass it in; ' +
        `no file under web/ decides by a norm's name: take the fact from its row in ${NORM_SPEC}; ` +
        'every id the page looks up is in its markup; ' +
        'every import under web/src goes to a layer its folder\'s README.md (or, at the top, its opening comment) allows on its "May import" line; ' +
        `and no function in ${FUNCTION_SCOPE} is over ${MAX_FUNCTION_LINES} lines.`,
    );
    return false;
  }
  console.log(
    `Structure is clean: no source file over ${MAX_LINES} lines, no import cycle, no norm named outside ${NORM_SPEC}, no page id missing from its markup, every import under web/src in a direction its layer allows, no function in ${FUNCTION_SCOPE} over ${MAX_FUNCTION_LINES} lines.`,
  );
  return true;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exit(checkStructure(resolve(process.argv[2] ?? root)) ? 0 : 1);
}
