/**
 * The fenced code blocks of the READMEs and how each says it is tested: the comment on the line
 * before its opening fence (blank lines allowed between), one of
 *
 *   <!-- example: node -->                 runs as written in Node, as an ES module, against the built package
 *   <!-- example: browser -->              runs as written in Chromium, as a module script on a page from 127.0.0.1
 *   <!-- example: browser worker -->       the same, and inside a module Worker too
 *   <!-- example: node browser -->         any combination of node, browser and worker
 *   <!-- example: spec tests/…/x.ts -->    a dedicated test reads this block (with `specBlocks`) and runs it as written
 *   <!-- example: none — <reason> -->      not meant to be pasted as is (a type listing, Python, …)
 *
 * A block without such a comment, with two, or with a kind outside these is a problem that
 * `readmeProblems` reports and tests/readme/annotations.test.ts fails on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
/** The READMEs whose blocks are tests, relative to the repository root. */
export const READMES = ['README.md', 'web/page/README.md'] as const;

export type RunKind = 'node' | 'browser' | 'worker';
const RUN_KINDS: readonly string[] = ['node', 'browser', 'worker'];

export type Annotation =
  { kind: 'run'; where: RunKind[] } | { kind: 'spec'; path: string } | { kind: 'none'; reason: string };

export interface Block {
  /** README path relative to the root, e.g. "README.md". */
  readme: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string: "js", "ts", "sh", "html", … */
  lang: string;
  /** The code, with the indentation of a fence inside a list item removed. */
  code: string;
  annotation: Annotation | null;
  /** What is wrong with the annotation, if anything. */
  problem: string | null;
  /** A short name for test titles and file names: "README.md:34 (js)". */
  name: string;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)\s*$/;
const COMMENT = /^\s*<!--\s*example:(.*?)-->\s*$/;
const ANY_COMMENT = /^\s*<!--/;

export function parseAnnotation(text: string): Annotation | string {
  const body = text.trim();
  if (body === '') return 'the comment names no kind';
  if (body.startsWith('none')) {
    const reason = body
      .slice(4)
      .replace(/^\s*[—–-]\s*/, '')
      .trim();
    return reason ? { kind: 'none', reason } : 'none needs a reason: <!-- example: none — <reason> -->';
  }
  if (body.startsWith('spec')) {
    const path = body.slice(4).trim();
    return /^tests\/\S+\.(spec|test)\.(ts|mjs)$/.test(path)
      ? { kind: 'spec', path }
      : `spec needs the path of a test under tests/, got "${path}"`;
  }
  const where = body.split(/\s+/);
  const unknown = where.filter((w) => !RUN_KINDS.includes(w));
  if (unknown.length) {
    return `unknown kind ${unknown.map((u) => `"${u}"`).join(', ')}; the kinds are node, browser, worker, spec <path>, none — <reason>`;
  }
  if (new Set(where).size !== where.length) return `a kind named twice: "${body}"`;
  return { kind: 'run', where: where as RunKind[] };
}

/** Every fenced block of one markdown text, with its annotation or the problem with it. */
export function parseBlocks(markdown: string, readme: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const [, indent = '', fence = '', lang = ''] = open;
    const close = new RegExp(`^\\s*\\${fence[0]}{${fence.length},}\\s*$`);
    let end = i + 1;
    while (end < lines.length && !close.test(lines[end]!)) end++;
    const code = lines
      .slice(i + 1, end)
      .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart()))
      .join('\n');
    // The comments just above the fence, blank lines allowed between them and the fence.
    const comments: string[] = [];
    let j = i - 1;
    while (j >= 0 && lines[j]!.trim() === '') j--;
    while (j >= 0 && ANY_COMMENT.test(lines[j]!)) comments.unshift(lines[j--]!);
    const ours = comments.filter((c) => COMMENT.test(c));
    let annotation: Annotation | null = null;
    let problem: string | null = null;
    if (ours.length === 0) problem = 'no <!-- example: … --> comment before the block';
    else if (ours.length > 1) problem = `${ours.length} example comments before the block; expected one`;
    else {
      const parsed = parseAnnotation(COMMENT.exec(ours[0]!)![1]!);
      if (typeof parsed === 'string') problem = parsed;
      else annotation = parsed;
    }
    blocks.push({
      readme,
      line: i + 1,
      lang,
      code,
      annotation,
      problem,
      name: `${readme}:${i + 1} (${lang || 'text'})`,
    });
    i = end;
  }
  return blocks;
}

/** Every block of every README. */
export function readmeBlocks(): Block[] {
  return READMES.flatMap((readme) => parseBlocks(readFileSync(join(ROOT, readme), 'utf8'), readme));
}

/** The blocks that run in `where` (node, browser or worker). */
export function blocksRunIn(where: RunKind): Block[] {
  return readmeBlocks().filter((b) => b.annotation?.kind === 'run' && b.annotation.where.includes(where));
}

/**
 * The blocks a dedicated test runs: those annotated `spec <path>` with the test's own path. A test
 * calls this with its path; annotations.test.ts checks that each named test does.
 */
export function specBlocks(path: string): Block[] {
  const found = readmeBlocks().filter((b) => b.annotation?.kind === 'spec' && b.annotation.path === path);
  if (found.length === 0) throw new Error(`no README block is annotated <!-- example: spec ${path} -->`);
  return found;
}
