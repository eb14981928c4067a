// The Node ESM app: prints the checks of both backends as JSON. With LNW_HIDE_GET_BUILTIN_MODULE
// set, process.getBuiltinModule is removed first, as on Node 20.0–20.15.
if (process.env.LNW_HIDE_GET_BUILTIN_MODULE) delete process.getBuiltinModule;
const { check } = await import('./check.js');
const auto = await check();
const scalar = await check({ backend: 'scalar' });
console.log(JSON.stringify({ node: process.version, getBuiltinModule: typeof process.getBuiltinModule, auto, scalar }));
