/**
 * The convention itself: every fenced block of the READMEs says how it is tested, with a kind
 * this harness knows, and every `spec` block is read by the test it names.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBlocks, readmeBlocks, ROOT } from './blocks.js';

describe('README blocks say how they are tested', () => {
  const blocks = readmeBlocks();

  it('every block has exactly one <!-- example: … --> comment of a known kind', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(15);
    expect(blocks.filter((b) => b.problem !== null).map((b) => `${b.name}: ${b.problem}`)).toEqual([]);
  });

  it('each test a `spec` block names exists and reads its blocks from the README by that name', () => {
    const specs = new Set(blocks.flatMap((b) => (b.annotation?.kind === 'spec' ? [b.annotation.path] : [])));
    expect(specs.size).toBeGreaterThanOrEqual(3);
    for (const path of specs) {
      expect(existsSync(join(ROOT, path)), path).toBe(true);
      expect(readFileSync(join(ROOT, path), 'utf8'), path).toContain(`specBlocks('${path}')`);
    }
  });
});

describe('the convention is enforced', () => {
  const one = (md: string) => parseBlocks(md, 'x.md');

  it('a block without a comment is a problem', () => {
    expect(one('text\n\n```js\nf();\n```\n')[0]!.problem).toBe('no <!-- example: … --> comment before the block');
  });

  it('an unknown kind, two comments, and none without a reason are problems', () => {
    expect(one('<!-- example: deno -->\n```js\nf();\n```')[0]!.problem).toBe(
      'unknown kind "deno"; the kinds are node, browser, worker, spec <path>, none — <reason>',
    );
    expect(one('<!-- example: node -->\n<!-- example: browser -->\n```js\nf();\n```')[0]!.problem).toBe(
      '2 example comments before the block; expected one',
    );
    expect(one('<!-- example: none -->\n```js\nf();\n```')[0]!.problem).toBe(
      'none needs a reason: <!-- example: none — <reason> -->',
    );
    expect(one('<!-- example: spec x.js -->\n```js\nf();\n```')[0]!.problem).toBe(
      'spec needs the path of a test under tests/, got "x.js"',
    );
  });

  it('reads kinds, blank lines before the fence, and blocks indented in a list item', () => {
    const [a, b] = one(
      '<!-- example: node browser worker -->\n\n```js\nf();\n```\n\n- item:\n\n  <!-- example: none — a listing -->\n  ```ts\n  type T = 1;\n    indented();\n  ```\n',
    );
    expect(a).toMatchObject({ line: 3, lang: 'js', code: 'f();', problem: null });
    expect(a!.annotation).toEqual({ kind: 'run', where: ['node', 'browser', 'worker'] });
    expect(b).toMatchObject({ line: 10, lang: 'ts', code: 'type T = 1;\n  indented();', problem: null });
    expect(b!.annotation).toEqual({ kind: 'none', reason: 'a listing' });
  });
});
