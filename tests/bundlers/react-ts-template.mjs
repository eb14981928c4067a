/**
 * The compiler options of the stock Vite react-ts template's tsconfig.app.json (Vite 7/8): strict,
 * bundler resolution, react-jsx, skipLibCheck. The README's TSX example (tests/package.test.ts) and
 * the matrix's React apps (frameworks.mjs) are type-checked with them, as an author's app would be.
 */
export const REACT_TS_TEMPLATE = Object.freeze({
  target: 'ES2022',
  useDefineForClassFields: true,
  lib: ['ES2022', 'DOM', 'DOM.Iterable'],
  module: 'ESNext',
  types: [],
  skipLibCheck: true,
  moduleResolution: 'bundler',
  allowImportingTsExtensions: true,
  verbatimModuleSyntax: true,
  moduleDetection: 'force',
  noEmit: true,
  jsx: 'react-jsx',
  strict: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  noFallthroughCasesInSwitch: true,
});
