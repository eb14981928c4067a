// What users get: `npm pack`, the tarball installed into an empty project from an empty npm cache
// with --offline (nothing may come from a registry), then imported by name, type-checked by strict
// TypeScript consumers, and checked by publint and arethetypeswrong.
//
// The tarball is packed with --ignore-scripts: `npm test` has just built dist/, and the prepack
// build would rewrite dist/ while other test files read it. `npm run test:bundlers` packs with
// the prepack build and proves it runs.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REACT_TS_TEMPLATE } from './bundlers/react-ts-template.mjs';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
let dir: string;
let tarball: string;
let installed: string;

/** A fresh, empty npm cache, inside `dir` (removed with it): what the install needs must come from the tarball. */
const emptyCacheEnv = () => ({
  ...process.env,
  npm_config_cache: mkdtempSync(join(dir, 'npm-cache-')),
});

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'layernorm-wasm-pack-'));
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], {
    cwd: root,
    env: emptyCacheEnv(),
    stdio: 'pipe',
  });
  tarball = join(
    dir,
    readdirSync(dir).find((f) => f.endsWith('.tgz'))!,
  );
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], {
    cwd: dir,
    env: emptyCacheEnv(),
    stdio: 'pipe',
  });
  installed = join(dir, 'node_modules', 'layernorm-wasm');
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(folder, join(e.parentPath, e.name)));
}

