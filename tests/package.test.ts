// What users get: `npm pack`, install the tarball into an empty project, import it by name.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'layernorm-wasm-pack-'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: root, encoding: 'utf8' });
  const [{ filename }] = JSON.parse(out.slice(out.indexOf('[')));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--offline', join(dir, filename)], {
    cwd: dir,
    stdio: 'ignore',
  });
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('ships only dist/, the README and package.json, with both .wasm builds', () => {
  const files = execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: root, encoding: 'utf8' });
  const paths: string[] = JSON.parse(files.slice(files.indexOf('[')))[0].files.map((f: { path: string }) => f.path);
  expect(paths).toContain('dist/index.js');
  expect(paths).toContain('dist/index.d.ts');
  expect(paths).toContain('dist/wasm/layernorm-simd.wasm');
  expect(paths).toContain('dist/wasm/layernorm-scalar.wasm');
  expect(paths.every((p) => p.startsWith('dist/') || ['README.md', 'package.json', 'LICENSE'].includes(p))).toBe(true);
});

it('imports by name in Node and runs SIMD by default, scalar when forced', () => {
  const script = `
    import { init, layerNormReference } from 'layernorm-wasm';
    const x = new Float32Array(2 * 768).map((_, i) => Math.sin(i) * 3 + 1e4);
    const out = {};
    for (const backend of ['auto', 'scalar']) {
      const rt = await init({ backend });
      const y = rt.layerNorm(x, 768);
      const ref = layerNormReference(x, 768);
      let maxAbs = 0;
      for (let i = 0; i < y.length; i++) maxAbs = Math.max(maxAbs, Math.abs(y[i] - ref[i]));
      out[backend] = { backend: rt.backend, kernel: rt.kernel, maxAbs };
    }
    console.log(JSON.stringify(out));`;
  writeFileSync(join(dir, 'check.mjs'), script);
  const result = JSON.parse(execFileSync(process.execPath, ['check.mjs'], { cwd: dir, encoding: 'utf8' }));
  expect(result.auto).toMatchObject({ backend: 'simd', kernel: 'f32_layernorm_ukernel__wasmsimd_u8' });
  expect(result.scalar).toMatchObject({ backend: 'scalar', kernel: 'f32_layernorm_ukernel__scalar_u8' });
  expect(result.auto.maxAbs).toBeLessThanOrEqual(1e-5);
  expect(result.scalar.maxAbs).toBeLessThanOrEqual(1e-5);
});

it('passes publint (exports, types, files as bundlers and Node expect them)', () => {
  const bin = join(root, 'node_modules', 'publint', 'src', 'cli.js');
  const out = execFileSync(process.execPath, [bin, '--strict'], { cwd: root, encoding: 'utf8' });
  expect(out).toContain('All good!');
}, 120_000);

it('declares ESM exports with types first', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  expect(pkg.type).toBe('module');
  expect(Object.keys(pkg.exports['.'])[0]).toBe('types');
});
