// <layernorm-explainer> in framework apps built by Vite, each with the matrix data as its own: the
// app renders the element, hears `rowchange`, and passes a bad property, after which its page must
// still stand while the element shows the message and fires `error`. Cases as in cases.mjs, of
// kind 'explainer' (the runner compares the stages of every row with Node's output); the React
// apps are TSX, type-checked by tsc before the build. The frameworks come from this repository's
// node_modules, as an app's own dependencies.
import { execFileSync } from 'node:child_process';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import vue from '@vitejs/plugin-vue';
import { build as viteBuild } from 'vite';
import { page } from './cases.mjs';
import { REACT_TS_TEMPLATE } from './react-ts-template.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const modules = join(ROOT, 'node_modules');

/** The app's own dependencies, linked into its node_modules as if it had installed them. */
function link(app, deps) {
  for (const dep of deps) symlinkSync(join(modules, dep), join(app.dir, 'node_modules', dep), 'dir');
}

async function viteApp(app, config = {}) {
  await viteBuild({ root: app.dir, configFile: false, logLevel: 'warn', ...config });
  return join(app.dir, 'dist');
}

/** As the stock Vite react-ts template checks an app, with `paths` for the React types. */
function typeCheck(app, files, paths) {
  const compilerOptions = {
    ...REACT_TS_TEMPLATE,
    // The shared app code (inputs.js) is JavaScript.
    allowJs: true,
    paths,
  };
  writeFileSync(join(app.dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }));
  try {
    execFileSync(process.execPath, [join(modules, 'typescript', 'bin', 'tsc'), '-p', app.dir], { encoding: 'utf8' });
  } catch (e) {
    throw new Error(`tsc: ${e.stdout || e.message}`);
  }
}

export const frameworkCases = [
  {
    // Type-checked by tsc first (React 19's own types); React sets the element's properties and
    // on<event> listeners from its props.
    name: 'layernorm-wasm/explainer in a React 19 TSX app (Vite build)',
    kind: 'explainer',
    files: { 'index.html': page({ script: '/src/react19-entry.tsx' }) },
    start: async (app) => {
      const types = join(modules, '@types');
      typeCheck(app, ['src/react19-entry.tsx'], {
        react: [join(types, 'react')],
        'react/*': [join(types, 'react', '*')],
        'react-dom/client': [join(types, 'react-dom', 'client.d.ts')],
      });
      link(app, ['react', 'react-dom', 'scheduler']);
      return (await app.serve(await viteApp(app))).url();
    },
    wasmFrom: 'file',
    noFailedRequests: true,
  },
  {
    // Type-checked by tsc first. React 18 beside React 19: installed under the aliases react-18 and react-dom-18, which the
    // app's vite config (resolve.alias) and tsconfig (paths, to @types/react-18) map back.
    name: 'layernorm-wasm/explainer in a React 18 TSX app (Vite build)',
    kind: 'explainer',
    files: { 'index.html': page({ script: '/src/react18-entry.tsx' }) },
    start: async (app) => {
      const types = join(modules, '@types');
      typeCheck(app, ['src/react18-entry.tsx'], {
        react: [join(types, 'react-18')],
        'react/*': [join(types, 'react-18', '*')],
        'react-dom/client': [join(types, 'react-dom', 'client.d.ts')],
      });
      const alias = { react: join(modules, 'react-18'), 'react-dom': join(modules, 'react-dom-18') };
      return (await app.serve(await viteApp(app, { resolve: { alias } }))).url();
    },
    wasmFrom: 'file',
    noFailedRequests: true,
  },
  {
    // Vue sets the element's properties (it has them once defined) and listens to its events;
    // the compiler is told the tag is a custom element, not a component to resolve.
    name: 'layernorm-wasm/explainer in a Vue 3 app (Vite build)',
    kind: 'explainer',
    files: { 'index.html': page({ script: '/src/vue-entry.js' }) },
    start: async (app) => {
      link(app, ['vue']);
      const isCustomElement = (tag) => tag === 'layernorm-explainer';
      const plugins = [vue({ template: { compilerOptions: { isCustomElement } } })];
      return (await app.serve(await viteApp(app, { plugins }))).url();
    },
    wasmFrom: 'file',
    noFailedRequests: true,
  },
  {
    // Svelte sets the element's properties (it has them once defined); on<event> attributes listen.
    name: 'layernorm-wasm/explainer in a Svelte 5 app (Vite build)',
    kind: 'explainer',
    files: { 'index.html': page({ script: '/src/svelte-entry.js' }) },
    start: async (app) => {
      link(app, ['svelte']);
      return (await app.serve(await viteApp(app, { plugins: [svelte()] }))).url();
    },
    wasmFrom: 'file',
    noFailedRequests: true,
  },
];