describe('the tarball', () => {
  it('has no dependencies, so it installs offline from an empty cache', () => {
    expect(pkg.dependencies).toBeUndefined();
    expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version).toBe(pkg.version);
  });

  it('ships dist/ (both .wasm builds and their embedded copies), the README and package.json, nothing else', () => {
    const files = filesUnder(installed);
    for (const f of [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/loading/file-reader.js',
      'dist/loading/file-reader.node.js',
      'dist/worker/index.js',
      'dist/worker/index.d.ts',
      'dist/worker/script.js',
      'dist/explainer/index.js',
      'dist/explainer/index.d.ts',
      'dist/inline.js',
      'dist/inline.d.ts',
      'dist/onnx/index.js',
      'dist/onnx/index.d.ts',
      'dist/wasm/layernorm-simd.wasm',
      'dist/wasm/layernorm-scalar.wasm',
      'dist/wasm/layernorm-simd.embedded.js',
      'dist/wasm/layernorm-scalar.embedded.js',
    ]) {
      expect(files).toContain(f);
    }
    expect(
      files.filter((f) => !f.startsWith('dist/') && !['README.md', 'package.json', 'LICENSE'].includes(f)),
    ).toEqual([]);
    // Nothing but the build's own outputs (no stray bundles or assets from other tools).
    const strays = files.filter(
      (f) =>
        f.startsWith('dist/') &&
        !/^dist\/((io|worker|cli|explainer|onnx|checks|numerics|loading|core)\/)?[a-z-]+(\.node)?\.(js|d\.ts)$|^dist\/wasm\/(layernorm-(simd|scalar)(\.embedded)?\.(js|d\.ts)|layernorm-(simd|scalar)\.wasm|module\.d\.ts)$/.test(
          f,
        ),
    );
    expect(strays).toEqual([]);
  });

  it('embeds exactly the .wasm bytes it ships', async () => {
    for (const backend of ['simd', 'scalar']) {
      const { default: base64 } = await import(join(installed, 'dist', 'wasm', `layernorm-${backend}.embedded.js`));
      const file = readFileSync(join(installed, 'dist', 'wasm', `layernorm-${backend}.wasm`));
      expect(Buffer.from(base64, 'base64').equals(file)).toBe(true);
    }
  });

  it('runs no code from strings (strict CSP): no eval, no new Function, in the package or its Emscripten glue', () => {
    const js = filesUnder(join(installed, 'dist')).filter((f) => f.endsWith('.js'));
    const offenders = js.filter((f) =>
      /(?<![\w$.])(eval|Function)\s*\(|new\s+Function\b/.test(readFileSync(join(installed, 'dist', f), 'utf8')),
    );
    expect(js.length).toBeGreaterThan(10);
    expect(offenders).toEqual([]);
  });

  it('imports nothing by bare name at run time (an import map needs only layernorm-wasm)', () => {
    const specifiers = new Map<string, string>();
    // The command line (dist/cli/) is a Node program, not part of what pages import.
    for (const f of filesUnder(join(installed, 'dist')).filter((f) => f.endsWith('.js') && !f.startsWith('cli/'))) {
      const text = readFileSync(join(installed, 'dist', f), 'utf8');
      // A specifier has no spaces, commas or parentheses: the element's UI text ('Features from')
      // and property names ('zoom.from') near a quote are not imports.
      for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]([^'"\s(),;]+)['"]/g))
        specifiers.set(m[1], f);
    }
    const bare = [...specifiers].filter(([s]) => !s.startsWith('./') && !s.startsWith('../')).sort();
    // '#file-reader' is the package's own import, taken (dynamically) only for file: URLs, i.e. in
    // Node; 'node:fs/promises' sits behind it in the "node" condition's file. '#worker-threads'
    // likewise, taken only where there is no web Worker (Node), with 'node:worker_threads' behind it.
    expect(bare).toEqual([
      ['#file-reader', 'loading/wasm-source.js'],
      ['#worker-threads', 'worker/endpoint.js'],
      ['node:fs/promises', 'loading/file-reader.node.js'],
      ['node:worker_threads', 'worker/threads.node.js'],
    ]);
  });
});

describe('in Node', () => {
  const script = `
    if (process.env.HIDE) delete process.getBuiltinModule;
    const { init, layerNormReference } = await import('layernorm-wasm');
    const x = new Float32Array(2 * 768).map((_, i) => Math.sin(i) * 3 + 1e4);
    const out = { getBuiltinModule: typeof process.getBuiltinModule };
    for (const backend of ['auto', 'scalar']) {
      const rt = await init({ backend });
      const y = rt.layerNorm(x, 768);
      const ref = layerNormReference(x, 768);
      let maxAbs = 0;
      for (let i = 0; i < y.length; i++) maxAbs = Math.max(maxAbs, Math.abs(y[i] - ref[i]));
      out[backend] = { backend: rt.backend, kernel: rt.kernel, maxAbs };
    }
    console.log(JSON.stringify(out));`;

  for (const hide of [false, true]) {
    it(`imports by name and runs SIMD by default, scalar when forced${hide ? ', without process.getBuiltinModule (Node < 20.16)' : ''}`, () => {
      writeFileSync(join(dir, 'check.mjs'), script);
      const result = JSON.parse(
        execFileSync(process.execPath, ['check.mjs'], {
          cwd: dir,
          encoding: 'utf8',
          env: { ...process.env, HIDE: hide ? '1' : '' },
        }),
      );
      expect(result.getBuiltinModule).toBe(hide ? 'undefined' : 'function');
      expect(result.auto).toMatchObject({ backend: 'simd', kernel: 'f32_layernorm_ukernel__wasmsimd_u8' });
      expect(result.scalar).toMatchObject({ backend: 'scalar', kernel: 'f32_layernorm_ukernel__scalar_u8' });
      expect(result.auto.maxAbs).toBeLessThanOrEqual(1e-5);
      expect(result.scalar.maxAbs).toBeLessThanOrEqual(1e-5);
    });
  }
});

describe('the element and inline entries in Node', () => {
  it('layernorm-wasm/explainer imports without a DOM (server rendering) and defines nothing there', () => {
    writeFileSync(
      join(dir, 'ssr.mjs'),
      `const m = await import('layernorm-wasm/explainer');
       console.log(JSON.stringify({ cls: typeof m.LayerNormExplainer, customElements: typeof customElements }));`,
    );
    expect(JSON.parse(execFileSync(process.execPath, ['ssr.mjs'], { cwd: dir, encoding: 'utf8' }))).toEqual({
      cls: 'function',
      customElements: 'undefined',
    });
  });

  it('layernorm-wasm/inline runs from its embedded build, bit-identical to the default entry', () => {
    writeFileSync(
      join(dir, 'inline.mjs'),
      `const inline = await import('layernorm-wasm/inline');
       const main = await import('layernorm-wasm');
       const x = new Float32Array(3 * 768).map((_, i) => Math.cos(i) * 2 + (i % 768 === 447 ? 300 : 0));
       const out = {};
       for (const backend of ['simd', 'scalar']) {
         const a = (await inline.init({ backend })).layerNorm(x, 768);
         const b = (await main.init({ backend })).layerNorm(x, 768);
         out[backend] = a.every((v, i) => Object.is(v, b[i]));
       }
       const bytes = await inline.embeddedWasm('simd');
       out.magic = Array.from(bytes.subarray(0, 4));
       console.log(JSON.stringify(out));`,
    );
    expect(JSON.parse(execFileSync(process.execPath, ['inline.mjs'], { cwd: dir, encoding: 'utf8' }))).toEqual({
      simd: true,
      scalar: true,
      magic: [0, 0x61, 0x73, 0x6d],
    });
  });
});

describe('the onnx entry', () => {
  it('layernorm-wasm/onnx reads a model in Node, by name', () => {
    const model = join(root, 'tests', 'data', 'onnx', 'gpt2-opset14.onnx');
    writeFileSync(
      join(dir, 'onnx.mjs'),
      `import { openAsBlob } from 'node:fs';
       const { readOnnxModel, FormatError } = await import('layernorm-wasm/onnx');
       const model = await readOnnxModel(await openAsBlob(${JSON.stringify(model)}));
       const io = await import('layernorm-wasm/io');
       console.log(JSON.stringify({ norms: model.norms.map((n) => n.name), same: FormatError === io.FormatError }));`,
    );
    expect(JSON.parse(execFileSync(process.execPath, ['onnx.mjs'], { cwd: dir, encoding: 'utf8' }))).toEqual({
      norms: [
        'transformer.h.0.ln_1',
        'transformer.h.0.ln_2',
        'transformer.h.1.ln_1',
        'transformer.h.1.ln_2',
        'transformer.ln_f',
      ],
      same: true,
    });
  });

  it('is never loaded by the main entry: no module layernorm-wasm imports reaches dist/onnx/', () => {
    const dist = join(installed, 'dist');
    const reached = new Set<string>();
    const queue = ['index.js'];
    while (queue.length) {
      const f = queue.pop()!;
      if (reached.has(f)) continue;
      reached.add(f);
      const text = readFileSync(join(dist, f), 'utf8');
      for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g)) {
        queue.push(relative(dist, join(dist, f, '..', m[1]!)));
      }
    }
    expect(reached.size).toBeGreaterThan(10);
    expect([...reached].filter((f) => f.startsWith('onnx/'))).toEqual([]);
  });
});

