// web/scripts/structure.mjs, which `npm run lint` runs: it fails on an import cycle, on a source
// file over 600 lines and on a file under web/ that decides by a norm's name instead of its row in
// web/src/norms.ts, on an id the page looks up that its markup lacks, on an import across
// layers that a folder's "May import" line does not allow, and on a function in the page's source
// over 80 lines, naming each, and passes on this repository. The made-up checkouts are git
// repositories in a temporary folder, their files new and untracked as a change under review is.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  FUNCTION_SCOPE,
  MAX_FUNCTION_LINES,
  MAX_LINES,
  NORM_SPEC,
  structureProblems,
  tableKeys,
} from '../../web/scripts/structure.mjs';
import { NORM_FORM_NAMES, NORM_KINDS } from '../../web/src/norms.ts';

const root = join(import.meta.dirname, '..', '..');
const SCRIPT = join(root, 'web', 'scripts', 'structure.mjs');
const work = mkdtempSync(join(tmpdir(), 'layernorm-wasm-structure-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A git checkout in the temporary folder holding `files` (path → text), none of them committed. */
function checkout(name: string, files: Record<string, string>): string {
  const dir = join(work, name);
  mkdirSync(dir);
  execFileSync('git', ['init', '-q'], { cwd: dir });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const lines = (n: number) => Array.from({ length: n }, (_, i) => `// line ${i + 1}\n`).join('');

/** The script run as lint runs it, on `dir`: its exit status and what it printed. */
function run(dir: string) {
  const r = spawnSync(process.execPath, [SCRIPT, dir], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('structure.mjs', () => {
  test('fails on an import cycle, type-only imports included, naming the cycle in import order', () => {
    const dir = checkout('cycle', {
      'src/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'src/b.ts': "import type { C } from './c.js';\nexport const b = 1 as unknown as C;\n",
      'src/c.ts': "import { a } from './a.js';\nexport type C = typeof a;\n",
      'src/leaf.ts': "import { a } from './a.js';\nexport const leaf = a;\n",
    });
    expect(structureProblems(dir)).toEqual(['import cycle: src/a.ts → src/b.ts → src/c.ts → src/a.ts']);
    const r = run(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('- import cycle: src/a.ts → src/b.ts → src/c.ts → src/a.ts\n');
    expect(r.stdout).toBe('');
  });

  test('names every module of a knot of cycles, one cycle first', () => {
    const dir = checkout('knot', {
      'a.mjs': "import './b.mjs';\n",
      'b.mjs': "import './a.mjs';\nimport './c.mjs';\n",
      'c.mjs': "export { b } from './b.mjs';\n",
    });
    expect(structureProblems(dir)).toEqual(['import cycle: a.mjs → b.mjs → a.mjs; also caught in it: c.mjs']);
  });

  test('fails on a self-import', () => {
    const dir = checkout('self', { 'lib/self.mjs': "export * from './self.mjs';\n" });
    expect(structureProblems(dir)).toEqual(['import cycle: lib/self.mjs → lib/self.mjs']);
  });

  test(`fails on a source file over ${MAX_LINES} lines, CSS included, and not on one of ${MAX_LINES}`, () => {
    const dir = checkout('long', {
      'web/long.ts': lines(MAX_LINES + 1),
      'web/page.css': lines(MAX_LINES + 40)
        .replaceAll('//', '/*')
        .replaceAll('\n', ' */\n'),
      'web/exact.ts': lines(MAX_LINES),
      'docs/long.md': lines(2 * MAX_LINES),
    });
    expect(structureProblems(dir)).toEqual([
      `web/long.ts: ${MAX_LINES + 1} lines (at most ${MAX_LINES}): split it into files with one job each`,
      `web/page.css: ${MAX_LINES + 40} lines (at most ${MAX_LINES}): split it into files with one job each`,
    ]);
    const r = run(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("The code base's shape (web/scripts/structure.mjs) has 2 problems:\n");
    expect(r.stderr).toContain(`- web/long.ts: ${MAX_LINES + 1} lines (at most ${MAX_LINES})`);
  });

  test('passes on a clean checkout and on this repository', () => {
    const dir = checkout('clean', {
      'src/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
      'src/b.ts': 'export const b = 1;\n',
    });
    expect(run(dir)).toEqual({
      status: 0,
      stdout: `Structure is clean: no source file over ${MAX_LINES} lines, no import cycle, no norm named outside ${NORM_SPEC}, no page id missing from its markup, every import under web/src in a direction its layer allows, no function in ${FUNCTION_SCOPE} over ${MAX_FUNCTION_LINES} lines.\n`,
      stderr: '',
    });
    expect(structureProblems(root)).toEqual([]);
    expect(run(root).status).toBe(0);
  });

  // A made-up specification with a third row: the check reads the rows, so it knows the new names.
  const spec = [
    '// May import: nothing.',
    'export const NORMS = {',
    "  layernorm: { name: 'LayerNorm' },",
    "  rmsnorm: { name: 'RMSNorm' },",
    "  scalenorm: { name: 'ScaleNorm' },",
    '} as const satisfies Record<string, NormSpec>;',
    'export const NORM_FORMS = {',
    "  biasfree: { norm: 'layernorm' },",
    '} as const satisfies Record<string, NormFormSpec>;',
    '',
  ].join('\n');

  test('fails on a file under web/ that decides by a norm or form name, or writes out their union', () => {
    const dir = checkout('norm-names', {
      [NORM_SPEC]: spec,
      'web/page/src/a.ts': "export const rms = (k: string) => k === 'rmsnorm';\n",
      'web/src/b.ts':
        "// May import: nothing.\nexport type K = 'layernorm' | \"scalenorm\";\nexport const f = (k: K) => ('biasfree' !== k ? 1 : 0);\n",
      'web/bench/c.mjs': 'export function label(k) {\n  switch (k) {\n    case `scalenorm`:\n      return 1;\n  }\n}\n',
      // Passing a kind on is not deciding by it; outside web/ (tests) names are free; the exception is listed.
      'web/src/d.ts': "// May import: nothing.\nexport const run = (f: (k: string) => void) => f('layernorm');\n",
      'tests/e.ts': "export const rms = (k: string) => k === 'rmsnorm';\n",
      'web/src/io/norm-kind.ts': "export const said = (k: string) => k === 'rmsnorm';\n",
      'web/src/io/README.md': '# io/\n\nMay import: nothing.\n',
    });
    const take = `take the fact from ${NORM_SPEC} instead`;
    expect(structureProblems(dir)).toEqual([
      `web/bench/c.mjs:3: switches on a norm name (case \`scalenorm\`:); ${take}`,
      `web/page/src/a.ts:1: compares with a norm name (=== 'rmsnorm'); ${take}`,
      `web/src/b.ts:3: compares with a norm name ('biasfree' !==); ${take}`,
      `web/src/b.ts:2: writes out a union of norm names ('layernorm' | "scalenorm"); ${take}`,
    ]);
    const r = run(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      `no file under web/ decides by a norm's name: take the fact from its row in ${NORM_SPEC}; `,
    );
  });

  test('fails on an id the page looks up that its markup does not define', () => {
    const dir = checkout('page-ids', {
      'web/page/index.html': '<main id="app"><!-- parts --></main>\n',
      'web/page/parts/weights.html': '<section id="weights-card"><p id="eps-msg"></p></section>\n',
      'web/page/plugins/forms.ts': 'export const radio = (v: string) => `<input id="norm-${v}" id="made">`;\n',
      'web/page/src/panels/weights.ts':
        "const card = $('weights-card');\nconst msg = $<HTMLParagraphElement>('eps-msg');\nconst made = $('made');\nconst gone = $('eps-mesage');\n",
      'web/page/src/panels/check.ts': 'const lab = $<HTMLElement>("lab");\n',
      // Outside the page's source, $ is something else.
      'web/src/e.ts': "// May import: nothing.\nconst x = $('nowhere');\n",
    });
    const defines = 'which no page markup defines (web/page/index.html, parts/)';
    expect(structureProblems(dir)).toEqual([
      `web/page/src/panels/check.ts:1: looks up #lab, ${defines}`,
      `web/page/src/panels/weights.ts:4: looks up #eps-mesage, ${defines}`,
    ]);
    const r = run(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('every id the page looks up is in its markup; ');
  });

  test(`fails on a function in the page's source over ${MAX_FUNCTION_LINES} lines, nested ones too, and not on one of ${MAX_FUNCTION_LINES}`, () => {
    const over = MAX_FUNCTION_LINES + 1;
    const long = `export function long(): void {\n${lines(MAX_FUNCTION_LINES - 1)}}\n`;
    const dir = checkout('long-functions', {
      'web/page/src/long.ts': long,
      'web/page/src/exact.ts': `export const exact = () => {\n${lines(MAX_FUNCTION_LINES - 2)}};\n`,
      'web/page/src/nested.ts': `export function outer(store: { watch(f: () => void): void }): void {\n  store.watch(() => {\n${lines(MAX_FUNCTION_LINES - 1)}  });\n}\n`,
      'web/page/src/panels/method.ts': `export class A {\n  draw(): void {\n${lines(MAX_FUNCTION_LINES - 1)}  }\n}\n`,
      // Outside the page's source, functions may be longer.
      'web/src/long.ts': `// May import: nothing.\n${long}`,
    });
    const split = 'split it into functions with one job each';
    expect(structureProblems(dir)).toEqual([
      `web/page/src/long.ts:1: long is ${over} lines (at most ${MAX_FUNCTION_LINES}): ${split}`,
      `web/page/src/nested.ts:1: outer is ${over + 2} lines (at most ${MAX_FUNCTION_LINES}): ${split}`,
      `web/page/src/nested.ts:2: a function passed to store.watch is ${over} lines (at most ${MAX_FUNCTION_LINES}): ${split}`,
      `web/page/src/panels/method.ts:2: draw is ${over} lines (at most ${MAX_FUNCTION_LINES}): ${split}`,
    ]);
    const r = run(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`and no function in ${FUNCTION_SCOPE} is over ${MAX_FUNCTION_LINES} lines.`);
  });

  test("fails on an import in a direction its layer's May import line does not allow, and on a layer that says none", () => {
    const dir = checkout('layers', {
      'web/src/facts.ts': '/**\n * The facts.\n *\n * May import: nothing.\n */\nexport const n = 1;\n',
      'web/src/index.ts':
        "// The entry.\n// May import: core/, facts.ts.\nexport { run } from './core/run.js';\nexport { show } from './view/show.js';\n",
      'web/src/core/README.md': '# core/\n\nRuns calls.\n\nMay import: facts.ts.\n',
      'web/src/core/run.ts':
        "import { n } from '../facts.js';\nimport { helper } from './helper.js';\nimport type { Show } from '../view/show.js';\nexport const run = (s: Show) => n + helper + s;\n",
      'web/src/core/helper.ts': 'export const helper = 2;\n',
      'web/src/view/show.ts': "import { n } from '../facts.js';\nexport type Show = number;\nexport const show = n;\n",
      'web/src/wasm/README.md': '# wasm/\n\nMay import: nothing, nowhere/.\n',
    });
    expect(structureProblems(dir)).toEqual([
      'web/src/view/README.md: missing what view/ may import (a line "May import: a/, b.ts" or "May import: nothing")',
      'web/src/wasm/README.md: "May import" names nothing, which is not a layer of web/src',
      'web/src/wasm/README.md: "May import" names nowhere/, which is not a layer of web/src',
      'web/src/core/run.ts:3: core/ imports view/, which its "May import" line does not allow',
      'web/src/index.ts:4: index.ts imports view/, which its "May import" line does not allow',
    ]);
    const r = run(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('allows on its "May import" line; ');
  });

  test("reads this repository's norms and forms from the specification's rows", () => {
    const text = readFileSync(join(root, NORM_SPEC), 'utf8');
    expect(tableKeys(text, 'NORMS')).toEqual([...NORM_KINDS]);
    expect(tableKeys(text, 'NORM_FORMS')).toEqual([...NORM_FORM_NAMES]);
    expect(tableKeys(spec, 'NORMS')).toEqual(['layernorm', 'rmsnorm', 'scalenorm']);
  });
});
