// The Node app of layernorm-wasm/worker (worker_threads): prints the checks of both backends as
// JSON, and exits by itself once they are done.
import { checkInWorker } from './package-worker.js';

const auto = await checkInWorker();
const scalar = await checkInWorker({ backend: 'scalar' });
console.log(JSON.stringify({ node: process.version, getBuiltinModule: typeof process.getBuiltinModule, auto, scalar }));