describe('its types, for a strict TypeScript consumer without skipLibCheck', () => {
  // Uses the public API and asserts, through @ts-expect-error, that the types are not `any`.
  const consumer = `
import { init, layerNormReference, WasmLoadError, type InitOptions, type LayerNormRuntime, type WasmSource } from 'layernorm-wasm';
import { loadLayerNormWeights } from 'layernorm-wasm/io';
import { initWorker, WorkerError, type LayerNormWorker, type WorkerLayerNorm } from 'layernorm-wasm/worker';

const perBackend: InitOptions = {
  backend: 'auto',
  wasm: { simd: new URL('https://cdn.example/lnw/layernorm-simd.wasm'), scalar: new Uint8Array(8) },
};
const base: InitOptions = { wasm: '/static/layernorm/' };

export async function run(x: Float32Array): Promise<number> {
  let rt: LayerNormRuntime;
  try {
    rt = await init(Math.random() > 0.5 ? perBackend : base);
  } catch (e) {
    if (e instanceof WasmLoadError) return e.status ?? -1;
    throw e;
  }
  const ln = rt.createLayerNorm(768);
  const y: Float32Array = ln.forward(x);
  ln[Symbol.dispose]();
  const tensor = rt.allocate(1, 768);
  tensor.dispose();
  const fromFetch: WasmSource = await fetch('/layernorm-simd.wasm');
  const weights = await loadLayerNormWeights({ gamma: new Uint8Array(0) });
  return y[0] + layerNormReference(x, 768)[0] + weights.d + (fromFetch instanceof Response ? 1 : 0);
}

export async function offMainThread(x: Float32Array, signal: AbortSignal): Promise<number> {
  const w: LayerNormWorker = await initWorker({ backend: 'simd', wasm: '/static/layernorm/' });
  try {
    const y: Float32Array = await w.layerNorm(x, 768, { transfer: false, signal, onProgress: (done, total) => done / total });
    const ln: WorkerLayerNorm = await w.createLayerNorm(768, { gamma: null });
    const z: Float32Array = await ln.forward(y, undefined, { transfer: true });
    ln.dispose();
    return z[0] + (await w.layerNormStats(x, 768)).mean[0] + (await w.heapInUse());
  } catch (e) {
    if (e instanceof WorkerError) return -1;
    throw e;
  } finally {
    w[Symbol.dispose]();
  }
}
// @ts-expect-error transfer is true or false
void initWorker().then((w) => w.layerNorm(new Float32Array(1), 1, { transfer: 'yes' }));

// @ts-expect-error an unknown backend
void init({ backend: 'gpu' });
// @ts-expect-error a number is not a wasm location
void init({ wasm: 42 });
`;
  /** Where the project's lib has WebAssembly (dom), a compiled module is a WasmSource too; and the element. */
  const withDom = `${consumer}
import { LayerNormExplainer, type ExplainerWeights, type RowChangeDetail } from 'layernorm-wasm/explainer';
import { init as initInline, embeddedWasm } from 'layernorm-wasm/inline';
export const compiled: Promise<WasmSource> = WebAssembly.compile(new Uint8Array(8));

export async function explain(w: ExplainerWeights, data: Float32Array): Promise<number> {
  const el: LayerNormExplainer = document.createElement('layernorm-explainer');
  el.weights = w;
  el.activations = { data, shape: [1, data.length / 768, 768], tokens: null };
  el.runtime = initInline();
  el.addEventListener('rowchange', (e) => console.log((e as CustomEvent<RowChangeDetail>).detail.row));
  await el.ready;
  const bytes: Uint8Array = await embeddedWasm('scalar');
  return (el.stages?.output[0] ?? 0) + bytes.length;
}
// γ as number[] (what JSON gives) is taken; text is not.
document.createElement('layernorm-explainer').weights = { gamma: [1, 2] };
// @ts-expect-error γ must be numbers
void ((document.createElement('layernorm-explainer').weights = { gamma: 'ab' }));
const typed = document.createElement('layernorm-explainer');
typed.addEventListener('rowchange', (e) => console.log(e.detail.row, e.detail.token));
typed.addEventListener('viewchange', (e) => console.log(e.detail.view, e.detail.zoom?.from));
typed.addEventListener('error', (e) => console.log(e.message));
typed.theme = 'auto';
// @ts-expect-error a theme the element does not have
typed.theme = 'purple';
// @ts-expect-error a view the element does not have
typed.view = 'grid';

import * as ort from 'onnxruntime-web';
import { captureNorms, createNormCapture, readOnnxModel, type CapturedNorm } from 'layernorm-wasm/onnx';
export async function capture(url: string, signal: AbortSignal): Promise<number> {
  const model = await readOnnxModel(url, { signal, onProgress: (read, expected) => read / expected });
  const { norms } = await captureNorms(ort, model, [15496, 11, 995]);
  const session = await createNormCapture(ort, model, { norms: ['transformer.ln_f'], sessionOptions: { executionProviders: ['wasm'] } });
  const lnf: CapturedNorm = (await session.run(Int32Array.of(1, 2))).norms[0]!;
  await session.release();
  explainer.weights = lnf;
  explainer.activations = { ...lnf.input, tokens: ['a', 'b'] };
  return norms[0]!.input.data[0]! + lnf.d + (model.vocabulary?.size ?? 0);
}
const explainer: LayerNormExplainer = document.createElement('layernorm-explainer');
// @ts-expect-error token ids, not text
void captureNorms(ort, {} as never, 'hello');
`;
  // The onnx entry takes the user's onnxruntime-web, which the consumer gets from this repository.
  const dom = {
    lib: ['es2022', 'dom'],
    types: [],
    paths: { 'onnxruntime-web': [join(root, 'node_modules', 'onnxruntime-web', 'types.d.ts')] },
  };
  const configs: Record<string, { source: string; options: Record<string, unknown>; compilers?: string[] }> = {
    'moduleResolution bundler': { source: withDom, options: { ...dom, module: 'esnext', moduleResolution: 'bundler' } },
    'moduleResolution node16': { source: withDom, options: { ...dom, module: 'node16', moduleResolution: 'node16' } },
    // A Node project typed with @types/node and no DOM lib (no WebAssembly namespace there).
    'a Node project (lib es2022 + @types/node, no dom)': {
      source: consumer,
      options: {
        lib: ['es2022'],
        types: ['node'],
        typeRoots: [join(root, 'node_modules', '@types')],
        module: 'node16',
        moduleResolution: 'node16',
      },
      compilers: ['typescript'],
    },
  };
  const compilers: [string, string][] = [
    [
      `TypeScript ${JSON.parse(readFileSync(join(root, 'node_modules/typescript/package.json'), 'utf8')).version}`,
      'typescript',
    ],
    ['TypeScript 5.0', 'typescript-5.0'],
  ];
  for (const [configName, { source, options, compilers: only }] of Object.entries(configs)) {
    for (const [compilerName, compiler] of compilers.filter(([, c]) => !only || only.includes(c))) {
      it(`${configName}, ${compilerName}`, () => {
        const project = join(dir, `types-${configName.replace(/\W+/g, '-')}-${compiler}`);
        mkdirSync(project, { recursive: true });
        writeFileSync(join(project, 'index.ts'), source);
        writeFileSync(
          join(project, 'tsconfig.json'),
          JSON.stringify({
            compilerOptions: {
              strict: true,
              noEmit: true,
              skipLibCheck: false,
              target: 'es2022',
              ...options,
            },
            files: ['index.ts'],
          }),
        );
        const tsc = join(root, 'node_modules', compiler, 'bin', 'tsc');
        let output = '';
        try {
          execFileSync(process.execPath, [tsc, '-p', project], { cwd: dir, encoding: 'utf8' });
        } catch (e) {
          output = String((e as { stdout?: string }).stdout ?? e);
        }
        expect(output).toBe('');
      }, 120_000);
    }
  }
});

