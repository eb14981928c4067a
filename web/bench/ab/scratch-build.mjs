// Node only: the package as another commit built it, for the same-run A/B (ab/run.mjs). The
// commit's tree is extracted with `git archive` into build/bench-against/<sha>/ (outside the
// tracked files, never a worktree of this repository) and built there by its own
// web/scripts/build.mjs, once per commit: later runs reuse the dist/ they find.
//
// Dependencies come from this checkout's node_modules (linked entry by entry) where the commit's
// package.json asks for the same versions; a runtime dependency or build tool it pins otherwise is
// installed beside it, in build/bench-against/<sha>/.deps, and named in the log.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../cli.mjs';

export const SCRATCH = path.join(repoRoot, 'build', 'bench-against');

/** Thrown when a commit's package cannot be built: the message says why. */
export class CannotBuildError extends Error {}

const git = (...args) =>
  execFileSync('git', args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] })
    .toString()
    .trim();

/** The full sha and one-line subject of a git ref, or CannotBuildError. */
export function resolveRef(ref) {
  try {
    const sha = git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
    return { sha, subject: git('log', '-1', '--format=%s', sha) };
  } catch {
    throw new CannotBuildError(
      `${ref} is not a commit of this repository (a shallow clone may lack it: git fetch --unshallow)`,
    );
  }
}

const readJson = (f) => JSON.parse(readFileSync(f, 'utf8'));

function installedVersion(name) {
  const f = path.join(repoRoot, 'node_modules', name, 'package.json');
  return existsSync(f) ? readJson(f).version : null;
}

/**
 * node_modules for the extracted tree: a link to each of this checkout's packages, except those the
 * commit's package.json needs at another version (its runtime dependencies, TypeScript and the
 * type packages the build compiles against), which are installed into .deps and linked instead.
 */
function linkDependencies(dir, log) {
  const pkg = readJson(path.join(dir, 'package.json'));
  const wanted = { ...(pkg.dependencies ?? {}) };
  for (const [name, spec] of Object.entries(pkg.devDependencies ?? {})) {
    if (name === 'typescript' || name.startsWith('@types/')) wanted[name] = spec;
  }
  const mismatched = Object.entries(wanted).filter(([name, spec]) => installedVersion(name) !== spec);
  const modules = path.join(dir, 'node_modules');
  rmSync(modules, { recursive: true, force: true });
  mkdirSync(modules);
  const link = (from, name) => {
    const to = path.join(modules, name);
    mkdirSync(path.dirname(to), { recursive: true });
    symlinkSync(from, to);
  };
  const own = path.join(repoRoot, 'node_modules');
  const skip = new Set(mismatched.map(([name]) => name));
  for (const entry of readdirSync(own)) {
    if (entry.startsWith('@')) {
      for (const sub of readdirSync(path.join(own, entry))) {
        if (!skip.has(`${entry}/${sub}`)) link(path.join(own, entry, sub), `${entry}/${sub}`);
      }
    } else if (!skip.has(entry)) {
      link(path.join(own, entry), entry);
    }
  }
  if (mismatched.length === 0) return;
  const specs = mismatched.map(([name, spec]) => `${name}@${spec}`);
  log(`  ${specs.join(', ')}: not in this checkout's node_modules at that version; installing beside the build`);
  const deps = path.join(dir, '.deps');
  mkdirSync(deps, { recursive: true });
  writeFileSync(path.join(deps, 'package.json'), '{ "private": true }\n');
  const r = spawnSync(
    'npm',
    ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', ...specs],
    { cwd: deps, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (r.status !== 0) {
    throw new CannotBuildError(`npm install ${specs.join(' ')} failed:\n${r.stderr.toString().trim()}`);
  }
  for (const [name] of mismatched) link(path.join(deps, 'node_modules', name), name);
}

/**
 * dist/index.js of `ref` built in build/bench-against/<sha>/ (built now if it is not there yet).
 * Returns { sha, subject, entry }. Throws CannotBuildError with the reason when it cannot be built.
 */
export function buildCommit(ref, log = (s) => console.log(s)) {
  const { sha, subject } = resolveRef(ref);
  const dir = path.join(SCRATCH, sha);
  const entry = path.join(dir, 'dist', 'index.js');
  const done = path.join(dir, 'BUILT');
  if (existsSync(done) && existsSync(entry)) return { sha, subject, entry };
  log(`building ${sha.slice(0, 7)} (${subject}) in ${path.relative(repoRoot, dir)}/ (once per commit)`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tar = spawnSync('sh', ['-c', `git archive --format=tar ${sha} | tar -x -C "${dir}"`], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (tar.status !== 0) throw new CannotBuildError(`git archive ${sha} failed: ${tar.stderr.toString().trim()}`);
  const script = path.join(dir, 'web', 'scripts', 'build.mjs');
  if (!existsSync(script)) throw new CannotBuildError(`${sha.slice(0, 7)} has no web/scripts/build.mjs to build with`);
  linkDependencies(dir, log);
  // The commit's own build, without its setup step (this checkout's setup has installed the tools).
  const NODE_PATH = [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(':');
  const r = spawnSync(process.execPath, [script, '--no-setup'], {
    cwd: dir,
    env: { ...process.env, NODE_PATH },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = `${r.stdout}${r.stderr}`;
  writeFileSync(path.join(dir, 'build.log'), output);
  if (r.status !== 0 || !existsSync(entry)) {
    const tail = output.trim().split('\n').slice(-15).join('\n');
    throw new CannotBuildError(
      `${sha.slice(0, 7)} could not be built by its web/scripts/build.mjs (exit ${r.status}); ` +
        `log in ${path.relative(repoRoot, dir)}/build.log, ending:\n${tail}`,
    );
  }
  writeFileSync(done, `${new Date().toISOString()}\n`);
  return { sha, subject, entry };
}