describe('the README’s React example, type-checked as the stock Vite react-ts template checks an app', () => {
  const template = REACT_TS_TEMPLATE;
  const types = (name: string) => join(root, 'node_modules', '@types', name);
  const example = () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const block = /<!-- example: spec tests\/browser\/explainer\/readme\.spec\.ts -->\s*```tsx\n([\s\S]*?)```/.exec(
      readme,
    );
    expect(block, 'the README has the React example in TSX').not.toBeNull();
    return block![1]!;
  };
  /** What a reader may get wrong, each refused by the types. */
  const mistakes = `
export function Mistakes() {
  return (
    <>
      {/* @ts-expect-error a theme the element does not have */}
      <layernorm-explainer theme="purple" />
      {/* @ts-expect-error the row is a number */}
      <layernorm-explainer row="2" />
      <layernorm-explainer onerror={(e) => console.log(e.detail.message, e.message)} onviewchange={(e) => e.detail.scale} />
    </>
  );
}
`;
  const check = (name: string, source: string, react: Record<string, string[]>) => {
    const project = join(dir, `react-${name}`);
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'main.tsx'), source);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { ...template, paths: react }, files: ['main.tsx'] }),
    );
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', project], { cwd: dir, encoding: 'utf8' });
    } catch (e) {
      output = String((e as { stdout?: string }).stdout ?? e);
    }
    return output;
  };

  it('React 19: the example as written, and the mistakes refused', () => {
    const react = {
      react: [types('react')],
      'react/*': [`${types('react')}/*`],
      'react-dom/client': [join(types('react-dom'), 'client.d.ts')],
    };
    expect(check('19', example() + mistakes, react)).toBe('');
  }, 120_000);

  it('React 18: the element’s JSX, typed the same', () => {
    const react = { react: [types('react-18')], 'react/*': [`${types('react-18')}/*`] };
    const app = `import 'layernorm-wasm/explainer';
import 'layernorm-wasm/explainer/react';
import { useEffect, useRef } from 'react';
import type { LayerNormExplainer } from 'layernorm-wasm/explainer';

export function Explainer({ data }: { data: Float32Array }) {
  const ref = useRef<LayerNormExplainer>(null);
  useEffect(() => {
    const el = ref.current!;
    el.activations = { data, shape: [data.length / 768, 768] };
    el.addEventListener('rowchange', (e) => console.log(e.detail.token));
  }, [data]);
  return <layernorm-explainer ref={ref} src="model.safetensors" row={1} />;
}
`;
    expect(check('18', app + mistakes, react)).toBe('');
  }, 120_000);
});

describe('package.json', () => {
  it('passes publint --strict (exports, types, files as bundlers and Node expect them)', () => {
    const bin = join(root, 'node_modules', 'publint', 'src', 'cli.js');
    const out = execFileSync(process.execPath, [bin, '--strict'], { cwd: root, encoding: 'utf8' });
    expect(out).toContain('All good!');
  }, 120_000);

  it('passes arethetypeswrong as an ESM-only package (the .wasm subpaths are files, not modules)', () => {
    // --profile esm-only: CommonJS consumers load the package with import() (or require(esm) on
    // Node 20.19+); ./wasm/simd and ./wasm/scalar export the .wasm files themselves, for tools
    // that copy or serve them, and have no types by nature; ./worker/script is the worker's script,
    // for bundlers to take as an entry, not a module to import. moduleResolution node10 predates
    // "exports", so no subpath resolves there (./io and ./worker neither); the profile ignores it.
    const bin = join(root, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');
    const out = execFileSync(
      process.execPath,
      [
        bin,
        tarball,
        '--profile',
        'esm-only',
        '--exclude-entrypoints',
        './wasm/simd',
        './wasm/scalar',
        './worker/script',
        '--format',
        'json',
      ],
      { cwd: root, encoding: 'utf8' },
    );
    // The command exits 0 (execFileSync would throw otherwise); the one finding it reports and
    // the profile ignores is the ESM-only one.
    const report = JSON.parse(out);
    expect(report.analysis.problems).toEqual([
      { kind: 'CJSResolvesToESM', entrypoint: '.', resolutionKind: 'node16-cjs' },
      { kind: 'NoResolution', entrypoint: './io', resolutionKind: 'node10' },
      { kind: 'CJSResolvesToESM', entrypoint: './io', resolutionKind: 'node16-cjs' },
      { kind: 'NoResolution', entrypoint: './worker', resolutionKind: 'node10' },
      { kind: 'CJSResolvesToESM', entrypoint: './worker', resolutionKind: 'node16-cjs' },
      { kind: 'NoResolution', entrypoint: './explainer', resolutionKind: 'node10' },
      { kind: 'CJSResolvesToESM', entrypoint: './explainer', resolutionKind: 'node16-cjs' },
      { kind: 'NoResolution', entrypoint: './explainer/react', resolutionKind: 'node10' },
      { kind: 'CJSResolvesToESM', entrypoint: './explainer/react', resolutionKind: 'node16-cjs' },
      { kind: 'NoResolution', entrypoint: './explainer/compute', resolutionKind: 'node10' },
      { kind: 'CJSResolvesToESM', entrypoint: './explainer/compute', resolutionKind: 'node16-cjs' },
      { kind: 'NoResolution', entrypoint: './inline', resolutionKind: 'node10' },
      { kind: 'CJSResolvesToESM', entrypoint: './inline', resolutionKind: 'node16-cjs' },
      { kind: 'NoResolution', entrypoint: './onnx', resolutionKind: 'node10' },
      { kind: 'CJSResolvesToESM', entrypoint: './onnx', resolutionKind: 'node16-cjs' },
    ]);
    expect(Object.keys(report.analysis.entrypoints)).toEqual([
      '.',
      './io',
      './worker',
      './explainer',
      './explainer/react',
      './explainer/compute',
      './inline',
      './onnx',
      './package.json',
    ]);
  }, 120_000);

  it('declares ESM exports with types first, side effects in the element entry only, a prepack build that publishing runs, and Node 20', () => {
    expect(pkg.type).toBe('module');
    expect(Object.keys(pkg.exports['.'])[0]).toBe('types');
    // `import 'layernorm-wasm/explainer'` defines the element: a bundler must keep that import.
    expect(pkg.sideEffects).toEqual(['./dist/explainer/index.js']);
    expect(pkg.scripts.prepack).toBe('node web/scripts/build.mjs');
    // .npmrc turns install scripts off; publishing must still run prepack.
    expect(pkg.publishConfig).toEqual({ 'ignore-scripts': false });
    expect(pkg.engines.node).toBe('>=20');
    expect(pkg.imports['#file-reader']).toEqual({
      node: './dist/loading/file-reader.node.js',
      default: './dist/loading/file-reader.js',
    });
  });
});
